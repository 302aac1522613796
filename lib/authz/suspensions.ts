// When an operation's meaning changes under a live grant (a re-import moves its method or path, a re-import or a
// curation raises its risk), what a person approved is no longer what the agent would get. That operation is
// suspended on every grant that covers it — the rest of each grant stays live — and the next call answers
// `consent_required`, saying what changed, so the person approves the new meaning or not.
import { and, eq, isNull, or, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { actors, grants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import type { OperationKey } from "@/lib/realms/contract";
import { takeTurnsOf } from "./grant-turns";

export type MeaningChange = { operation: OperationKey; change: string };

export type AffectedGrant = { grant_id: string; actor_id: string; actor_name: string; grantor_id: string; operation: string; change: string };

/** Live grants of the namespace covering each changed operation (by its exact key, or "all actions" for actions). */
export async function grantsAffectedBy(db: Executor, tenantId: string, namespace: string, changes: MeaningChange[], now = new Date()): Promise<AffectedGrant[]> {
  if (changes.length === 0) return [];
  const rows = await db
    .select({ g: grants, actorName: actors.name })
    .from(grants)
    .innerJoin(actors, eq(actors.id, grants.actorId))
    .where(
      and(
        eq(grants.tenantId, tenantId),
        eq(grants.namespace, namespace),
        isNull(grants.revokedAt),
        or(isNull(grants.expiresAt), sql`${grants.expiresAt} > ${now}`),
      ),
    );
  const out: AffectedGrant[] = [];
  for (const { g, actorName } of rows) {
    for (const c of changes) {
      const covers = g.operations.includes(c.operation) || (g.allActions && c.operation.startsWith("object.action."));
      if (covers && !g.suspensions[c.operation]) {
        out.push({ grant_id: g.id, actor_id: g.actorId, actor_name: actorName, grantor_id: g.grantorId, operation: c.operation, change: c.change });
      }
    }
  }
  return out;
}

/**
 * Suspend each changed operation on every live grant covering it, in the caller's transaction, with one audit
 * record per grant touched. Returns what was suspended (the import report lists it).
 */
export async function suspendChangedOperations(
  tx: Executor,
  /** `userId` null: no person made the change (a remote provider's new manifest): recorded as the system's. */
  who: { tenantId: string; userId: string | null; requestId?: string | null },
  namespace: string,
  changes: MeaningChange[],
  now = new Date(),
): Promise<AffectedGrant[]> {
  const affected = await grantsAffectedBy(tx, who.tenantId, namespace, changes, now);
  // The actors' turns first (grant-turns.ts): their calls from now on wait for the suspension instead of starving it.
  await takeTurnsOf(tx, affected.map((a) => a.actor_id));
  const byGrant = new Map<string, AffectedGrant[]>();
  for (const a of affected) byGrant.set(a.grant_id, [...(byGrant.get(a.grant_id) ?? []), a]);
  for (const [grantId, list] of byGrant) {
    const [row] = await tx.select({ suspensions: grants.suspensions }).from(grants).where(eq(grants.id, grantId)).for("update");
    const next = { ...(row?.suspensions ?? {}) };
    for (const a of list) next[a.operation] = { at: now.toISOString(), change: a.change };
    await tx.update(grants).set({ suspensions: next }).where(eq(grants.id, grantId));
    await recordAudit(tx, {
      tenantId: who.tenantId,
      event: "grant.suspended",
      principal: who.userId ? { type: "user", userId: who.userId } : { type: "system" },
      requestId: who.requestId ?? null,
      outcome: "ok",
      namespace,
      subjectId: grantId,
      reason: "meaning_changed",
      details: { actor_id: list[0]!.actor_id, operations: list.map((a) => ({ operation: a.operation, change: a.change })) },
    });
  }
  return affected;
}
