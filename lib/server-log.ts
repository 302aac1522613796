// What a server error may say in the log. A failed database query's message is its SQL and its parameters
// (drizzle's DrizzleQueryError: "Failed query: <sql>\nparams: <values>" — API-key hashes, tokens, user text), so
// an error is logged as one line: the request id, the error's class, the PostgreSQL code and message of its
// cause when there is one, and where it was thrown — never the SQL, its parameters or a whole stack.

const MAX_MESSAGE = 300;

type Described = { name: string; message?: string; code?: string };

/** A PostgreSQL error (pg's DatabaseError, PGlite's): a five-character SQLSTATE and a severity. */
function isPgError(e: unknown): e is Error & { code: string; severity?: string } {
  const code = e instanceof Error ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
}

/** A failed query as drizzle reports it: message, query and params are all the statement. */
function isFailedQuery(e: unknown): e is Error & { query?: unknown; params?: unknown } {
  return e instanceof Error && (e.constructor?.name === "DrizzleQueryError" || e.name === "DrizzleQueryError" || e.message.startsWith("Failed query:") || "params" in e);
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
const cut = (s: string) => (s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE - 1)}…` : s);
/** Anything after `params:` is query parameters, whatever wrapped it. */
const withoutParams = (s: string) => s.replace(/\b(params|parameters)\s*:[\s\S]*$/i, "$1: [omitted]");

function describeOne(e: unknown): Described {
  if (!(e instanceof Error)) return { name: e === null ? "null" : typeof e };
  const name = e.constructor?.name && e.constructor.name !== "Object" ? e.constructor.name : e.name || "Error";
  if (isPgError(e)) return { name: "PostgreSQL error", code: e.code, message: cut(oneLine(e.message)) };
  if (isFailedQuery(e)) return { name, message: "a database query failed" };
  return { name, message: cut(oneLine(withoutParams(e.message))) };
}

/** Where it was thrown: the first stack frame in our own code, else the first one (code locations, no data). */
function whereThrown(e: unknown): string | null {
  if (!(e instanceof Error) || typeof e.stack !== "string") return null;
  // The stack starts with the message (a failed query's holds its parameters, which may hold newlines and "at").
  const header = `${e.name}: ${e.message}`;
  const start = e.stack.startsWith(header) ? header.length : e.stack.startsWith(e.name) && !e.message ? e.name.length : -1;
  if (start < 0) return null;
  const frames = e.stack.slice(start).split("\n").filter((l) => /^\s+at /.test(l));
  const frame = frames.find((l) => !/node_modules|node:internal/.test(l)) ?? frames[0];
  return frame ? cut(frame.trim()) : null;
}

/** The log line for an error answered 5xx: safe to write anywhere. */
export function serverErrorLine(err: unknown, requestId: string, where?: string): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  let e: unknown = err;
  for (let depth = 0; e !== undefined && e !== null && depth < 4 && !seen.has(e); depth++) {
    seen.add(e);
    const d = describeOne(e);
    parts.push(`${depth ? "caused by " : ""}${d.name}${d.code ? ` ${d.code}` : ""}${d.message ? `: ${d.message}` : ""}`);
    e = e instanceof Error ? e.cause : undefined;
  }
  const at = whereThrown(err);
  return `[${requestId}]${where ? ` ${where}` : ""} ${parts.join("; ")}${at ? ` (${at})` : ""}`;
}

/** Log an error answered 5xx, sanitized (see serverErrorLine). */
export function logServerError(err: unknown, requestId: string, where?: string): void {
  console.error(serverErrorLine(err, requestId, where));
}
