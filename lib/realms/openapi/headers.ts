// HTTP header rules for imported services (RFC 9110). A header name is a token; a header value is a field
// value (visible ASCII, space, tab, and obs-text 0x80–0xFF — nothing else, so no CR/LF and nothing above
// U+00FF). The headers that frame or route a request — Host, Content-Length, Transfer-Encoding and the
// hop-by-hop ones — are never taken from a document: Node sets Host and the framing from the URL and the body,
// and an agent-chosen value would re-route a call that carries the realm's credential, or make a GET announce a
// body it never sends. Accept, Content-Type and Authorization are Realmgate's too (OpenAPI says such header
// parameters are ignored): they come from the contract and the credential.

/** RFC 9110 §5.6.2 `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const MAX_HEADER_NAME = 256;
export const isHeaderName = (name: string): boolean => name.length <= MAX_HEADER_NAME && TOKEN.test(name);

/** Framing and hop-by-hop headers (RFC 9110 §7.6.1, RFC 9112), plus every `Proxy-*`. */
const FRAMING = new Set(["host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer", "keep-alive"]);
/** Set by Realmgate from the contract (Accept, Content-Type) and the realm's credential (Authorization). */
const RESERVED = new Set(["accept", "content-type", "authorization"]);

export const isFramingHeader = (name: string): boolean => {
  const n = name.toLowerCase();
  return FRAMING.has(n) || n.startsWith("proxy-");
};

/** Why a document's header parameter is never sent, or null when it may be. */
export function specHeaderRefusal(name: string): string | null {
  if (isFramingHeader(name)) return "it frames or routes the request, so only Realmgate sets it";
  if (RESERVED.has(name.toLowerCase())) return "Realmgate sets it from the contract and the realm's credential (OpenAPI ignores such header parameters)";
  return null;
}

const NOT_FIELD_VALUE = /[^\t\x20-\x7e\x80-\xff]/u;
/** Null when `value` is a valid field value; otherwise what is wrong with it, for the error message. */
export function fieldValueProblem(value: string): string | null {
  const bad = NOT_FIELD_VALUE.exec(value);
  if (!bad) return null;
  const code = bad[0].codePointAt(0)!;
  if (code === 0x0a || code === 0x0d) return "contains a line break";
  if (code < 0x20 || code === 0x7f) return "contains control characters";
  return `contains ${JSON.stringify(bad[0])} (U+${code.toString(16).toUpperCase().padStart(4, "0")}); a header carries only ASCII and Latin-1 characters`;
}
