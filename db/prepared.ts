// Named prepared statements on PostgreSQL: a parameterized statement's text is parsed and planned once per
// connection instead of on every call. On this machine parsing and planning were ~45 % of the database's CPU for
// one tool call (pg_stat_statements: 2.9 ms of 6.5 ms), because every statement is sent as an unnamed one.
//
// pg (node-postgres) prepares a query on first use on a connection when it carries a `name`, and from then on
// sends only Bind/Execute for that name. A name must always mean the same text, so the name is a hash of the text.
// The server keeps every prepared statement for the connection's life and pg never deallocates, so the number of
// distinct texts named is bounded per process: texts past the bound go unnamed (parsed each time, as before).
// Statements without parameters (BEGIN, COMMIT, SAVEPOINT …) stay unnamed: there is nothing to plan.
// Turn off with DB_PREPARED_STATEMENTS=0 behind a pooler that cannot keep them (PgBouncer in transaction mode).
import { createHash } from "node:crypto";

/** How many distinct statement texts one process prepares; the app's own set is a few hundred at most. */
export const MAX_NAMED_STATEMENTS = 400;

const names = new Map<string, string>();
/** Whether this process has said that the bound was reached (once: every later text would say it again). */
let warned = false;

type QueryConfig = { text: string; values?: unknown[]; name?: string; [k: string]: unknown };

function nameFor(text: string): string | undefined {
  const known = names.get(text);
  if (known) return known;
  if (names.size >= MAX_NAMED_STATEMENTS) {
    // Not an error, but a slower path nobody would see: unnamed statements are parsed on every run, and only named
    // ones ride with BEGIN and COMMIT or go in one exchange with others (db/pipeline.ts). A statement whose text is
    // built from data (a value written into the text instead of a parameter) fills the bound; say so once.
    if (!warned) {
      warned = true;
      console.warn(
        `Prepared statements: this process has named ${MAX_NAMED_STATEMENTS} distinct statement texts, its most; statements with other texts now go unnamed (parsed each time, never paired or batched). A text built from data rather than parameters does this.`,
      );
    }
    return undefined;
  }
  const name = `rg_${createHash("sha256").update(text).digest("base64url").slice(0, 24)}`;
  names.set(text, name);
  return name;
}

/**
 * The arguments of a `client.query(...)` call, with a statement name added when the statement has parameters.
 * Accepts pg's forms: (text, values, cb?), (config, cb?) and (config, values, cb?); anything else passes through.
 */
export function withStatementName(args: unknown[]): unknown[] {
  const [first, second, ...rest] = args;
  if (typeof first === "string") {
    if (!Array.isArray(second) || second.length === 0) return args;
    const name = nameFor(first);
    return name ? [{ text: first, values: second, name }, ...rest] : args;
  }
  if (first && typeof first === "object" && typeof (first as QueryConfig).text === "string" && !(first as QueryConfig).name) {
    const config = first as QueryConfig;
    const values = Array.isArray(second) ? second : config.values;
    if (!Array.isArray(values) || values.length === 0) return args;
    // A config with a submit() is a pg Query/Cursor object: leave it as it is.
    if (typeof (config as { submit?: unknown }).submit === "function") return args;
    const name = nameFor(config.text);
    return name ? [{ ...config, name }, second, ...rest].slice(0, args.length) : args;
  }
  return args;
}

/**
 * For tests: forget the names given so far (test files share a process, and earlier ones may have filled the bound).
 * Safe on live connections: a name is the hash of its text, so a text named again gets the same name.
 */
export function forgetStatementNames(): void {
  names.clear();
  warned = false;
}

/** For tests: the statements named so far. */
export function namedStatementCount(): number {
  return names.size;
}
