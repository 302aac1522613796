// Health: is the database answering, and which one is it.
import { sql } from "drizzle-orm";
import { dbKind, getDb } from "@/db/client";
import pkg from "@/package.json";

export async function health(): Promise<{ ok: boolean; db: "pglite" | "postgres"; version: string }> {
  const db = await getDb();
  await db.execute(sql`select 1`);
  return { ok: true, db: await dbKind(), version: pkg.version };
}
