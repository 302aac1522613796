// Verifying one signed call (docs/provider-protocol.md, "Signed calls"): the headers, the HMAC signature over the
// exact bytes received, the authorization context's shape and lifetime, the registration and tenant, and the
// request id's first use. Every refusal is ProviderError("bad_signature") with a message saying which check
// failed (never the secret or the expected signature). The request id is checked last, so a forged or stale
// call never burns the id of the real call it copies.
import { Buffer } from "node:buffer";
import { timingSafeEqual } from "node:crypto";
import { TextDecoder } from "node:util";
import { ProviderError } from "./errors";
import { HEADER_REGISTRATION, HEADER_SIGNATURE, HEADER_TIMESTAMP, MAX_CONTEXT_SECONDS, MAX_SKEW_SECONDS, SIGNATURE_VERSION, sign } from "./protocol";
import type { ReplayCache } from "./replay";
import type { AuthContext, ResourceScope } from "./types";

export type VerifyOptions = {
  secret: string;
  registrationId: string;
  /** The tenant the provider registered with; checked when given. */
  tenantId?: string;
  method: string;
  /** The request URL's path exactly as received (no query). */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body bytes exactly as received. */
  body: Uint8Array;
  replay: ReplayCache;
  now?: Date;
};

const refuse = (message: string): never => {
  throw new ProviderError("bad_signature", message);
};

/** One header's single value (a header sent twice is refused: which one was signed is ambiguous). */
function header(headers: VerifyOptions["headers"], name: string): string {
  const v = headers[name] ?? headers[Object.keys(headers).find((k) => k.toLowerCase() === name) ?? ""];
  if (Array.isArray(v)) {
    if (v.length !== 1) refuse(`header ${name} must be sent once`);
    return header({ [name]: v[0] }, name);
  }
  if (v === undefined || v === "") return refuse(`missing header ${name}`);
  return v;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds of an ISO 8601 date-time (with its offset), or null. */
function isoMillis(v: unknown): number | null {
  if (typeof v !== "string" || !ISO_DATE.test(v)) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const isTextArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

function isScope(v: unknown): v is ResourceScope | null {
  if (v === null) return true;
  if (!isRecord(v)) return false;
  const keys = Object.keys(v);
  if (keys.length !== 1) return false;
  if (keys[0] === "refs") return isTextArray(v.refs);
  if (keys[0] === "account_id") return isText(v.account_id);
  return false;
}

/** The context's shape: every field of the doc, of its type. The first problem found, or null. */
export function contextProblem(c: unknown): string | null {
  if (!isRecord(c)) return "context must be an object";
  for (const k of ["tenant_id", "registration_id", "operation", "request_id", "manifest_version"] as const) if (!isText(c[k])) return `context.${k} must be a non-empty string`;
  if (!isRecord(c.actor) || !isText(c.actor.id) || !isText(c.actor.kind) || typeof c.actor.name !== "string") return "context.actor must be { id, kind, name }";
  if (!isRecord(c.grantor) || !isText(c.grantor.id) || typeof c.grantor.email !== "string") return "context.grantor must be { id, email }";
  if (!("scope" in c) || !isScope(c.scope)) return "context.scope must be null, { refs: [...] } or { account_id }";
  if (isoMillis(c.issued_at) === null) return "context.issued_at must be an ISO 8601 date-time";
  if (isoMillis(c.expires_at) === null) return "context.expires_at must be an ISO 8601 date-time";
  return null;
}

/** Verifies a call; its context and (still undecoded) input, or ProviderError("bad_signature"). */
export function verifyCall(opts: VerifyOptions): { context: AuthContext; input: unknown } {
  const now = opts.now ?? new Date();
  const nowMs = now.getTime();

  const registration = header(opts.headers, HEADER_REGISTRATION);
  const timestampText = header(opts.headers, HEADER_TIMESTAMP);
  const signature = header(opts.headers, HEADER_SIGNATURE);

  if (registration !== opts.registrationId) refuse("the call names another registration");

  if (!/^(0|[1-9]\d{0,14})$/.test(timestampText)) refuse("the timestamp must be an integer count of unix seconds");
  const timestamp = Number(timestampText);
  if (Math.abs(timestamp * 1000 - nowMs) > MAX_SKEW_SECONDS * 1000) refuse(`the timestamp is more than ${MAX_SKEW_SECONDS} s from the provider's clock`);

  const prefix = `${SIGNATURE_VERSION}=`;
  if (!signature.startsWith(prefix) || !/^[0-9a-f]{64}$/i.test(signature.slice(prefix.length))) refuse(`the signature must be ${prefix}<64 hex digits>`);
  const given = Buffer.from(signature.slice(prefix.length), "hex");
  const expected = Buffer.from(sign(opts.secret, opts.method, opts.path, timestamp, opts.body).slice(prefix.length), "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) refuse("the signature does not match");

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(opts.body));
  } catch {
    return refuse("the body is not JSON");
  }
  if (!isRecord(parsed) || !("context" in parsed) || !isRecord(parsed.input)) return refuse("the body must be { context, input } with input an object");
  const problem = contextProblem(parsed.context);
  if (problem) return refuse(problem);
  const context = parsed.context as AuthContext;

  if (context.registration_id !== opts.registrationId) refuse("the context names another registration");
  if (opts.tenantId !== undefined && context.tenant_id !== opts.tenantId) refuse("the context names another tenant");

  const issued = isoMillis(context.issued_at) as number;
  const expires = isoMillis(context.expires_at) as number;
  if (issued - nowMs > MAX_SKEW_SECONDS * 1000) refuse("the context was issued in the future");
  if (expires <= nowMs) refuse("the context has expired");
  if (expires <= issued || expires - issued > MAX_CONTEXT_SECONDS * 1000) refuse(`the context must expire within ${MAX_CONTEXT_SECONDS} s of being issued`);

  // Last: only a call that passed every other check may use up its request id.
  if (!opts.replay.use(context.request_id, new Date(expires), now)) refuse("the request id was seen before (or the replay cache is full)");

  return { context, input: parsed.input };
}
