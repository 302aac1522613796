// PostgreSQL on this machine for e2e specs and benchmarks that need a database of their own: a scratch database,
// psql, whether the server is reachable (decided once, so a spec can skip saying why), and a proxy that counts a
// client's exchanges with it.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import pg from "pg";

export const PG_HOST = "127.0.0.1";
export const PG_PORT = process.env.E2E_PG_PORT ?? "5432";

export type ScratchDatabase = { name: string; url: string; drop(): Promise<void> };

/**
 * Create `<prefix>_<random>` on the server `admin` names (a URL of any database there; default PG_HOST:PG_PORT as
 * user postgres); its URL keeps the admin URL's query string. Fails if the server cannot be reached.
 */
export async function scratchDatabase(prefix: string, admin = `postgres://postgres@${PG_HOST}:${PG_PORT}/postgres`): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query(statement);
    } finally {
      await client.end().catch(() => {});
    }
  };
  await run(`create database ${name}`);
  return { name, url: admin.replace(/\/[^/?]*(\?|$)/, `/${name}$1`), drop: () => run(`drop database if exists ${name} with (force)`) };
}

export function psql(sql: string, db = "postgres") {
  return spawnSync("psql", ["-h", PG_HOST, "-p", PG_PORT, "-U", "postgres", "-d", db, "-v", "ON_ERROR_STOP=1", "-qAtX", "-c", sql], {
    encoding: "utf8",
    timeout: 15_000,
    env: { ...process.env, PGCONNECT_TIMEOUT: "3" },
  });
}

export function psqlOk(sql: string, db?: string): string {
  const r = psql(sql, db);
  if (r.error || r.status !== 0) throw new Error(`psql failed (${sql}): ${r.error?.message ?? r.stderr}`);
  return r.stdout.trim();
}

/** Why PostgreSQL cannot be used as user postgres on PG_HOST:PG_PORT, or null when it can. */
export function postgresUnreachable(): string | null {
  const probe = psql("select 1");
  if (probe.error !== undefined) return `psql could not run (${probe.error.message})`;
  if (probe.status !== 0) return (probe.stderr || `psql exited ${probe.status}`).trim().split("\n")[0]!;
  return null;
}

/**
 * A TCP proxy in front of PostgreSQL that counts exchanges: every Sync (the end of an extended-protocol batch) and
 * every simple Query a client sends is one exchange the client then waits on. Point DATABASE_URL at `port`.
 */
export async function exchangeCountingProxy(): Promise<{ port: number; exchanges: () => number; close: () => Promise<void> }> {
  let exchanges = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(PG_PORT), PG_HOST);
    sockets.add(client).add(upstream);
    let buffered = Buffer.alloc(0);
    let started = false; // the startup packet (and an SSLRequest before it) carry no type byte
    client.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          if (buffered.length < 8) break;
          const len = buffered.readInt32BE(0);
          if (buffered.length < len) break;
          started = buffered.readInt32BE(4) !== 80877103; // an SSLRequest is followed by the startup packet
          buffered = buffered.subarray(len);
          continue;
        }
        if (buffered.length < 5) break;
        const len = buffered.readInt32BE(1);
        if (buffered.length < 1 + len) break;
        const type = String.fromCharCode(buffered[0]!);
        if (type === "S" || type === "Q") exchanges++;
        buffered = buffered.subarray(1 + len);
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) s.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    exchanges: () => exchanges,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
