// The database: embedded PGlite by default, PostgreSQL when DATABASE_URL is set. Opened lazily, once per
// process (never at import time: `next build` imports every route), migrated before first use.
import fs from "node:fs";
import path from "node:path";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { env } from "@/lib/env";
import * as schema from "./schema";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything that can run a query: the database or an open transaction. */
export type Executor = Db | Tx;

export class DatabaseUnavailableError extends Error {}

type Handle = { db: Db; kind: "pglite" | "postgres"; close: () => Promise<void> };

const g = globalThis as unknown as { __realmgateDb?: Promise<Handle> };

export const migrationsFolder = () => path.join(process.cwd(), "db", "migrations");

/** The process's database, opened and migrated on first call. */
export async function getDb(): Promise<Db> {
  return (await handle()).db;
}

export async function dbKind(): Promise<"pglite" | "postgres"> {
  return (await handle()).kind;
}

function handle(): Promise<Handle> {
  if (!g.__realmgateDb) {
    g.__realmgateDb = open().catch((err) => {
      g.__realmgateDb = undefined;
      throw err;
    });
  }
  return g.__realmgateDb;
}

/** Close the process's database (scripts and tests). */
export async function closeDb(): Promise<void> {
  const h = g.__realmgateDb;
  g.__realmgateDb = undefined;
  if (h) await (await h).close();
}

async function open(): Promise<Handle> {
  const cfg = env();
  return cfg.DATABASE_URL ? openPostgres(cfg.DATABASE_URL, cfg.DB_CONNECT_TIMEOUT_MS) : openPglite(cfg.REALMGATE_DATA_DIR === ":memory:" ? null : cfg.dataDir);
}

async function openPostgres(url: string, timeoutMs: number): Promise<Handle> {
  const { default: pg } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: timeoutMs, max: 10 });
  pool.on("error", () => {}); // an idle client dropped by the server; the next query reconnects
  let client: import("pg").PoolClient;
  try {
    client = await pool.connect();
  } catch (cause) {
    await pool.end().catch(() => {});
    throw new DatabaseUnavailableError(`Cannot reach the PostgreSQL server at ${redact(url)}: ${(cause as Error).message}`, { cause });
  }
  try {
    // Several app instances may start at once: one migrates, the others wait for it.
    await client.query("select pg_advisory_lock(7417001)");
    const migrating = drizzle(client, { schema }) as unknown as Db;
    await migrate(migrating as never, { migrationsFolder: migrationsFolder() });
    await (await import("./data-steps")).runDataSteps(migrating);
  } finally {
    await client.query("select pg_advisory_unlock(7417001)").catch(() => {});
    client.release();
  }
  const db = drizzle(pool, { schema }) as unknown as Db;
  return { db, kind: "postgres", close: () => pool.end() };
}

async function openPglite(dataDir: string | null): Promise<Handle> {
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
    const db = drizzle(client, { schema });
    await migrate(db, { migrationsFolder: migrationsFolder() });
    await (await import("./data-steps")).runDataSteps(db as unknown as Db);
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
