// The one error type of Realmgate and its wire shape (documented in docs/errors.md).
import { z } from "zod";
import { databaseUnavailableReason } from "@/db/errors";

export const errorCodes = {
  invalid_input: 400,
  invalid_ref: 400,
  invalid_cursor: 400,
  unauthenticated: 401,
  forbidden: 403,
  insufficient_scope: 403,
  operation_disabled: 403,
  consent_required: 403,
  grant_expired: 403,
  grant_revoked: 403,
  needs_connected_account_consent: 403,
  realm_denied: 403,
  url_expired: 403,
  bad_signature: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  ambiguous_selector: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_conflict: 422,
  rate_limited: 429,
  internal_error: 500,
  provider_unavailable: 502,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorCodes;

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
    message: i.message,
    code: i.code,
  }));
  const first = issues[0];
  const message = first ? `Invalid ${what}: ${first.path}: ${first.message}` : `Invalid ${what}`;
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
