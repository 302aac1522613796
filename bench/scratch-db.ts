// A PostgreSQL database of a benchmark's own, created on the server BENCH_PG_ADMIN_URL names (default the local one)
// and dropped with its connections when the benchmark is done.
import { randomBytes } from "node:crypto";
import pg from "pg";

export const adminUrl = () => process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export type ScratchDatabase = { url: string; drop(): Promise<void> };

/** Create `<prefix>_<random>`; its URL keeps the admin URL's query string. Fails if the server cannot be reached. */
export async function scratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const admin = adminUrl();
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query(`create database ${name}`);
  } finally {
    await client.end().catch(() => {});
  }
  return {
    url: admin.replace(/\/[^/?]*(\?|$)/, `/${name}$1`),
    async drop() {
      const c = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 3000 });
      try {
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end().catch(() => {});
      }
    },
  };
}
