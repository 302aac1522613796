// Outbound HTTP to imported services (and to spec URLs), through lib/net: bounded in time and size,
// redirects never followed, and private-network addresses refused at connect time. Hosts the operator lists
// in REALMGATE_OPENAPI_PRIVATE_HOSTS (e.g. an on-premises service, or 127.0.0.1 in tests) are allowed.
// Headers are checked before anything is sent: names are tokens, values field values, and framing or
// hop-by-hop headers (Host, Content-Length, Transfer-Encoding, Connection, Upgrade, TE, Trailer, Keep-Alive,
// Proxy-*) are never sent as given — Node derives Host and the framing from the URL and the body — nor is a
// header from an operation's parameters that Realmgate sets itself (Accept, Content-Type, Authorization).
import { checkUrl, listedHostsPolicy, NetError, request, type NetResponse } from "@/lib/net";
import { fieldValueProblem, isFramingHeader, isHeaderName, specHeaderRefusal } from "./headers";

/** `paramHeaders`: the (lower-case) names of headers that came from an operation's parameters. */
export type EgressRequest = { url: URL; method: string; headers: Record<string, string>; body?: Buffer; timeoutMs: number; maxBytes: number; paramHeaders?: string[] };
export type EgressResponse = NetResponse;

/** The private-host policy of imported services: only the hosts the operator listed (REALMGATE_OPENAPI_PRIVATE_HOSTS). */
const openapiPolicy = () => listedHostsPolicy(process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS);

/** A URL we would call: http(s), no credentials in it, and a public host unless the operator allowed it. */
export function checkTarget(url: URL): void {
  checkUrl(url, openapiPolicy());
}

/** Throws NetError `bad_header` for a header that must not, or cannot, be sent. */
export function checkHeaders(headers: Record<string, string>, paramHeaders: readonly string[] = []): void {
  const fromParams = new Set(paramHeaders.map((h) => h.toLowerCase()));
  const bad = (message: string) => new NetError("bad_header", "", message);
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderName(name)) throw bad(`${JSON.stringify(name.slice(0, 80))} is not an HTTP header name; nothing was sent.`);
    if (isFramingHeader(name)) throw bad(`The ${name} header frames or routes the request and is never sent as given; nothing was sent.`);
    if (fromParams.has(name.toLowerCase()) && specHeaderRefusal(name)) throw bad(`The ${name} header is set by Realmgate, not by an operation's parameter; nothing was sent.`);
    const problem = typeof value === "string" ? fieldValueProblem(value) : "is not text";
    if (problem) throw bad(`The ${name} header ${problem}; nothing was sent.`);
  }
}

/** Checks the target and headers synchronously (throwing NetError), then sends. */
export function egress(req: EgressRequest): Promise<EgressResponse> {
  checkTarget(req.url);
  checkHeaders(req.headers, req.paramHeaders);
  return request({ url: req.url, method: req.method, headers: req.headers, body: req.body, timeoutMs: req.timeoutMs, maxBytes: req.maxBytes, allowPrivate: openapiPolicy(), redirect: "return" });
}

/** How an imported service's failure is named in answers (`details.reason`), as it always was. */
export function failureKind(err: NetError): "blocked" | "bad_header" | "timeout" | "too_large" | "network" {
  if (err.reason === "blocked_address" || err.reason === "bad_url") return "blocked";
  if (err.reason === "bad_header" || err.reason === "timeout" || err.reason === "too_large") return err.reason;
  return "network";
}
