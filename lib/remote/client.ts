// Calls to a remote provider (docs/provider-protocol.md): one signed POST per adapter operation through lib/net —
// bounded in time (REALMGATE_PROVIDER_TIMEOUT_MS) and size, redirects refused, private addresses only for hosts
// in REALMGATE_REMOTE_PRIVATE_HOSTS — behind the breaker. The provider's answer is checked here: its error codes
// map onto Realmgate's (anything else, or a malformed answer, is provider_unavailable); nothing is retried.
import { env } from "@/lib/env";
import { AppError, type ErrorCode } from "@/lib/errors";
import { checkUrl, headerOf, listedHostsPolicy, NetError, request, type NetResponse } from "@/lib/net";
import { signedHeaders } from "@/provider-kit/protocol";
import type { AuthContext } from "@/provider-kit/types";
import { admit, record, type Transition } from "./breaker";
import { takeSlot } from "./bulkhead";

export const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Operator-listed hosts (names or IPs, comma-separated) that a provider may be on though they are private. */
export const remotePrivatePolicy = () => listedHostsPolicy(process.env.REALMGATE_REMOTE_PRIVATE_HOSTS);

/**
 * A provider's base URL as registered: http(s) without credentials, query or fragment; HTTPS, or plain HTTP only to
 * a host the operator listed (REALMGATE_REMOTE_PRIVATE_HOSTS). Returns it without a trailing slash.
 */
export function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("invalid_input", "The provider's URL is not a URL.", { details: { field: "url" } });
  }
  const policy = remotePrivatePolicy();
  if (url.search || url.hash) throw new AppError("invalid_input", "The provider's URL must not carry a query or a fragment.", { details: { field: "url" } });
  if (url.protocol === "http:" && !policy(url.hostname.replace(/^\[|\]$/g, ""))) {
    throw new AppError("invalid_input", "A provider is reached over HTTPS; plain HTTP only to hosts the operator lists in REALMGATE_REMOTE_PRIVATE_HOSTS.", { details: { field: "url", host: url.hostname } });
  }
  try {
    checkUrl(url, policy);
  } catch (err) {
    if (err instanceof NetError) throw new AppError("invalid_input", `The provider's URL is refused: ${err.message}`, { details: { field: "url", reason: err.reason } });
    throw err;
  }
  return url.href.replace(/\/+$/, "");
}

export type ProviderTarget = { id: string; namespace: string; baseUrl: string; secret: string };
export type CallOutcome = { manifestVersion: string | null; transition: Transition };
export type JsonAnswer = CallOutcome & { result: unknown };
export type FileAnswer = CallOutcome & { file: { contentType: string; filename: string; bytes: Uint8Array } };

/** Provider error codes Realmgate passes on (the protocol's table); anything else is the provider failing. */
const PASSED_ON = new Set<ErrorCode>(["invalid_input", "invalid_ref", "not_found", "conflict", "ambiguous_selector", "realm_denied", "payload_too_large", "rate_limited", "provider_unavailable"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A failure of the provider itself (not its answer to this input): counts against the breaker. */
class ProviderFailure extends AppError {}

function unavailable(target: ProviderTarget, reason: string, message: string, status = 502, extra: Record<string, unknown> = {}): ProviderFailure {
  return new ProviderFailure("provider_unavailable", message, { status, details: { provider: target.namespace, reason, retry: "not retried for you", ...extra } });
}

/** Fetch `<base>/manifest` (unsigned): the document, parsed, or provider_unavailable. */
export async function fetchManifestDocument(baseUrl: string, maxBytes: number): Promise<unknown> {
  const target = { id: "", namespace: "", baseUrl, secret: "" };
  let res: NetResponse;
  try {
    res = await request({ url: `${baseUrl}/manifest`, method: "GET", headers: { accept: "application/json" }, timeoutMs: env().REALMGATE_PROVIDER_TIMEOUT_MS, maxBytes, allowPrivate: remotePrivatePolicy(), redirect: "refuse" });
  } catch (err) {
    throw netFailure(target, err, "the manifest");
  }
  if (res.status !== 200) throw unavailable(target, "bad_answer", `The provider answered HTTP ${res.status} for its manifest.`, 502, { provider_status: res.status });
  try {
    return JSON.parse(res.body.toString("utf8"));
  } catch {
    throw unavailable(target, "bad_answer", "The provider's manifest is not JSON.");
  }
}

function netFailure(target: ProviderTarget, err: unknown, what: string): AppError {
  if (!(err instanceof NetError)) return unavailable(target, "unreachable", `The provider could not be reached for ${what}.`);
  switch (err.reason) {
    case "timeout":
      return unavailable(target, "timeout", `The provider did not answer ${what} within ${env().REALMGATE_PROVIDER_TIMEOUT_MS} ms.`, 504, { timeout_ms: env().REALMGATE_PROVIDER_TIMEOUT_MS });
    case "too_large":
      return unavailable(target, "too_large", `The provider's answer for ${what} was larger than Realmgate accepts.`);
    case "redirect":
      return unavailable(target, "redirect", `The provider answered ${what} with a redirect; Realmgate never follows one.`);
    case "blocked_address":
    case "bad_url":
      return unavailable(target, "blocked", `The provider's address is refused: ${err.message}`);
    default:
      return unavailable(target, "unreachable", `The provider could not be reached for ${what}.`);
  }
}

/**
 * What of a provider's error details an agent sees: the protocol's own keys, checked, and the rest under
 * `provider_details` (bounded) — so a provider can never pass its words off as Realmgate's (a consent link, an
 * approval id, a wall of Realmgate's).
 */
function providerDetails(target: ProviderTarget, raw: unknown): Record<string, unknown> {
  const d = isObject(raw) ? raw : {};
  const out: Record<string, unknown> = { provider: target.namespace };
  const text = (v: unknown, max: number) => (typeof v === "string" && v.trim() ? v.slice(0, max) : undefined);
  const field = text(d.field, 200);
  if (field) out.field = field;
  const who = text(d.who_can_open, 300);
  if (who) out.who_can_open = who;
  const claim = text(d.claim, 100);
  if (claim) out.claim = claim;
  const url = text(d.url, 2000);
  if (url && /^https?:\/\//.test(url)) out.provider_url = url;
  const retry = Number(d.retry_after_seconds);
  if (Number.isInteger(retry) && retry > 0 && retry <= 3600) out.retry_after_seconds = retry;
  const rest = Object.fromEntries(Object.entries(d).filter(([k]) => !["field", "who_can_open", "claim", "url", "retry_after_seconds"].includes(k)));
  const restText = JSON.stringify(rest);
  if (restText !== "{}" && restText.length <= 4096) out.provider_details = rest;
  return out;
}

/** The provider's error as Realmgate's (a known code), or null (then it is the provider failing). */
function passedOn(target: ProviderTarget, status: number, error: unknown): AppError | null {
  if (!isObject(error) || typeof error.code !== "string" || !PASSED_ON.has(error.code as ErrorCode)) return null;
  const code = error.code as ErrorCode;
  // Attributed: the words are the provider's, never Realmgate's own.
  const said = typeof error.message === "string" && error.message.trim() ? error.message.replace(/\s+/g, " ").trim().slice(0, 500) : `it refused (${code})`;
  const message = `The ${target.namespace} provider says: ${said}`;
  const details = providerDetails(target, error.details);
  if (code === "realm_denied") details.wall = "provider";
  if (code === "provider_unavailable") return new ProviderFailure(code, message, { status: status === 503 || status === 504 ? status : 502, details: { ...details, reason: "provider_said" } });
  const headers: Record<string, string> = {};
  if (code === "rate_limited") {
    const s = Number(details.retry_after_seconds);
    if (Number.isInteger(s) && s > 0 && s <= 3600) headers["Retry-After"] = String(s);
  }
  return new AppError(code, message, { details, headers });
}

async function post(target: ProviderTarget, op: string, context: AuthContext, input: unknown, maxBytes: number): Promise<NetResponse> {
  const admission = admit(target.id);
  if (!admission.ok) {
    throw new AppError("provider_unavailable", `The ${target.namespace} provider failed repeatedly; Realmgate stops calling it for a moment.`, {
      status: 503,
      headers: { "Retry-After": String(admission.retryAfterSeconds) },
      details: { provider: target.namespace, reason: "circuit_open", retry_after_seconds: admission.retryAfterSeconds },
    });
  }
  const url = new URL(`${target.baseUrl}/ops/${op}`);
  const body = JSON.stringify({ context, input });
  const headers = signedHeaders({ secret: target.secret, registrationId: target.id, method: "POST", path: url.pathname, body });
  return request({ url, method: "POST", headers: { ...headers, accept: "application/json" }, body, timeoutMs: env().REALMGATE_PROVIDER_TIMEOUT_MS, maxBytes, allowPrivate: remotePrivatePolicy(), redirect: "refuse" });
}

/** The breaker transition a call caused, carried on the error it threw (the caller audits it either way). */
export const transitionOf = (err: unknown): Transition => ((err as { transition?: Transition } | null)?.transition ?? null);
/** The manifest version a provider's error answer named. */
export const versionOfError = (err: unknown): string | null => ((err as { manifestVersion?: string | null } | null)?.manifestVersion ?? null);

const parseJson = (body: Buffer): unknown => {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
};
const versionOf = (v: unknown): string | null => (typeof v === "string" && v.length <= 64 ? v : null);

/** One signed call: the result and the manifest version the answer named; the provider's error as Realmgate's. */
export async function callProvider(target: ProviderTarget, op: string, context: AuthContext, input: unknown): Promise<JsonAnswer> {
  return run(target, op, context, input, MAX_ANSWER_BYTES, (res) => {
    const parsed = parseJson(res.body);
    if (!isObject(parsed)) throw unavailable(target, "bad_answer", `The provider's answer to ${op} is not a JSON object.`);
    const version = versionOf(parsed.manifest_version);
    if (res.status === 200 && "result" in parsed && !("error" in parsed)) return { manifestVersion: version, result: parsed.result };
    if (res.status >= 400 && "error" in parsed) {
      const err = passedOn(target, res.status, parsed.error);
      if (err) throw Object.assign(err, { manifestVersion: version });
      if (isObject(parsed.error) && parsed.error.code === "bad_signature") {
        throw unavailable(target, "signature_refused", `The ${target.namespace} provider refused Realmgate's signature: the secret it was configured with is not this registration's. A workspace owner registers it again (Providers page).`, 502, { provider_status: res.status });
      }
    }
    throw unavailable(target, "bad_answer", `The provider's answer to ${op} (HTTP ${res.status}) is not in the protocol's shape or vocabulary.`, 502, { provider_status: res.status });
  });
}

/** `stream_file`: the bytes themselves (bounded), with their type and name. */
export async function streamFromProvider(target: ProviderTarget, context: AuthContext, input: { ref: string }): Promise<FileAnswer> {
  return run(target, "stream_file", context, input, MAX_FILE_BYTES, (res) => {
    const version = versionOf(headerOf(res, "realmgate-manifest-version"));
    if (res.status === 200) {
      const type = headerOf(res, "content-type") ?? "application/octet-stream";
      let filename = "file";
      try {
        filename = decodeURIComponent(headerOf(res, "realmgate-filename") ?? "file").replace(/[\r\n"\\/]/g, "_").slice(0, 200) || "file";
      } catch {
        // A malformed name is not worth failing the download.
      }
      return { manifestVersion: version, file: { contentType: type, filename, bytes: new Uint8Array(res.body) } };
    }
    const parsed = parseJson(res.body);
    const err = isObject(parsed) ? passedOn(target, res.status, parsed.error) : null;
    if (err) throw Object.assign(err, { manifestVersion: versionOf(parsed && isObject(parsed) ? parsed.manifest_version : null) });
    throw unavailable(target, "bad_answer", `The provider's answer to stream_file (HTTP ${res.status}) is not in the protocol's shape.`);
  });
}

async function run<T extends Omit<CallOutcome, "transition">>(target: ProviderTarget, op: string, context: AuthContext, input: unknown, maxBytes: number, read: (res: NetResponse) => T): Promise<T & CallOutcome> {
  // The node's bound on calls in flight to this provider comes first: a refusal there sends nothing and leaves
  // the breaker (and its half-open probe) alone.
  const release = takeSlot(target);
  let res: NetResponse;
  try {
    try {
      res = await post(target, op, context, input, maxBytes);
    } catch (err) {
      if (err instanceof AppError) throw err; // the breaker is open: nothing was sent
      throw Object.assign(netFailure(target, err, op), { transition: record(target.id, false) });
    }
  } finally {
    release();
  }
  try {
    const out = read(res);
    return { ...out, transition: record(target.id, true) };
  } catch (err) {
    // The provider answering "not found" is the provider working; only its own failures count against it.
    throw Object.assign(err as object, { transition: record(target.id, !(err instanceof ProviderFailure)) });
  }
}
