// The database: embedded PGlite by default, PostgreSQL when DATABASE_URL is set. Opened lazily, once per
// process (never at import time: `next build` imports every route), migrated before first use.
import fs from "node:fs";
import path from "node:path";
import { sql, type ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { env } from "@/lib/env";
import { ADVISORY_LOCKS } from "./advisory-locks";
import { DatabaseUnavailableError, databaseUnavailableReason } from "./errors";
import { pipelineTransactions, resetPipeline, savepointWithNext, takeBackSavepoint, type PgDriver } from "./pipeline";
import { withStatementName } from "./prepared";

// No schema is given to drizzle: nothing uses its relational queries (`db.query.<table>`), and with one every
// transaction and savepoint would build a query builder for each of the schema's tables (44), on every tool call.
type NoSchema = Record<string, never>;
export type Db = PgDatabase<PgQueryResultHKT, NoSchema>;
export type Tx = PgTransaction<PgQueryResultHKT, NoSchema, ExtractTablesWithRelations<NoSchema>>;
/** Anything that can run a query: the database or an open transaction. */
export type Executor = Db | Tx;

export { DatabaseUnavailableError };

type PoolStats = { total: number; idle: number; waiting: number };
type Handle = { db: Db; kind: "pglite" | "postgres"; close: () => Promise<void>; stats?: () => PoolStats };

const g = globalThis as unknown as { __realmgateDb?: Promise<Handle> };

export const migrationsFolder = () => path.join(process.cwd(), "db", "migrations");

/** Row changes that run right after the SQL migrations, on the migrating connection (under the migration lock on PostgreSQL). */
export type AfterMigrate = (db: Db) => Promise<void>;

/**
 * Every statement the process runs on the database server, BEGIN, COMMIT, ROLLBACK and SAVEPOINT included, for tests
 * that count a call's statements or explain them (with the values sent beside them). No listener: nothing is done
 * per statement. On PostgreSQL a transaction's BEGIN and its last statement's COMMIT travel with another statement
 * (db/pipeline.ts): `onExchange` counts round trips.
 */
export type StatementListener = (sql: string, values?: readonly unknown[]) => void;
const statementListeners = new Set<StatementListener>();
export function onStatement(fn: StatementListener): () => void {
  statementListeners.add(fn);
  return () => void statementListeners.delete(fn);
}
/** Listen to every exchange with the server (PostgreSQL): a statement sent alone, or one with BEGIN or COMMIT paired (db/pipeline.ts). */
export function onExchange(fn: () => void): () => void {
  exchangeListeners.add(fn);
  return () => void exchangeListeners.delete(fn);
}
const exchangeListeners = new Set<() => void>();
function exchanged(): void {
  for (const fn of exchangeListeners) fn();
}
/** `text`: the statement, or a query config (`text`, `values`); `values`: the values given beside it, if any. */
function sent(text: unknown, values?: unknown): void {
  if (statementListeners.size === 0) return;
  const config = typeof text === "string" ? null : (text as { text?: unknown; values?: unknown } | null);
  const sql = config ? String(config.text ?? "") : String(text);
  const given = Array.isArray(values) ? values : Array.isArray(config?.values) ? (config.values as unknown[]) : undefined;
  for (const fn of statementListeners) fn(sql, given);
}

/**
 * A savepoint `name` right after the next statement of `tx`: on PostgreSQL it rides behind that statement, in its
 * exchange (db/pipeline.ts `savepointWithNext`); elsewhere, or when no statement was sent meanwhile, `placed()`
 * sends it. Call `placed()` once that statement has run: the savepoint then exists. Statement listeners see it
 * either way, so a call's statements are the same on PGlite and PostgreSQL.
 */
export function savepointAfterNext(tx: Tx, name: string): { placed(): Promise<void> } {
  const rides = savepointWithNext(tx, name);
  return {
    async placed() {
      if (rides && !takeBackSavepoint(tx, name)) return sent(`savepoint ${name}`);
      await tx.execute(sql.raw(`savepoint ${name}`));
    },
  };
}

/** The process's database, opened and migrated on first call. */
export async function getDb(): Promise<Db> {
  return (await handle()).db;
}

/**
 * Open the process's database and run `afterMigrate` right after its migrations: start-up and the scripts pass
 * the data steps (db/data-steps.ts), which use realm code this module must not import. Already open: the
 * database as it is (its opener ran them).
 */
export async function openDb(afterMigrate: AfterMigrate): Promise<Db> {
  return (await handle(afterMigrate)).db;
}

export async function dbKind(): Promise<"pglite" | "postgres"> {
  return (await handle()).kind;
}

function handle(afterMigrate?: AfterMigrate): Promise<Handle> {
  if (!g.__realmgateDb) {
    g.__realmgateDb = open(afterMigrate).catch((err) => {
      g.__realmgateDb = undefined;
      throw err;
    });
  }
  return g.__realmgateDb;
}

/** The PostgreSQL pool's connections (open, idle, callers waiting for one); null on PGlite or before opening. */
export async function poolStats(): Promise<PoolStats | null> {
  const h = g.__realmgateDb;
  return h ? ((await h).stats?.() ?? null) : null;
}

/** Close the process's database (scripts and tests). */
export async function closeDb(): Promise<void> {
  const h = g.__realmgateDb;
  g.__realmgateDb = undefined;
  if (h) await (await h).close();
}

async function open(afterMigrate: AfterMigrate = async () => {}): Promise<Handle> {
  const cfg = env();
  return cfg.DATABASE_URL
    ? openPostgres(cfg.DATABASE_URL, cfg.DB_CONNECT_TIMEOUT_MS, cfg.DB_STATEMENT_TIMEOUT_MS, cfg.DB_POOL_MAX, { prepared: cfg.DB_PREPARED_STATEMENTS, pipeline: cfg.DB_PIPELINE }, afterMigrate)
    : openPglite(cfg.REALMGATE_DATA_DIR === ":memory:" ? null : cfg.dataDir, afterMigrate);
}

/** A lost connection is logged at most once every 10 s: an outage must not flood the log. */
let lastPoolWarning = 0;
function warnConnectionLost(err: unknown): void {
  const now = Date.now();
  if (now - lastPoolWarning < 10_000) return;
  lastPoolWarning = now;
  const e = err as { code?: unknown; message?: unknown };
  console.error(`PostgreSQL connection lost${typeof e.code === "string" ? ` (${e.code})` : ""}: ${String(e.message ?? err).split("\n")[0]}`);
}

/** How much longer than the statement timeout a query may go unanswered before its connection is given up. */
export const QUERY_TIMEOUT_MARGIN_MS = 1_000;

type PgClientInternals = { connection?: { stream?: { destroy?: () => void } } };

/** How statements go over the wire: named prepared statements (db/prepared.ts), BEGIN and COMMIT paired (db/pipeline.ts). */
type Wire = { prepared: boolean; pipeline: boolean };

/**
 * A pooled client whose connection died is released at once, with the error (the pool then discards it), and
 * releasing becomes idempotent. drizzle's transaction() sends BEGIN before its try/finally, so a BEGIN that fails
 * (a server going away) would otherwise never release its client: after `max` such failures the pool would be
 * exhausted for good and every call would wait out the connect timeout long after the server came back.
 *
 * Also, a server that stops answering without closing the socket (frozen, partitioned) would hold a query
 * forever: the server-side statement_timeout cannot fire and TCP keepalive takes minutes. pg's client-side
 * `query_timeout` fails the query; its connection is then closed, so the rest of the transaction (the rollback)
 * fails at once instead of waiting out a timeout of its own.
 */
function guardPooledClient(client: import("pg").PoolClient, { prepared, pipeline }: Wire, pg: PgDriver): void {
  const own = client.query.bind(client) as (...args: unknown[]) => unknown;
  // BEGIN and COMMIT ride with the transaction's first and last statements (db/pipeline.ts).
  const query = pipeline
    ? pipelineTransactions(client, pg, own, exchanged)
    : (...args: unknown[]) => {
        exchanged();
        return own(...args);
      };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    sent(args[0], args[1]);
    const releaseThisCheckout = client.release;
    const result = query(...(prepared ? withStatementName(args) : args));
    if (!(result instanceof Promise)) return result; // callback form: pool.query releases with the error itself
    return result.catch((err: unknown) => {
      const reason = databaseUnavailableReason(err);
      if (reason && reason !== "statement_timeout") {
        if (reason === "query_timeout") (client as unknown as PgClientInternals).connection?.stream?.destroy?.();
        releaseThisCheckout?.(err instanceof Error ? err : new Error(String(err)));
      }
      throw err;
    });
  };
}

/** Make each checkout's release idempotent (see guardPooledClient), for pool.connect() in both its forms. */
function idempotentReleases(pool: import("pg").Pool): void {
  type Done = (release?: unknown) => void;
  type Callback = (err: Error | undefined, client: import("pg").PoolClient | undefined, done: Done) => void;
  const connect = pool.connect.bind(pool) as unknown as (cb?: Callback) => Promise<import("pg").PoolClient> | undefined;
  const once = (client: import("pg").PoolClient) => {
    const release = client.release;
    let released = false;
    client.release = ((err?: Error | boolean) => {
      if (released) return;
      released = true;
      release(err);
    }) as typeof client.release;
    return client;
  };
  (pool as unknown as { connect: (cb?: Callback) => unknown }).connect = (cb?: Callback) =>
    cb ? connect((err, client, done) => (client ? cb(err, once(client), client.release as Done) : cb(err, client, done))) : connect()!.then(once);
}

async function openPostgres(url: string, timeoutMs: number, statementTimeoutMs: number, poolMax: number, wire: Wire, afterMigrate: AfterMigrate): Promise<Handle> {
  const { default: pg } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  // Migrations run on a connection of their own, with no statement or query timeout: waiting for another
  // instance's migration lock, or a long migration, is not an outage.
  const migrator = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, keepAlive: true });
  migrator.on("error", warnConnectionLost);
  try {
    await migrator.connect();
  } catch (cause) {
    await migrator.end().catch(() => {});
    throw new DatabaseUnavailableError(`Cannot reach the PostgreSQL server at ${redact(url)}: ${(cause as Error).message}`, { cause });
  }
  try {
    // Several app instances may start at once: one migrates, the others wait for it (as long as it takes).
    await migrator.query(`select pg_advisory_lock(${ADVISORY_LOCKS.migrations})`);
    const migrating = drizzle(migrator) as unknown as Db;
    await migrate(migrating as never, { migrationsFolder: migrationsFolder() });
    await afterMigrate(migrating);
  } finally {
    await migrator.query(`select pg_advisory_unlock(${ADVISORY_LOCKS.migrations})`).catch(() => {});
    await migrator.end().catch(() => {});
  }

  const pool = new pg.Pool({
    connectionString: url,
    // Bounds both opening a connection and waiting for a free one (pool exhausted): then 503, not a hang.
    connectionTimeoutMillis: timeoutMs,
    max: poolMax,
    // Sent with every connection's start-up: the server cancels any statement running longer (57014 → 503).
    statement_timeout: statementTimeoutMs,
    // A server that stopped answering: the query fails a little after the statement timeout (→ 503).
    query_timeout: statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // An idle client dropped by the server: the pool discards it and the next query reconnects.
  pool.on("error", warnConnectionLost);
  pool.on("connect", (client) => {
    // A checked-out client whose connection dies emits `error` too; its query already failed (and answers
    // 503), but with no listener the event would be an uncaughtException. The pool discards it on release.
    client.on("error", warnConnectionLost);
    guardPooledClient(client, wire, pg as unknown as PgDriver);
  });
  pool.on("acquire", resetPipeline);
  idempotentReleases(pool);
  const db = drizzle(pool) as unknown as Db;
  const stats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  return { db, kind: "postgres", close: () => pool.end(), stats };
}

async function openPglite(dataDir: string | null, afterMigrate: AfterMigrate): Promise<Handle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  let release = () => {};
  let client: InstanceType<typeof PGlite>;
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    release = lockDataDir(dataDir);
    client = new PGlite(path.join(dataDir, "pglite"));
  } else {
    client = new PGlite();
  }
  try {
    await client.waitReady;
    countStatements(client);
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsFolder() });
    await afterMigrate(db as unknown as Db);
    return {
      db: db as unknown as Db,
      kind: "pglite",
      close: async () => {
        await client.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

type PgliteQueries = { query: (...a: unknown[]) => Promise<unknown>; exec: (...a: unknown[]) => Promise<unknown> };

/**
 * PGlite's statements as the listeners see them: its `query` and `exec`, and its `transaction`, which sends BEGIN,
 * the body's statements (on the handle it passes) and COMMIT, or ROLLBACK when the body throws.
 */
function countStatements(client: import("@electric-sql/pglite").PGlite): void {
  const c = client as unknown as PgliteQueries & { transaction: (fn: (tx: PgliteQueries & { rollback: () => Promise<void> }) => Promise<unknown>) => Promise<unknown> };
  const counted = <T extends PgliteQueries>(q: T): T => {
    const query = q.query.bind(q);
    const exec = q.exec.bind(q);
    q.query = (...a: unknown[]) => (sent(a[0], a[1]), query(...a));
    q.exec = (...a: unknown[]) => (sent(a[0]), exec(...a));
    return q;
  };
  counted(c);
  const transaction = c.transaction.bind(c);
  c.transaction = (fn) => {
    sent("BEGIN");
    let rolledBack = false;
    return transaction(async (tx) => {
      const rollback = tx.rollback.bind(tx);
      const t = Object.assign(Object.create(tx) as typeof tx, { query: tx.query.bind(tx), exec: tx.exec.bind(tx), rollback: () => ((rolledBack = true), sent("ROLLBACK"), rollback()) });
      return fn(counted(t));
    }).then(
      (r) => {
        if (!rolledBack) sent("COMMIT");
        return r;
      },
      (err: unknown) => {
        if (!rolledBack) sent("ROLLBACK");
        throw err;
      },
    );
  };
}

/** A PGlite data directory must never be opened by two processes: it would be corrupted. */
function lockDataDir(dataDir: string): () => void {
  const lockFile = path.join(dataDir, "pglite.lock");
  try {
    const pid = Number(fs.readFileSync(lockFile, "utf8"));
    if (pid && pid !== process.pid && alive(pid)) {
      throw new DatabaseUnavailableError(
        `The embedded database in ${dataDir} is already open in process ${pid}. Stop that process, or set DATABASE_URL to use PostgreSQL.`,
      );
    }
  } catch (err) {
    if (err instanceof DatabaseUnavailableError) throw err;
  }
  fs.writeFileSync(lockFile, String(process.pid));
  const release = () => {
    try {
      if (fs.readFileSync(lockFile, "utf8") === String(process.pid)) fs.unlinkSync(lockFile);
    } catch {}
  };
  process.once("exit", release);
  return release;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
