// Who a request is for and where it comes from. `X-Forwarded-For/Host/Proto` and `Forwarded` are whatever
// the client says unless a proxy in front overwrites them, so they are read only with REALMGATE_TRUST_PROXY=1.
// Without it, the Host is the request's own and our public origin is APP_URL's.
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

export const trustProxy = (): boolean => env().REALMGATE_TRUST_PROXY;

/** A Host header value: a DNS name or an IP literal, with an optional port. Anything else is not a host. */
const HOST_RE = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9_-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9_-]*[a-z0-9])?)*\.?|\d{1,3}(\.\d{1,3}){3})(:\d{1,5})?$/;

type Forwarded = { for?: string; host?: string; proto?: string };

/** The first element of an RFC 7239 `Forwarded` header (a trusted proxy writes exactly one). */
function parseForwarded(header: string | null): Forwarded {
  if (!header) return {};
  const out: Forwarded = {};
  for (const pair of header.split(",")[0]!.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const key = pair.slice(0, eq).trim().toLowerCase();
    const value = pair.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    if (key === "for" || key === "host" || key === "proto") out[key] = value;
  }
  return out;
}

const firstValue = (v: string | null) => v?.split(",")[0]?.trim() || undefined;

/** What a trusted proxy says about the request; empty unless REALMGATE_TRUST_PROXY=1. */
export function forwarded(req: Request): Forwarded {
  if (!trustProxy()) return {};
  const std = parseForwarded(req.headers.get("forwarded"));
  const xff = req.headers.get("x-forwarded-for");
  return {
    // The last hop is the one our proxy added (an appending proxy keeps what the client sent in front of it).
    for: (xff ? xff.split(",").at(-1)?.trim() : undefined) || std.for,
    host: firstValue(req.headers.get("x-forwarded-host")) ?? std.host,
    proto: firstValue(req.headers.get("x-forwarded-proto")) ?? std.proto,
  };
}

/** The client's address as our trusted proxy saw it; null when no proxy is trusted (it cannot be known then). */
export function clientAddress(req: Request): string | null {
  const a = forwarded(req).for;
  if (!a || a.toLowerCase() === "unknown") return null;
  return a.replace(/^\[([^\]]+)\](:\d+)?$/, "$1").slice(0, 64).toLowerCase();
}

/** The host the request was sent to (`host[:port]`, lower case): the Host header, or a trusted proxy's. */
export function requestHost(req: Request): string {
  const given = forwarded(req).host ?? req.headers.get("host") ?? new URL(req.url).host;
  return given.trim().toLowerCase();
}

/** The scheme the request was sent with: the request URL's, or a trusted proxy's. */
export function requestProto(req: Request): "http" | "https" {
  const p = (forwarded(req).proto ?? new URL(req.url).protocol).replace(/:$/, "").toLowerCase();
  return p === "https" ? "https" : "http";
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** `host[:port]` split; null for something that is not a host. */
function splitHost(hostPort: string): { hostname: string; port: string | null } | null {
  const h = hostPort.trim().toLowerCase();
  if (!HOST_RE.test(h)) return null;
  const m = /^(.*?)(?::(\d{1,5}))?$/.exec(h)!;
  return { hostname: m[1]!.replace(/\.$/, ""), port: m[2] ?? null };
}

const defaultPort = (proto: string) => (proto === "https" || proto === "https:" ? "443" : "80");

/**
 * A host this server serves: APP_URL's host (and port), a REALMGATE_ALLOWED_HOSTS alias (any port unless the
 * alias names one), or a loopback name or address (any port). `proto` fills in a missing port.
 */
export function isServedHost(hostPort: string, proto: string = "http"): boolean {
  const h = splitHost(hostPort);
  if (!h) return false;
  if (isLoopbackHost(h.hostname)) return true;
  const port = h.port ?? defaultPort(proto);
  const app = new URL(env().appUrl);
  if (app.hostname.toLowerCase() === h.hostname && (app.port || defaultPort(app.protocol)) === port) return true;
  return env().REALMGATE_ALLOWED_HOSTS.some((alias) => {
    const a = splitHost(alias);
    return a !== null && a.hostname === h.hostname && (a.port === null || a.port === port);
  });
}

/** APP_URL's origin (`scheme://host[:port]`). */
export const appOrigin = (): string => new URL(env().appUrl).origin;

/** An Origin header whose host is one we serve (http or https): for clients that are not our own pages. */
export function isServedOrigin(origin: string): boolean {
  if (origin === appOrigin()) return true;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.origin !== origin) return false;
  return isServedHost(u.host, u.protocol);
}

/** Refuse a request addressed to a host we do not serve (DNS rebinding: a browser sends the attacker's name). */
export function assertServedHost(req: Request): void {
  const host = requestHost(req);
  if (!isServedHost(host, requestProto(req))) {
    throw new AppError("forbidden", "This server does not answer to that Host.", { details: { host: host.slice(0, 200) } });
  }
}

/**
 * Is `origin` the origin of this very request, as a browser on one of our pages would send it? APP_URL's
 * origin always is; so is the request's own `scheme://host` when that host is one we serve.
 */
export function isOwnOrigin(req: Request, origin: string): boolean {
  if (origin === appOrigin()) return true;
  const host = requestHost(req);
  const proto = requestProto(req);
  return isServedHost(host, proto) && origin === new URL(`${proto}://${host}`).origin;
}

/** The client's own `X-Request-Id`, when it is a sane one (kept for correlation, never used as ours). */
export function clientRequestIdOf(req: Request): string | undefined {
  const given = req.headers.get("x-request-id")?.trim();
  return given && /^[A-Za-z0-9_.:-]{1,128}$/.test(given) ? given : undefined;
}
