// Statements built once per process: the hot path's platform statements (authentication and the rate limit,
// gate one's read, the audit append) are written as drizzle `sql` templates whose values are placeholders, turned
// into text once, and from then on run with their values only. Building SQL from templates is drizzle's costliest
// step (its `is()` class checks walk every chunk): on this machine it was ~15 % of a tool call's CPU in the app.
//
// The text is the same string every time, so a statement keeps its one prepared-statement name (db/prepared.ts)
// without hashing a freshly built string per call. A template with variants (a CTE present or not) is compiled
// once per variant key; keys are a small fixed set chosen by the caller, never data.
//
// This runs through the executor's own session (drizzle's `prepareQuery`), so it stays in the caller's
// transaction, on PostgreSQL and on PGlite alike, and every statement still passes db/client.ts's guard.
import { sql, type Placeholder, type Query, type SQL } from "drizzle-orm";
import type { Executor } from "./client";

type Session = { prepareQuery(query: Query, fields: undefined, name: undefined, arrayMode: false): { execute(values: Record<string, unknown>): Promise<unknown> } };
type WithSession = { dialect: { sqlToQuery(s: SQL): Query }; session: Session };

/** `p.name` is the placeholder `name`: the template's values are named, and given at each run. */
export type Placeholders<K extends string> = Record<K, Placeholder<K>>;

const placeholders = new Proxy({} as Record<string, Placeholder>, { get: (_, key) => sql.placeholder(String(key)) });

export type CompiledStatement<K extends string, Row> = (exec: Executor, values: Record<K, unknown>) => Promise<Row[]>;

/**
 * One statement, built the first time it runs. Every value must come through `p` (a value written into the
 * template directly would be frozen into the text at first use): `compiled((p) => sql\`select … where id = ${p.id}\`)`.
 */
export function compiled<K extends string, Row = Record<string, unknown>>(build: (p: Placeholders<K>) => SQL): CompiledStatement<K, Row> {
  let query: Query | undefined;
  return async (exec, values) => {
    const db = exec as unknown as WithSession;
    query ??= db.dialect.sqlToQuery(build(placeholders as Placeholders<K>));
    const result = await db.session.prepareQuery(query, undefined, undefined, false).execute(values);
    return (result as { rows: Row[] }).rows;
  };
}

/** A statement with a few fixed shapes: each variant key is compiled once, the first time it is asked for. */
export function compiledVariants<V extends string, K extends string, Row = Record<string, unknown>>(
  build: (variant: V, p: Placeholders<K>) => SQL,
): (variant: V) => CompiledStatement<K, Row> {
  const built = new Map<V, CompiledStatement<K, Row>>();
  return (variant) => {
    let stmt = built.get(variant);
    if (!stmt) {
      stmt = compiled<K, Row>((p) => build(variant, p));
      built.set(variant, stmt);
    }
    return stmt;
  };
}
