// Is this failure the database being unreachable (down, restarting, overloaded, too slow), rather than a bug?
// Such failures answer 503 service_unavailable with Retry-After (lib/errors.ts), never 500. No imports: lib/errors
// uses this, and pg is loaded only when PostgreSQL is configured.

export class DatabaseUnavailableError extends Error {}

/** PostgreSQL SQLSTATEs that mean "not now": the connection, the server's state, or our statement timeout. */
const UNAVAILABLE_SQLSTATES: Record<string, string> = {
  "57P01": "admin_shutdown",
  "57P02": "crash_shutdown",
  "57P03": "cannot_connect_now",
  "57014": "statement_timeout",
  "53300": "too_many_connections",
};

/** Node socket errors on the way to the server. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/** What pg (and pg-pool) throw without a code when a connection dies or cannot be had in time. */
const MESSAGES: [RegExp, string][] = [
  [/^Connection terminated/i, "connection_terminated"],
  [/timeout exceeded when trying to connect/i, "connect_timeout"],
  [/^Query read timeout/i, "query_timeout"],
  [/not queryable/i, "connection_lost"],
  [/^Client has encountered a connection error/i, "connection_lost"],
  [/^Cannot use a pool after calling end/i, "pool_closed"],
  [/^Client was closed and is not queryable/i, "connection_lost"],
];

const MAX_DEPTH = 6;

/** The reason (`connect_timeout`, `admin_shutdown`, `ECONNREFUSED`…) when `err` means the database is unavailable, else null. */
export function databaseUnavailableReason(err: unknown): string | null {
  const seen = new Set<unknown>();
  const stack: { e: unknown; depth: number }[] = [{ e: err, depth: 0 }];
  while (stack.length) {
    const { e, depth } = stack.pop()!;
    if (e === null || typeof e !== "object" || seen.has(e) || depth > MAX_DEPTH) continue;
    seen.add(e);
    if (e instanceof DatabaseUnavailableError) return "unreachable";
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (UNAVAILABLE_SQLSTATES[code]) return UNAVAILABLE_SQLSTATES[code]!;
      if (/^08[0-9A-Z]{3}$/.test(code)) return "connection_exception";
      if (SOCKET_CODES.has(code)) return code;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && !(typeof code === "string" && /^[0-9A-Z]{5}$/.test(code))) {
      for (const [re, reason] of MESSAGES) if (re.test(message)) return reason;
    }
    // drizzle wraps a failed query (DrizzleQueryError.cause); net wraps several addresses (AggregateError.errors).
    stack.push({ e: (e as { cause?: unknown }).cause, depth: depth + 1 });
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const x of errors.slice(0, 8)) stack.push({ e: x, depth: depth + 1 });
  }
  return null;
}
