// The one executor for every imported service: a validated payload + the operation's contract → an HTTP
// request compiled on the server (the model never supplies a URL, method or header), sent with the realm's
// credential, bounded in time and size, and answered compactly. Failures of the service become the usual
// error codes; nothing is retried.
import type { Credential } from "./credentials";
import { egress, failureKind, type EgressResponse } from "./egress";
import type { OperationContract, ParamPlan } from "./operation-types";
import { fieldValueProblem, isHeaderName, specHeaderRefusal } from "./headers";
import { AppError } from "@/lib/errors";
import { NetError } from "@/lib/net";
import type { DeliveryPort } from "@/lib/realms/contract";
import { isObject, type JsonObject } from "./spec";

export const DEFAULT_TIMEOUT_MS = 10_000;
/** Results up to this size come back inline; larger or binary ones as a signed download URL. */
export const INLINE_BYTES = 64 * 1024;

/** `paramHeaders`: the headers taken from the operation's parameters (egress refuses framing ones among them). */
export type CompiledRequest = { url: URL; method: string; headers: Record<string, string>; body?: Buffer; paramHeaders?: string[] };

const CONTROL = /[\u0000-\u001f\u007f]/;

function scalar(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/**
 * A path parameter's value as path text. Values never traverse (`.`/`..` segments, `\`, encoded slashes or
 * dots, control characters) and may hold `/` only when the parameter is the last thing in the path (a file
 * path, a git ref), so a value can never reach another route.
 */
function pathValue(p: ParamPlan, v: unknown, last: boolean): string {
  const text = Array.isArray(v) ? v.map(scalar).join(",") : isObject(v) ? Object.entries(v).map(([k, x]) => `${k},${scalar(x)}`).join(",") : scalar(v);
  const bad = (why: string) =>
    new AppError("invalid_input", `Path parameter ${p.field} ${why}.`, { details: { issues: [{ path: p.field, message: why }] } });
  if (text === "") throw bad("is empty");
  if (CONTROL.test(text)) throw bad("contains control characters");
  if (text.includes("\\")) throw bad("contains a backslash");
  if (/%(2f|5c|2e)/i.test(text)) throw bad("contains an encoded slash or dot");
  const segments = text.split("/");
  if (segments.some((s) => s === "." || s === "..")) throw bad("contains a ../ or ./ segment");
  if (segments.length > 1 && !last) throw bad("contains a slash");
  if (segments.some((s) => s === "")) throw bad("contains an empty segment");
  return segments.map(encodeURIComponent).join("/");
}

function queryPairs(p: ParamPlan, v: unknown): [string, string][] {
  if (v === null || v === undefined) return [];
  if (p.json) return [[p.name, JSON.stringify(v)]];
  if (Array.isArray(v)) {
    const items = v.map(scalar);
    if (p.style === "form" && p.explode) return items.map((i) => [p.name, i]);
    const sep = p.style === "pipeDelimited" ? "|" : p.style === "spaceDelimited" ? " " : ",";
    return [[p.name, items.join(sep)]];
  }
  if (isObject(v)) {
    if (p.style === "deepObject") return Object.entries(v).map(([k, x]) => [`${p.name}[${k}]`, scalar(x)]);
    if (p.explode) return Object.entries(v).map(([k, x]) => [k, scalar(x)]);
    return [[p.name, Object.entries(v).map(([k, x]) => `${k},${scalar(x)}`).join(",")]];
  }
  return [[p.name, scalar(v)]];
}

/**
 * A header parameter's value as a field value (RFC 9110): never CR/LF, control characters or anything above
 * U+00FF. The parameter itself is checked again here, not only at import: a contract stored before that check
 * may still name a framing header (Host, Content-Length…) or something that is not a header name.
 */
function headerValue(p: ParamPlan, v: unknown): string {
  const bad = (why: string) => new AppError("invalid_input", `Header parameter ${p.field} ${why}.`, { details: { issues: [{ path: p.field, message: why }] } });
  if (!isHeaderName(p.name)) throw bad(`cannot be sent: ${JSON.stringify(p.name.slice(0, 80))} is not an HTTP header name`);
  const refusal = specHeaderRefusal(p.name);
  if (refusal) throw bad(`cannot be sent: ${refusal}`);
  const text = Array.isArray(v) ? v.map(scalar).join(",") : scalar(v);
  const problem = fieldValueProblem(text);
  if (problem) throw bad(problem);
  return text;
}

function cookieValue(p: ParamPlan, v: unknown): string {
  const text = Array.isArray(v) ? v.map(scalar).join(",") : scalar(v);
  if (CONTROL.test(text)) throw new AppError("invalid_input", `Cookie ${p.field} contains control characters.`, { details: { issues: [{ path: p.field, message: "control characters" }] } });
  return text;
}

/** Compile the request. `payload` was validated against `contract.input_schema` by the dispatcher. */
export function compileRequest(baseUrl: string, contract: OperationContract, payload: JsonObject, cred: Credential | null): CompiledRequest {
  const lastParam = /\{([^}]+)\}$/.exec(contract.path)?.[1] ?? null;
  let path = contract.path;
  const query: [string, string][] = [];
  const headers: Record<string, string> = { "user-agent": "Realmgate-OpenAPI/1" };
  const cookies: string[] = [];
  const paramHeaders: string[] = [];
  // Own fields only: a parameter the spec names `constructor` or `toString` is not found on Object.prototype.
  const field = (name: string): unknown => (Object.hasOwn(payload, name) ? payload[name] : undefined);
  for (const p of contract.params) {
    const v = field(p.field);
    if (v === undefined || v === null) {
      if (p.in === "path") throw new AppError("invalid_input", `Path parameter ${p.field} is required.`, { details: { issues: [{ path: p.field, message: "is required" }] } });
      continue;
    }
    if (p.in === "path") path = path.split(`{${p.name}}`).join(pathValue(p, v, p.name === lastParam));
    else if (p.in === "query") query.push(...queryPairs(p, v));
    else if (p.in === "header") {
      headers[p.name.toLowerCase()] = headerValue(p, v);
      paramHeaders.push(p.name.toLowerCase());
    } else cookies.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(cookieValue(p, v))}`);
  }
  if (cookies.length) headers.cookie = cookies.join("; ");

  let body: Buffer | undefined;
  const b = contract.body;
  if (b) {
    let value: unknown;
    if (b.mode === "flat") {
      // fromEntries defines own properties, so even a field named `__proto__` is sent as a field.
      const picked: JsonObject = Object.fromEntries(b.fields.filter((f) => field(f) !== undefined).map((f) => [f, field(f)]));
      value = Object.keys(picked).length || b.required ? picked : undefined;
    } else value = field(b.field!);
    if (value !== undefined) {
      if (b.encoding === "unsupported") {
        throw new AppError("invalid_input", `This operation's request body (${b.contentType}) cannot be sent through Realmgate.`, { details: { content_type: b.contentType } });
      }
      if (b.encoding === "json") body = Buffer.from(JSON.stringify(value));
      else if (b.encoding === "form") {
        const form = new URLSearchParams();
        for (const [k, x] of Object.entries(isObject(value) ? value : {})) {
          if (Array.isArray(x)) for (const i of x) form.append(k, scalar(i));
          else if (x !== undefined && x !== null) form.append(k, scalar(x));
        }
        body = Buffer.from(form.toString());
      } else body = Buffer.from(scalar(value));
      headers["content-type"] = b.contentType;
    }
  }

  // The realm's credential wins over any same-named parameter.
  if (cred?.type === "bearer") headers.authorization = `Bearer ${cred.token}`;
  else if (cred?.type === "basic") headers.authorization = `Basic ${Buffer.from(`${cred.username}:${cred.password}`).toString("base64")}`;
  else if (cred?.type === "header") headers[cred.name.toLowerCase()] = cred.value;
  else if (cred?.type === "query") {
    for (let i = query.length - 1; i >= 0; i--) if (query[i]![0] === cred.name) query.splice(i, 1);
    query.push([cred.name, cred.value]);
  }
  headers.accept = contract.accepts.length ? [...contract.accepts, "*/*;q=0.1"].join(", ") : "application/json, */*;q=0.1";

  const base = new URL(baseUrl);
  const url = new URL(`${base.origin}${base.pathname.replace(/\/+$/, "")}${path}`);
  for (const [k, v] of query) url.searchParams.append(k, v);
  return { url, method: contract.method, headers, ...(body ? { body } : {}), paramHeaders };
}

const isTextual = (ct: string) => /^(application\/([\w.+-]*\+)?json|application\/(xml|x-www-form-urlencoded|javascript|yaml)|text\/)/i.test(ct);
const isJson = (ct: string) => /^application\/([\w.+-]*\+)?json/i.test(ct);

function serviceMessage(res: EgressResponse): string | null {
  const ct = String(res.headers["content-type"] ?? "");
  const text = res.body.subarray(0, 4096).toString("utf8");
  if (isJson(ct)) {
    try {
      const j: unknown = JSON.parse(res.body.toString("utf8"));
      if (isObject(j)) {
        const m = j.message ?? j.error_description ?? j.detail ?? j.title ?? (isObject(j.error) ? j.error.message : j.error);
        if (typeof m === "string") return m.slice(0, 300);
      }
    } catch {
      // not JSON after all: fall through to the text
    }
  }
  return isTextual(ct) && text.trim() ? text.trim().slice(0, 300) : null;
}

/** A non-2xx/3xx answer as the matching error, with bounded details (never the whole body). */
export function errorOfStatus(res: EgressResponse, host: string): AppError {
  const status = res.status;
  const message = serviceMessage(res);
  const details = { status, service: host, ...(message ? { service_message: message } : {}) };
  const said = message ? `: ${message}` : ".";
  if (status >= 500) {
    return new AppError("provider_unavailable", `${host} failed (HTTP ${status})${said} Nothing was retried.`, { details, status: status === 503 || status === 504 ? status : 502 });
  }
  if (status === 401 || status === 403) return new AppError("realm_denied", `${host} refused the call (HTTP ${status})${said}`, { details });
  if (status === 404 || status === 410) return new AppError("not_found", `${host} found nothing there (HTTP ${status})${said}`, { details });
  if (status === 409) return new AppError("conflict", `${host} reported a conflict (HTTP 409)${said}`, { details });
  if (status === 429) {
    const retry = String(res.headers["retry-after"] ?? "");
    return new AppError("rate_limited", `${host} is rate-limiting calls (HTTP 429)${said}`, { details, headers: /^\d{1,6}$/.test(retry) ? { "Retry-After": retry } : {} });
  }
  return new AppError("invalid_input", `${host} rejected the request (HTTP ${status})${said}`, { details });
}

/** Send, and answer compactly: small JSON/text inline; large or binary bodies as a signed download URL. */
export async function execute(
  req: CompiledRequest,
  opts: { timeoutMs?: number; maxBytes: number; delivery: DeliveryPort; namespace: string; ownerUserId: string; action: string },
): Promise<JsonObject> {
  const host = req.url.host;
  let res: EgressResponse;
  try {
    res = await egress({ ...req, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxBytes: opts.maxBytes });
  } catch (err) {
    if (!(err instanceof NetError)) throw err;
    const kind = failureKind(err);
    if (kind === "blocked") throw new AppError("realm_denied", err.message, { cause: err, details: { reason: "blocked_address", service: host } });
    if (kind === "bad_header") throw new AppError("invalid_input", err.message, { cause: err, details: { reason: "bad_header", service: host } });
    const status = kind === "timeout" ? 504 : 502;
    throw new AppError("provider_unavailable", `${err.message} Nothing was retried.`, { cause: err, status, details: { reason: kind === "too_large" ? "response_too_large" : kind, service: host } });
  }
  if (res.status >= 400) throw errorOfStatus(res, host);
  const ct = String(res.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (res.status >= 300) {
    const location = typeof res.headers.location === "string" ? res.headers.location : null;
    return { status: res.status, redirect: location, note: "Realmgate does not follow redirects; the location is where the service points." };
  }
  if (res.body.byteLength === 0) return { status: res.status, body: null };
  if (isTextual(ct) && res.body.byteLength <= INLINE_BYTES) {
    const text = res.body.toString("utf8");
    if (isJson(ct)) {
      try {
        return { status: res.status, content_type: ct, body: JSON.parse(text) as unknown };
      } catch {
        // a service that labels text as JSON: hand back the text
      }
    }
    return { status: res.status, content_type: ct || "text/plain", body: text };
  }
  const ext = isJson(ct) ? "json" : ct.startsWith("text/") ? "txt" : "bin";
  const name = `${opts.action.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "result"}.${ext}`;
  const stored = await opts.delivery.storeFile({ namespace: opts.namespace, name, contentType: ct || "application/octet-stream", bytes: new Uint8Array(res.body), ownerUserId: opts.ownerUserId });
  return { status: res.status, content_type: ct || "application/octet-stream", bytes: stored.size, sha256: stored.sha256, file: await opts.delivery.fileUrl(stored.fileId, { name }) };
}
