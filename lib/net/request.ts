// The one way out to the network. Every outbound HTTP request of Realmgate is sent here: bounded in time
// (connecting, waiting and reading the answer all count) and in size, redirects never followed, and private
// addresses refused *at connect time*: the socket connects to exactly the address the guard approved, so a
// name that resolves to a public address when checked and to 10.0.0.5 a moment later (DNS rebinding) cannot
// slip through. Which hosts may reach private addresses is the caller's policy.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { bareHost, isPrivateAddress } from "./address";
import { NetError } from "./error";

/**
 * Which hosts may connect to private addresses: `false` none (the default stance for anything a user or an
 * imported document names), `true` any (endpoints only the operator configures), or a test per host as
 * written in the URL (an operator's allow-list; loopback in a loopback deployment).
 */
export type PrivatePolicy = boolean | ((host: string) => boolean);

/** The policy of an operator's allow-list: hostnames or IPs, comma-separated (as written in URLs; case does not matter). */
export function listedHostsPolicy(list: string | undefined): (host: string) => boolean {
  const listed = new Set(
    (list ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  return (host) => listed.has(host.toLowerCase());
}

export type NetRequest = {
  url: URL | string;
  method?: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  timeoutMs: number;
  maxBytes: number;
  allowPrivate: PrivatePolicy;
  /** `return` (default): a 3xx is the answer, Location and all. `refuse`: a 3xx is NetError `redirect`. Never followed. */
  redirect?: "return" | "refuse";
};

export type NetResponse = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/** One response header as text (the first, when repeated), or null. */
export function headerOf(res: NetResponse, name: string): string | null {
  const v = res.headers[name.toLowerCase()];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

export const textOf = (res: NetResponse) => res.body.toString("utf8");

/** The body as JSON, or null when it is not JSON. */
export function jsonOf(res: NetResponse): unknown {
  try {
    return JSON.parse(textOf(res));
  } catch {
    return null;
  }
}

const BLOCKED = "EREALMGATE_BLOCKED";

type LookupCb = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** dns.lookup that only ever hands the socket addresses the policy allows. */
function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCb) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "");
      const list = addresses as dns.LookupAddress[];
      const usable = allowPrivate ? list : list.filter((a) => !isPrivateAddress(a.address));
      if (usable.length === 0) {
        const e = new Error(`${hostname} resolves to a private network address; Realmgate does not call it unless the operator allows it.`) as NodeJS.ErrnoException;
        e.code = BLOCKED;
        return callback(e, "");
      }
      if (options.all) return callback(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

/** Throws NetError (`bad_url`, `blocked_address`) for a URL that must not be called under `allowPrivate`. */
export function checkUrl(url: URL, allowPrivate: PrivatePolicy): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new NetError("bad_url", url.host, `Only http and https URLs can be called (got ${url.protocol}).`);
  if (url.username || url.password) throw new NetError("bad_url", url.host, "A URL must not carry a user name or password; configure a credential instead.");
  const host = bareHost(url);
  // An IP literal never reaches the lookup hook: it is judged here.
  if (net.isIP(host) && isPrivateAddress(host) && !allows(allowPrivate, host)) {
    throw new NetError("blocked_address", url.host, `${host} is a private network address; Realmgate does not call it unless the operator allows it.`);
  }
}

const allows = (p: PrivatePolicy, host: string) => (typeof p === "function" ? p(host) : p);

/** Send one request and read its answer whole (at most `maxBytes`). Rejects only with NetError. */
export async function request(req: NetRequest): Promise<NetResponse> {
  const url = typeof req.url === "string" ? safeUrl(req.url) : req.url;
  const host = url.host;
  checkUrl(url, req.allowPrivate);
  const allowPrivate = allows(req.allowPrivate, bareHost(url));
  const mod = url.protocol === "https:" ? https : http;
  const signal = AbortSignal.timeout(req.timeoutMs);
  return new Promise<NetResponse>((resolve, reject) => {
    let done = false;
    const fail = (e: NetError) => {
      if (done) return;
      done = true;
      reject(e);
    };
    const failed = (err: unknown) => {
      if (done) return;
      const code = (err as NodeJS.ErrnoException | null)?.code;
      if (signal.aborted) return fail(new NetError("timeout", host, `${host} did not answer within ${req.timeoutMs} ms.`, { cause: err }));
      if (code === BLOCKED) return fail(new NetError("blocked_address", host, (err as Error).message, { cause: err }));
      if (typeof code === "string" && code.startsWith("HPE_")) return fail(new NetError("bad_response", host, `${host} answered with something that is not HTTP.`, { cause: err, code }));
      fail(new NetError("unreachable", host, `${host} could not be reached${typeof code === "string" ? ` (${code})` : ""}.`, { cause: err, code: code ?? null }));
    };
    const onResponse = (res: http.IncomingMessage) => {
      const status = res.statusCode ?? 502;
      if (req.redirect === "refuse" && status >= 300 && status < 400) {
        fail(new NetError("redirect", host, `${host} answered with a redirect (HTTP ${status}); Realmgate does not follow redirects.`));
        return res.destroy();
      }
      const declared = Number(res.headers["content-length"] ?? "NaN");
      if (Number.isFinite(declared) && declared > req.maxBytes) {
        fail(new NetError("too_large", host, `${host} answered with ${declared} bytes; at most ${req.maxBytes} are accepted.`));
        return res.destroy();
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.byteLength;
        if (size > req.maxBytes) {
          // Failed first: destroying the answer emits its own close, which must not win.
          fail(new NetError("too_large", host, `${host} answered with more than ${req.maxBytes} bytes; at most that is accepted.`));
          return res.destroy();
        }
        chunks.push(c);
      });
      res.on("error", failed);
      res.on("aborted", () => failed(new Error("the answer was cut off")));
      res.on("end", () => {
        if (done) return;
        done = true;
        resolve({ status, headers: res.headers, body: Buffer.concat(chunks) });
      });
      // Closed before its end without an error event (a destroyed socket): still an answer to the caller.
      res.on("close", () => failed(new Error("the connection closed before the answer ended")));
    };
    let r: http.ClientRequest;
    try {
      r = mod.request(url, { method: req.method ?? "GET", headers: req.headers ?? {}, lookup: guardedLookup(allowPrivate) as never, signal, agent: false }, onResponse);
    } catch (err) {
      // Node refuses what it cannot send (a header it judges invalid) by throwing: nothing was sent.
      return fail(new NetError("bad_header", host, `The request to ${host} could not be sent: ${(err as Error).message}`, { cause: err }));
    }
    r.on("error", failed);
    r.end(req.body);
  });
}

function safeUrl(text: string): URL {
  try {
    return new URL(text);
  } catch (cause) {
    throw new NetError("bad_url", "", "The URL to call is not a URL.", { cause });
  }
}
