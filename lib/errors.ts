// The one error type of Realmgate, the table of its codes, and its wire shape (documented in docs/errors.md).
import { z } from "zod";
import { databaseUnavailableReason } from "@/db/errors";

/** The `details.retry_hint` values a denial carries (docs/errors.md explains each). */
export const retryHints = [
  "do_not_retry",
  "do_not_retry_until_changed",
  "retry_after_approval",
  "retry_after_materialize",
  "do_not_retry_unless_approved_again",
  "retry_after_connect",
  "retry_after_upgrade",
  "retry_after_reconnect",
  "retry_with_a_listed_account_or_after_connect",
  "retry_later",
] as const;
export type RetryHint = (typeof retryHints)[number];

export type ErrorCodeInfo = {
  /** The HTTP status it answers with (a few raise another on purpose; `when` says so). */
  status: number;
  /** The `details.retry_hint` values it carries, if any (free text where a hint is an instruction). */
  retry: readonly string[] | null;
  /** When it happens, in one sentence. */
  when: string;
};

/**
 * Every error code: its HTTP status, the retry hints it carries and when it happens. The status of an AppError
 * comes from here; docs/errors.md's table is generated from it (`npm run docs:errors`).
 */
export const errorTable = {
  invalid_input: { status: 400, retry: null, when: "The call is malformed or does not fit its operation: an unknown field, a value out of bounds, bad JSON, or a payload that breaks the action's schema." },
  invalid_ref: { status: 400, retry: null, when: "A ref does not parse (half-typed, unknown kind, malformed id, another namespace, wrong kind for its field); checked before gate one." },
  invalid_cursor: { status: 400, retry: null, when: "A cursor was altered, truncated, not issued by Realmgate, or belongs to another listing, caller or tenant." },
  unauthenticated: { status: 401, retry: null, when: "No credential, a malformed Authorization header, or a token that is unknown, expired or revoked." },
  forbidden: { status: 403, retry: ["do_not_retry"], when: "The caller's role or kind may never do this: support staff writing, non-owners administering, a cross-origin cookie write, a signed URL no longer valid." },
  insufficient_scope: { status: 403, retry: null, when: "An OAuth-connected MCP client called a tool or action that needs more scope than it was granted." },
  operation_disabled: { status: 403, retry: ["do_not_retry_until_changed"], when: "Gate one: the owner's ceiling or the grantor's own choice turns this operation off for agents." },
  operation_not_selected: {
    status: 403,
    retry: ["retry_after_materialize"],
    when: "Gate one: the owner set this realm so agents act only on operations they selected, and this action is not in the agent's working set; details.materialize is the call that selects it.",
  },
  consent_required: { status: 403, retry: ["retry_after_approval"], when: "Gate one: no live grant covers this call (no grant, a scope that does not reach it, or a suspended operation); a consent request is recorded." },
  grant_expired: { status: 403, retry: ["retry_after_approval"], when: "Gate one: the grant that covered this call has passed its expiry; a new consent request is recorded." },
  grant_revoked: { status: 403, retry: ["do_not_retry_unless_approved_again"], when: "Gate one: the grant that covered this call was revoked." },
  approval_required: {
    status: 403,
    retry: ["retry_after_approval"],
    when: "Gate one: the operation is in ask mode; nothing ran. A person approves this exact call at details.approval_url, then the same call is retried with details.approval_id added.",
  },
  approval_denied: { status: 403, retry: ["do_not_retry"], when: "The person denied the approval this call names; details.note says why, if they did." },
  approval_expired: {
    status: 403,
    retry: ["retry_after_approval"],
    when: "The approval this call names lapsed (REALMGATE_APPROVAL_TTL) or stopped counting (revoked token, operation turned off); details.approval_required is a fresh offer.",
  },
  approval_mismatch: { status: 409, retry: ["do_not_retry"], when: "The call names an approval given for a different call (another tool, operation or input): the input must be exactly the one approved." },
  needs_connected_account_consent: {
    status: 403,
    retry: ["retry_after_connect", "retry_after_upgrade", "retry_after_reconnect", "retry_with_a_listed_account_or_after_connect"],
    when: "Gate two of a connected realm: the person's connected accounts cannot serve the call (none, a missing claim, a refused refresh, or an unknown account).",
  },
  realm_denied: { status: 403, retry: ["do_not_retry"], when: "Gate two: the realm's own rule refuses (only the owner may do this, or the provider or service answered 401/403)." },
  url_expired: { status: 403, retry: ["call get_object again for a new URL"], when: "A signed download URL is past its expiry (at most 15 minutes after it was minted)." },
  bad_signature: { status: 403, retry: null, when: "A signed URL is incomplete, altered, or was not issued by Realmgate." },
  not_found: { status: 404, retry: null, when: "Nothing by that name, or something the caller may not know exists (missing, another tenant's, not shared, outside the grant)." },
  method_not_allowed: { status: 405, retry: null, when: "A method the tool route does not serve (anything but POST on /api/v1/tools/:tool); `Allow` names the one it does." },
  conflict: { status: 409, retry: null, when: "Already decided or taken: a consent request or an approval already decided or expired (details name the first decision), a revoked actor, a namespace in use, or a service answering 409." },
  ambiguous_selector: { status: 409, retry: null, when: "A selector, a name or the account to use matched several candidates; the choices are listed." },
  payload_too_large: { status: 413, retry: null, when: "A request body over 1 MiB, a file over 512 KiB, or an OpenAPI document over 50 MB." },
  unsupported_media_type: { status: 415, retry: null, when: "Declared for a body of the wrong content type; nothing raises it today." },
  spec_ref_unresolved: { status: 422, retry: null, when: "An imported OpenAPI document's external $ref cannot be read: a file not given in spec_files (or not fetchable beside spec_url), another origin, a missing pointer, too many or too large files; details.reason says which." },
  idempotency_conflict: { status: 422, retry: null, when: "This idempotency_key was already used by this caller for this tool with a different body." },
  rate_limited: { status: 429, retry: null, when: "The actor exceeded MCP_RATE_LIMIT_PER_MINUTE (REST and MCP together), or an imported service or a connected account's provider answered 429; Retry-After says when to try again." },
  internal_error: { status: 500, retry: null, when: "An unexpected failure on our side; the message quotes the request id." },
  provider_unavailable: { status: 502, retry: null, when: "An outside provider or imported service failed: 502 unreachable or upstream 5xx, 503 upstream 503, 504 timeout; never retried for you." },
  service_unavailable: { status: 503, retry: ["retry_later"], when: "Realmgate cannot answer now: its database is unreachable or too slow, an MCP call ran past its time, a stored credential cannot be opened, every audit lane of the workspace is held, or the node ran its most calls at once for too long." },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof errorTable;

/** Code → HTTP status (from errorTable). */
export const errorCodes = Object.fromEntries(Object.entries(errorTable).map(([code, e]) => [code, e.status])) as { [C in ErrorCode]: (typeof errorTable)[C]["status"] };

export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;
  /** Extra response headers (e.g. Retry-After, WWW-Authenticate). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ErrorDetails; cause?: unknown; status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "AppError";
    this.code = code;
    this.status = opts.status ?? errorCodes[code];
    this.details = opts.details ?? {};
    this.headers = opts.headers ?? {};
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** Zod failures name the field path of every issue. */
export function fromZodError(err: z.ZodError, what = "input"): AppError {
  const issues = err.issues.slice(0, 20).map((i) => ({
    path: i.path.map(String).join(".") || "(root)",
    // zod says a missing field "expected string, received undefined": say it is required.
    message: i.code === "invalid_type" && i.message.endsWith("received undefined") ? `required (${i.expected})` : i.message,
    code: i.code,
  }));
  // Every problem of the input at once (up to three in the message), so a caller fixes them in one go.
  const said = issues.slice(0, 3).map((i) => `${i.path}: ${i.message}`);
  const more = err.issues.length - said.length;
  const message = said.length ? `Invalid ${what}: ${said.join("; ")}${more > 0 ? ` (and ${more} more in details.issues)` : ""}` : `Invalid ${what}`;
  return new AppError("invalid_input", message, { details: { issues }, cause: err });
}

/** Parse with a zod schema, turning failures into `invalid_input`. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what?: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(result.error, what);
  return result.data;
}

export type ErrorBody = {
  error: { code: ErrorCode; message: string; details: ErrorDetails; request_id: string };
};

/** How long a client should wait before retrying when the database is unavailable. */
export const DB_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** A database that is down, restarting or too slow is a 503 with Retry-After, never a 500 (db/errors.ts). */
export function databaseUnavailable(err: unknown): AppError | null {
  if (isAppError(err)) return null;
  const reason = databaseUnavailableReason(err);
  if (!reason) return null;
  const retry = DB_UNAVAILABLE_RETRY_AFTER_SECONDS;
  return new AppError("service_unavailable", `The database is unavailable right now (${reason}). Retry in ${retry} s.`, {
    headers: { "Retry-After": String(retry) },
    details: { reason, retry_after_seconds: retry, retry_hint: "retry_later" },
    cause: err,
  });
}

/** The wire body for any thrown value. Unknown errors never leak a message or stack. */
export function toErrorBody(err: unknown, requestId: string): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (err instanceof z.ZodError) err = fromZodError(err);
  err = databaseUnavailable(err) ?? err;
  if (isAppError(err)) {
    return {
      status: err.status,
      headers: err.headers,
      body: { error: { code: err.code, message: err.message, details: err.details, request_id: requestId } },
    };
  }
  return {
    status: 500,
    headers: {},
    body: {
      error: {
        code: "internal_error",
        message: `Something went wrong on our side. Quote request id ${requestId} when reporting it.`,
        details: {},
        request_id: requestId,
      },
    },
  };
}
