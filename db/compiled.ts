// Statements built once per process: the hot path's platform statements (authentication and the rate limit,
// gate one's read, the audit append) are written as drizzle `sql` templates whose values are placeholders, turned
// into text once, and from then on run with their values only. Building SQL from templates is drizzle's costliest
// step (its `is()` class checks walk every chunk): on this machine it was ~15 % of a tool call's CPU in the app.
//
// The text is the same string every time, so a statement keeps its one prepared-statement name (db/prepared.ts)
// without hashing a freshly built string per call. A template with variants (a CTE present or not) is compiled
// once per variant key; keys are a small fixed set chosen by the caller, never data.
//
// A realm's own reads can be written the same way with drizzle's query builder (`compiledSelect`): the select is
// built once per shape with placeholders, and each run maps its rows exactly as the builder would.
//
// This runs through the executor's own session (drizzle's `prepareQuery`), so it stays in the caller's
// transaction, on PostgreSQL and on PGlite alike, and every statement still passes db/client.ts's guard.
import * as drizzle from "drizzle-orm";
import { sql, type Placeholder, type Query, type SQL } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/pg-core";
import type { Executor } from "./client";

type Prepared = { execute(values: Record<string, unknown>): Promise<unknown>; joinsNotNullableMap?: Record<string, boolean> };
type Session = { prepareQuery(query: Query, fields: unknown, name: undefined, arrayMode: boolean): Prepared };
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

/** What drizzle's select builder keeps and its own `_prepare` reads (drizzle-orm 0.45's select builder). */
type SelectInternals = { getSQL(): SQL; config: { fields: Record<string, unknown> }; joinsNotNullableMap: Record<string, boolean> };
/** drizzle's own field ordering for a selection, as its select builder uses it (exported at run time, not typed). */
const orderSelectedFields = (drizzle as unknown as { orderSelectedFields(fields: Record<string, unknown>): unknown }).orderSelectedFields;
/** A select built by `compiledSelect`'s callback: drizzle's query builder, any shape. */
type BuiltSelect = { readonly _: { readonly result: unknown } };
type RowOf<Q extends BuiltSelect> = Q["_"]["result"] extends (infer R)[] ? R : never;

const queryBuilder = new QueryBuilder();

/**
 * A select written with drizzle's query builder (`qb.select(…).from(…)`, every value through `p`), built the first
 * time it runs; each run sends the same text with that run's values and maps the rows as the builder would.
 */
export function compiledSelect<K extends string, Q extends BuiltSelect>(build: (qb: QueryBuilder, p: Placeholders<K>) => Q): CompiledStatement<K, RowOf<Q>> {
  let built: { query: Query; fields: unknown; joins: Record<string, boolean> } | undefined;
  return async (exec, values) => {
    const db = exec as unknown as WithSession;
    if (!built) {
      const select = build(queryBuilder, placeholders as Placeholders<K>) as unknown as SelectInternals;
      built = { query: db.dialect.sqlToQuery(select.getSQL()), fields: orderSelectedFields(select.config.fields), joins: select.joinsNotNullableMap };
    }
    const prepared = db.session.prepareQuery(built.query, built.fields, undefined, true);
    prepared.joinsNotNullableMap = built.joins;
    return (await prepared.execute(values)) as RowOf<Q>[];
  };
}

/**
 * `compiledSelect` with a few fixed shapes: a shape is a small plain object saying which parts the statement has
 * (never a value), and each distinct shape is built once, the first time it is asked for.
 */
export function compiledSelectShapes<S extends Record<string, boolean | number | string | null>, K extends string, Q extends BuiltSelect>(
  build: (shape: S, qb: QueryBuilder, p: Placeholders<K>) => Q,
): (shape: S) => CompiledStatement<K, RowOf<Q>> {
  const built = new Map<string, CompiledStatement<K, RowOf<Q>>>();
  return (shape) => {
    const key = JSON.stringify(shape);
    let stmt = built.get(key);
    if (!stmt) {
      stmt = compiledSelect<K, Q>((qb, p) => build(shape, qb, p));
      built.set(key, stmt);
    }
    return stmt;
  };
}
