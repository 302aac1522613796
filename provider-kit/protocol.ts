// The wire constants and the request signature of the Realmgate provider protocol (docs/provider-protocol.md).
// Pure and side-effect free: Realmgate's own server signs its calls with this file, and a provider verifies
// them with it (verify.ts), so both sides compute the exact same text. Imports node built-ins only.
import { Buffer } from "node:buffer";
import { createHash, createHmac } from "node:crypto";

/** The protocol a manifest document declares. */
export const PROTOCOL = "realmgate.provider/1";

/** The adapter operations a provider may answer at `POST <base>/ops/<operation>`, in the doc's order. */
export const OPERATIONS = [
  "about",
  "list",
  "search",
  "get",
  "action",
  "upsert",
  "delete",
  "host_file",
  "resolve_selector",
  "describe_refs",
  "lineage",
  "stream_file",
  "receive_upload",
] as const;
export type ProviderOperation = (typeof OPERATIONS)[number];

export const isProviderOperation = (s: string): s is ProviderOperation => (OPERATIONS as readonly string[]).includes(s);

/** Header names, lower-case (Node's `IncomingMessage.headers` and `fetch`'s `Headers` both compare them so). */
export const HEADER_REGISTRATION = "realmgate-registration";
export const HEADER_TIMESTAMP = "realmgate-timestamp";
export const HEADER_SIGNATURE = "realmgate-signature";
export const HEADER_FILENAME = "realmgate-filename";
export const HEADER_MANIFEST_VERSION = "realmgate-manifest-version";

/** How far a call's timestamp may be from the provider's clock. */
export const MAX_SKEW_SECONDS = 300;
/** The longest a context may live (`expires_at − issued_at`). */
export const MAX_CONTEXT_SECONDS = 300;

/** The signature scheme's version: the prefix of the signature header and the first line of the signed text. */
export const SIGNATURE_VERSION = "v1";

const bytesOf = (body: Uint8Array | string): Uint8Array => (typeof body === "string" ? Buffer.from(body, "utf8") : body);

/** Hex SHA-256 of the body bytes (a string body is its UTF-8 bytes). */
export function bodyDigest(body: Uint8Array | string): string {
  return createHash("sha256").update(bytesOf(body)).digest("hex");
}

/**
 * The exact text that is signed: `realmgate-v1\n<METHOD>\n<path>\n<timestamp>\n<hex sha256 of body>`. The method is
 * upper-cased; the path is the request URL's path exactly as sent (no host, no query is ever sent by Realmgate).
 */
export function signatureBase(method: string, path: string, timestamp: number, body: Uint8Array | string): string {
  return `realmgate-${SIGNATURE_VERSION}\n${method.toUpperCase()}\n${path}\n${timestamp}\n${bodyDigest(body)}`;
}

/** `v1=<hex HMAC-SHA256>` of the signature base, keyed with the registration's secret. */
export function sign(secret: string, method: string, path: string, timestamp: number, body: Uint8Array | string): string {
  const mac = createHmac("sha256", secret).update(signatureBase(method, path, timestamp, body), "utf8").digest("hex");
  return `${SIGNATURE_VERSION}=${mac}`;
}

/** Unix seconds of a date (the timestamp header's value). */
export const unixSeconds = (d: Date): number => Math.floor(d.getTime() / 1000);

/** The headers of one signed call: content type, registration, timestamp (now, unless given) and signature. */
export function signedHeaders(opts: { secret: string; registrationId: string; method: string; path: string; body: Uint8Array | string; now?: Date }): Record<string, string> {
  const timestamp = unixSeconds(opts.now ?? new Date());
  return {
    "content-type": "application/json",
    [HEADER_REGISTRATION]: opts.registrationId,
    [HEADER_TIMESTAMP]: String(timestamp),
    [HEADER_SIGNATURE]: sign(opts.secret, opts.method, opts.path, timestamp, opts.body),
  };
}
