// Health: is the database answering, and which one is it. A database that is down is `ok: false` (503),
// answered within the connect timeout, not an error.
import { sql } from "drizzle-orm";
import { dbKind, getDb } from "@/db/client";
import { databaseUnavailableReason } from "@/db/errors";
import { env } from "@/lib/env";
import pkg from "@/package.json";

export type Health = { ok: boolean; db: "pglite" | "postgres"; version: string; reason?: string };

export async function health(): Promise<Health> {
  const kind = env().dbKind;
  try {
    const db = await getDb();
    await db.execute(sql`select 1`);
    return { ok: true, db: await dbKind(), version: pkg.version };
  } catch (err) {
    const reason = databaseUnavailableReason(err);
    if (!reason) throw err;
    return { ok: false, db: kind, version: pkg.version, reason };
  }
}
