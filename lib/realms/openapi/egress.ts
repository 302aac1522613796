// Outbound HTTP to imported services (and to spec URLs): bounded in time and size, redirects never followed,
// and private-network addresses refused at connect time (after DNS, so a name that resolves to 10.0.0.5 or
// 169.254.169.254 cannot be used to reach inside the network). Hosts the operator lists in
// REALMGATE_OPENAPI_PRIVATE_HOSTS (e.g. an on-premises service, or 127.0.0.1 in tests) are allowed.
// Headers are checked before anything is sent: names are tokens, values field values, and framing or
// hop-by-hop headers (Host, Content-Length, Transfer-Encoding, Connection, Upgrade, TE, Trailer, Keep-Alive,
// Proxy-*) are never sent as given — Node derives Host and the framing from the URL and the body — nor is a
// header from an operation's parameters that Realmgate sets itself (Accept, Content-Type, Authorization).
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { fieldValueProblem, isFramingHeader, isHeaderName, specHeaderRefusal } from "./headers";

/** `paramHeaders`: the (lower-case) names of headers that came from an operation's parameters. */
export type EgressRequest = { url: URL; method: string; headers: Record<string, string>; body?: Buffer; timeoutMs: number; maxBytes: number; paramHeaders?: string[] };
export type EgressResponse = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

export class EgressError extends Error {
  constructor(
    readonly kind: "timeout" | "network" | "too_large" | "blocked" | "bad_header",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "EgressError";
  }
}

const blocked = new net.BlockList();
for (const [addr, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.0.0.0", 24],
  ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(addr, prefix, "ipv4");
for (const [addr, prefix] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8], ["64:ff9b::", 96]] as const) {
  blocked.addSubnet(addr, prefix, "ipv6");
}

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    // IPv4-mapped addresses (`::ffff:10.0.0.1`, `::ffff:a00:1`) are judged as the IPv4 address they carry.
    const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (dotted) return blocked.check(dotted[1]!, "ipv4");
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
    if (hex) {
      const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
      return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, "ipv4");
    }
    return blocked.check(address, "ipv6");
  }
  return true;
}

/** Operator-listed hosts that may be private (hostnames or IPs, comma-separated). */
export function allowedPrivateHosts(): Set<string> {
  return new Set(
    (process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
}

const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").toLowerCase();

/** A URL we would call: http(s), no credentials in it, and a public host unless the operator allowed it. */
export function checkTarget(url: URL): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new EgressError("blocked", `Only http and https URLs can be called (got ${url.protocol}).`);
  if (url.username || url.password) throw new EgressError("blocked", "A URL must not carry a user name or password; configure a credential instead.");
  const host = bareHost(url);
  if (net.isIP(host) && isPrivateAddress(host) && !allowedPrivateHosts().has(host)) {
    throw new EgressError("blocked", `${host} is a private network address; Realmgate does not call it unless the operator allows it.`);
  }
}

type LookupCb = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCb) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "");
      const list = addresses as dns.LookupAddress[];
      const usable = allowPrivate ? list : list.filter((a) => !isPrivateAddress(a.address));
      if (usable.length === 0) {
        const e = new Error(`${hostname} resolves to a private network address; Realmgate does not call it unless the operator allows it.`) as NodeJS.ErrnoException;
        e.code = "EREALMGATE_BLOCKED";
        return callback(e, "");
      }
      if (options.all) return callback(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

/** Throws `bad_header` for a header that must not, or cannot, be sent. */
export function checkHeaders(headers: Record<string, string>, paramHeaders: readonly string[] = []): void {
  const fromParams = new Set(paramHeaders.map((h) => h.toLowerCase()));
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderName(name)) throw new EgressError("bad_header", `${JSON.stringify(name.slice(0, 80))} is not an HTTP header name; nothing was sent.`);
    if (isFramingHeader(name)) throw new EgressError("bad_header", `The ${name} header frames or routes the request and is never sent as given; nothing was sent.`);
    if (fromParams.has(name.toLowerCase()) && specHeaderRefusal(name)) throw new EgressError("bad_header", `The ${name} header is set by Realmgate, not by an operation's parameter; nothing was sent.`);
    const problem = typeof value === "string" ? fieldValueProblem(value) : "is not text";
    if (problem) throw new EgressError("bad_header", `The ${name} header ${problem}; nothing was sent.`);
  }
}

export function egress(req: EgressRequest): Promise<EgressResponse> {
  checkTarget(req.url);
  checkHeaders(req.headers, req.paramHeaders);
  const allowPrivate = allowedPrivateHosts().has(bareHost(req.url));
  const mod = req.url.protocol === "https:" ? https : http;
  const signal = AbortSignal.timeout(req.timeoutMs);
  return new Promise<EgressResponse>((resolve, reject) => {
    let settled = false;
    const fail = (e: EgressError) => {
      if (settled) return;
      settled = true;
      reject(e);
    };
    const classify = (err: unknown) => {
      if (signal.aborted) return fail(new EgressError("timeout", `${req.url.host} did not answer within ${req.timeoutMs} ms.`, { cause: err }));
      if ((err as NodeJS.ErrnoException)?.code === "EREALMGATE_BLOCKED") return fail(new EgressError("blocked", (err as Error).message, { cause: err }));
      fail(new EgressError("network", `${req.url.host} could not be reached.`, { cause: err }));
    };
    const onResponse = (res: http.IncomingMessage) => {
      const declared = Number(res.headers["content-length"] ?? "NaN");
      if (Number.isFinite(declared) && declared > req.maxBytes) {
        res.destroy();
        return fail(new EgressError("too_large", `${req.url.host} answered with ${declared} bytes; at most ${req.maxBytes} are relayed.`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.byteLength;
        if (size > req.maxBytes) {
          res.destroy();
          return fail(new EgressError("too_large", `${req.url.host} answered with more than ${req.maxBytes} bytes; at most that is relayed.`));
        }
        chunks.push(c);
      });
      res.on("error", classify);
      res.on("end", () => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) });
      });
    };
    let r: http.ClientRequest;
    try {
      r = mod.request(req.url, { method: req.method, headers: req.headers, lookup: guardedLookup(allowPrivate) as never, signal, agent: false }, onResponse);
    } catch (err) {
      // Node refuses what it cannot send (a header it judges invalid) by throwing: an answer, never a 500.
      return fail(new EgressError("bad_header", `The request could not be sent: ${(err as Error).message}`, { cause: err }));
    }
    r.on("error", classify);
    r.end(req.body);
  });
}
