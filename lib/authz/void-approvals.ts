// Approvals stop counting when what they relied on ends: the actor is revoked, the token or OAuth token family that
// asked is revoked, or the operation is turned off. Pending and approved-but-unused approvals become void (a call
// naming one answers approval_expired with a fresh offer, if the operation still asks); consumed ones stay, their
// result already given.
import { and, eq, inArray, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { approvals } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";

type VoidWhere = { actorId?: string; credentialId?: string; namespace?: string; operations?: string[]; grantorId?: string };
type Voided = { id: string; actorId: string; grantorId: string; namespace: string; operation: string };

/**
 * Approvals that must stop counting: pending and approved-but-unused ones of a revoked actor, a revoked token or
 * token family, or an operation turned off. One audit record per approval voided, naming why.
 *
 * Lock order: a tool call locks the approval it names (gate one) and takes the tenant's audit head last. So a
 * transaction that voids approvals must lock them before its first audit record, or the two deadlock: write it as
 * `voidApprovalRows` first, then `recordVoided` with the other records (`voidApprovals` does both, for a
 * transaction that has written no audit record yet).
 */
export async function voidApprovals(tx: Executor, tenantId: string, where: VoidWhere, reason: string, requestId?: string | null) {
  const voided = await voidApprovalRows(tx, tenantId, where, reason);
  await recordVoided(tx, tenantId, voided, reason, requestId);
  return voided.length;
}

/** The approvals voided (locked by the update), no audit record yet: `recordVoided` writes them. */
export async function voidApprovalRows(tx: Executor, tenantId: string, where: VoidWhere, reason: string): Promise<Voided[]> {
  const conds: SQL[] = [eq(approvals.tenantId, tenantId), inArray(approvals.status, ["pending", "approved"])];
  if (where.actorId) conds.push(eq(approvals.actorId, where.actorId));
  if (where.credentialId) conds.push(eq(approvals.credentialId, where.credentialId));
  if (where.namespace) conds.push(eq(approvals.namespace, where.namespace));
  if (where.operations) conds.push(inArray(approvals.operation, where.operations.length ? where.operations : [""]));
  if (where.grantorId) conds.push(eq(approvals.grantorId, where.grantorId));
  return tx.update(approvals).set({ status: "void", voidReason: reason }).where(and(...conds)).returning({ id: approvals.id, actorId: approvals.actorId, grantorId: approvals.grantorId, namespace: approvals.namespace, operation: approvals.operation });
}

/** One `approval.voided` record per approval `voidApprovalRows` voided. */
export async function recordVoided(tx: Executor, tenantId: string, voided: Voided[], reason: string, requestId?: string | null): Promise<void> {
  for (const v of voided) {
    await recordAudit(tx, {
      tenantId,
      event: "approval.voided",
      principal: { type: "system" },
      requestId: requestId ?? null,
      namespace: v.namespace,
      operation: v.operation,
      outcome: "ok",
      subjectId: v.id,
      details: { approval_id: v.id, actor_id: v.actorId, reason },
    });
  }
}
