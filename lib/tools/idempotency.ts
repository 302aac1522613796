// Same key + same body replays the first result once; the same key with another body is a conflict. Keys are
// per tenant, caller and tool; two calls with one key at once run one after the other.
import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { idempotencyRecords } from "@/db/schema";
import { canonicalJson } from "@/lib/canonical-json";
import { AppError } from "@/lib/errors";

export type Idem = { key: string; bodyHash: string };
type Keyed = { tenantId: string; principalId: string; tool: string };

/** The key and body hash of a call to an idempotent tool that carries an `idempotency_key`. */
export function idempotencyOf(input: Record<string, unknown>): Idem | null {
  const key = input.idempotency_key;
  if (typeof key !== "string") return null;
  const { idempotency_key: _omit, ...body } = input;
  return { key, bodyHash: createHash("sha256").update(canonicalJson(body)).digest("hex") };
}

/** The first result under this key (undefined: none yet); waits for a call holding the same key. */
export async function idempotentReplay(tx: Tx, k: Keyed, idem: Idem): Promise<unknown | undefined> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${k.tenantId}|${k.principalId}|${k.tool}|${idem.key}`}, 0))`);
  const [row] = await tx
    .select({ bodyHash: idempotencyRecords.bodyHash, result: idempotencyRecords.result })
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.tenantId, k.tenantId), eq(idempotencyRecords.principalId, k.principalId), eq(idempotencyRecords.tool, k.tool), eq(idempotencyRecords.key, idem.key)));
  if (!row) return undefined;
  if (row.bodyHash !== idem.bodyHash) {
    throw new AppError("idempotency_conflict", "This idempotency_key was used with a different request body.", { details: { idempotency_key: idem.key } });
  }
  return row.result;
}

export async function storeIdempotent(tx: Tx, k: Keyed, idem: Idem, result: unknown) {
  // A null result is stored as JSON null (the column is NOT NULL; drizzle writes a bare null as SQL NULL).
  await tx.insert(idempotencyRecords).values({ ...k, key: idem.key, bodyHash: idem.bodyHash, result: result ?? sql`'null'::jsonb` });
}
