// Walk a tenant's audit chain and name the first broken link: an edited row (hash mismatch), a deleted row
// (a gap in seq or a prev_hash that does not match), or a truncated tail (the head is ahead of the rows).
import { and, asc, eq, gt, lte } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { auditEvents, auditHeads } from "@/db/schema";
import { GENESIS_HASH, linkHash } from "./record";

export type VerifyResult =
  | { ok: true; checked: number; head_seq: number }
  | { ok: false; checked: number; first_broken: { seq: number; id: string | null; reason: "edited" | "missing" | "chain_mismatch" | "truncated" } };

const BATCH = 1000;

export async function verifyAuditChain(db: Executor, tenantId: string): Promise<VerifyResult> {
  const [head] = await db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId));
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  let checked = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(auditEvents)
      // Bounded by the head read first: events written while we walk are not "after the head".
      .where(and(eq(auditEvents.tenantId, tenantId), gt(auditEvents.seq, expectedSeq - 1), lte(auditEvents.seq, head?.seq ?? 0)))
      .orderBy(asc(auditEvents.seq))
      .limit(BATCH);
    for (const row of rows) {
      if (row.seq !== expectedSeq) return { ok: false, checked, first_broken: { seq: expectedSeq, id: null, reason: "missing" } };
      if (row.prevHash !== prevHash) return { ok: false, checked, first_broken: { seq: row.seq, id: row.id, reason: "chain_mismatch" } };
      const { hash, ...rest } = row;
      if (linkHash(rest) !== hash) return { ok: false, checked, first_broken: { seq: row.seq, id: row.id, reason: "edited" } };
      prevHash = hash;
      expectedSeq++;
      checked++;
    }
    if (rows.length < BATCH) break;
  }
  const headSeq = head?.seq ?? 0;
  if (headSeq !== checked || (head && headSeq > 0 && head.hash !== prevHash)) {
    return { ok: false, checked, first_broken: { seq: checked + 1, id: null, reason: "truncated" } };
  }
  return { ok: true, checked, head_seq: headSeq };
}
