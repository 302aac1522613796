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
// This runs through the executor's own session, so it stays in the caller's transaction, on PostgreSQL and on
// PGlite alike, and every statement still passes db/client.ts's guard. On PostgreSQL (drizzle's node-postgres
// session, without a query cache) a run goes straight to the session's client with the query config drizzle made
// for the statement the first time (its type parsers included), logged to drizzle's logger, its rows mapped and its
// errors wrapped as drizzle's prepared query would: drizzle's per-run layers (a new prepared query with two configs
// and eighteen closures, tracing spans, the cache check) were ~28 of the ~200 promises of a tool call. Elsewhere
// (PGlite) it runs through drizzle's `prepareQuery`.
import * as drizzle from "drizzle-orm";
import { DrizzleQueryError, entityKind, fillPlaceholders, sql, type Placeholder, type Query, type SQL } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/pg-core";
import type { Executor } from "./client";

type Prepared = { execute(values: Record<string, unknown>): Promise<unknown>; joinsNotNullableMap?: Record<string, boolean> };
type Session = { prepareQuery(query: Query, fields: unknown, name: undefined, arrayMode: boolean): Prepared };
type WithSession = { dialect: { sqlToQuery(s: SQL): Query }; session: Session };

/** What drizzle's node-postgres prepared query sends pg: the text, and for a select, array rows; its type parsers either way. */
type PgConfig = { text: string; rowMode?: string; types?: unknown };
/** What is used of drizzle's node-postgres session (drizzle-orm 0.45): its client (a pool, or a transaction's client), logger and cache. */
type NodePgSession = Session & {
  client: { query(config: PgConfig, values: unknown[]): Promise<{ rows: unknown[] }> };
  logger: { logQuery(text: string, params: unknown[]): void };
  cache?: object;
};
/** Of drizzle's node-postgres prepared query: the configs it would send (one with object rows, one with array rows). */
type NodePgPrepared = { rawQueryConfig: PgConfig; queryConfig: PgConfig };

const kindOf = (o: object | undefined): unknown => (o?.constructor as { [entityKind]?: unknown } | undefined)?.[entityKind];

/** The session, when a statement can go straight to its client: drizzle's node-postgres session, with no query cache. */
function directSession(session: Session): NodePgSession | null {
  const s = session as NodePgSession;
  return kindOf(s) === "NodePgSession" && (s.cache === undefined || kindOf(s.cache) === "NoopCache") ? s : null;
}

/** Run a statement on a node-postgres session's client as drizzle's prepared query would: logged, errors wrapped. */
async function runDirect(session: NodePgSession, query: Query, config: PgConfig, values: Record<string, unknown>): Promise<unknown[]> {
  const params = fillPlaceholders(query.params, values);
  session.logger.logQuery(query.sql, params);
  try {
    return (await session.client.query(config, params)).rows;
  } catch (e) {
    throw new DrizzleQueryError(query.sql, params, e as Error);
  }
}

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
  let config: PgConfig | undefined;
  return async (exec, values) => {
    const db = exec as unknown as WithSession;
    query ??= db.dialect.sqlToQuery(build(placeholders as Placeholders<K>));
    const direct = directSession(db.session);
    if (direct) {
      config ??= (direct.prepareQuery(query, undefined, undefined, false) as unknown as NodePgPrepared).rawQueryConfig;
      return (await runDirect(direct, query, config, values)) as Row[];
    }
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
/** drizzle's own mapping of a select's array row to its object (nested selections, joined tables' nulls, column decoders). */
const mapResultRow = (drizzle as unknown as { mapResultRow(fields: unknown, row: unknown[], joins: Record<string, boolean> | undefined): unknown }).mapResultRow;
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
  let config: PgConfig | undefined;
  return async (exec, values) => {
    const db = exec as unknown as WithSession;
    if (!built) {
      const select = build(queryBuilder, placeholders as Placeholders<K>) as unknown as SelectInternals;
      built = { query: db.dialect.sqlToQuery(select.getSQL()), fields: orderSelectedFields(select.config.fields), joins: select.joinsNotNullableMap };
    }
    const direct = directSession(db.session);
    if (direct) {
      const { query, fields, joins } = built;
      config ??= (direct.prepareQuery(query, fields, undefined, true) as unknown as NodePgPrepared).queryConfig;
      const rows = await runDirect(direct, query, config, values);
      return rows.map((row) => mapResultRow(fields, row as unknown[], joins)) as RowOf<Q>[];
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
