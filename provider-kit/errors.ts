// The errors a provider answers (docs/provider-protocol.md, "Error codes a provider may answer"): ProviderError
// carries the code, its HTTP status and the details, and the helpers below build each one with the details the
// protocol asks for. A handler throws them; the server (server.ts) answers them. No imports beyond ./types.
import type { KitErrorCode, LeanItem } from "./types";

/** The HTTP status of each code. `bad_signature` is the kit's own refusal of a call that fails verification. */
export const STATUS_OF_CODE: Readonly<Record<KitErrorCode, number>> = {
  invalid_input: 400,
  invalid_ref: 400,
  not_found: 404,
  conflict: 409,
  ambiguous_selector: 409,
  realm_denied: 403,
  payload_too_large: 413,
  rate_limited: 429,
  provider_unavailable: 503,
  bad_signature: 401,
};

export class ProviderError extends Error {
  readonly code: KitErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;

  constructor(code: KitErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "ProviderError";
    // A code outside the protocol's table (JavaScript callers, casts) is the provider failing: 503, never a crash.
    const known = Object.hasOwn(STATUS_OF_CODE, code);
    this.code = known ? code : "provider_unavailable";
    this.status = known ? STATUS_OF_CODE[code] : 503;
    this.details = details;
  }
}

export const isProviderError = (e: unknown): e is ProviderError => e instanceof ProviderError;

/** No such object, or one the grantor may not know exists (say the same in both cases). */
export const notFound = (message: string, details: Record<string, unknown> = {}): ProviderError => new ProviderError("not_found", message, details);

/** The input breaks the provider's own rules; `field` names which (in `details.field`). */
export const invalidInput = (message: string, field?: string, details: Record<string, unknown> = {}): ProviderError =>
  new ProviderError("invalid_input", message, field === undefined ? details : { ...details, field });

/** A ref well-formed by its template that means nothing to the provider. */
export const invalidRef = (ref: string): ProviderError => new ProviderError("invalid_ref", `${ref} is not a ref this provider knows`, { ref });

/** The object changed or is in a state that forbids this; `details` says which. */
export const conflict = (message: string, details: Record<string, unknown> = {}): ProviderError => new ProviderError("conflict", message, details);

/** A selector matched several objects: the choices, as lean items. */
export const ambiguous = (message: string, choices: LeanItem[]): ProviderError => new ProviderError("ambiguous_selector", message, { choices });

/** Gate two: the provider's own rule refuses. Say who can open it, and a page if there is one. */
export const realmDenied = (opts: { message: string; who_can_open: string; url?: string; claim?: string }): ProviderError =>
  new ProviderError("realm_denied", opts.message, {
    who_can_open: opts.who_can_open,
    ...(opts.url === undefined ? {} : { url: opts.url }),
    ...(opts.claim === undefined ? {} : { claim: opts.claim }),
  });

/** Too many calls: retry after this many seconds (a whole number, at least 1). */
export const rateLimited = (seconds: number): ProviderError => {
  const retry = Math.max(1, Math.ceil(seconds));
  return new ProviderError("rate_limited", `too many calls; retry after ${retry} s`, { retry_after_seconds: retry });
};

/** The input or upload is over the provider's limit. */
export const tooLarge = (maxBytes: number): ProviderError => new ProviderError("payload_too_large", `over the limit of ${maxBytes} bytes`, { max_bytes: maxBytes });

/** The provider cannot answer now. */
export const unavailable = (message: string): ProviderError => new ProviderError("provider_unavailable", message);
