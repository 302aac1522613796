// Recording audit events: one per decision and per change, written in the caller's transaction, chained by
// SHA-256 to the tenant's previous event. A write here is never skipped: if it fails, the change fails.
import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { auditEvents, auditHeads } from "@/db/schema";
import { newId } from "@/lib/ids";
import { canonicalJson } from "./canonical";

/** The closed list of `resource.verb` events. */
export const auditEventNames = [
  "tool.call",
  "actor.created",
  "actor.revoked",
  "token.issued",
  "token.revoked",
  "grant.created",
  "grant.revoked",
  "grant.suspended",
  "grant.migrated",
  "ceiling.changed",
  "choice.changed",
  "consent.requested",
  "consent.approved",
  "consent.denied",
  "url.minted",
  "url.redeemed",
  "api_key.created",
  "api_key.revoked",
  "sessions.ended",
  "account.connected",
  "account.upgraded",
  "account.reconnected",
  "account.disconnected",
  "account.needs_reconnect",
  "realm.imported",
  "realm.curated",
  "support.viewed",
  "audit.verified",
  "audit.exported",
  "oauth.authorized",
  "oauth.denied",
  "oauth.token_issued",
  "oauth.tokens_revoked",
] as const;
export type AuditEventName = (typeof auditEventNames)[number];

export type AuditPrincipal =
  | { type: "user"; userId: string }
  | { type: "actor"; actorId: string; grantorId: string }
  | { type: "system" };

export type AuditInput = {
  tenantId: string;
  event: AuditEventName;
  principal: AuditPrincipal;
  requestId?: string | null;
  namespace?: string | null;
  operation?: string | null;
  ref?: string | null;
  /** allow / deny for decisions; ok / error for changes and effects. */
  outcome: "allow" | "deny" | "ok" | "error";
  gate?: "one" | "two" | null;
  reason?: string | null;
  /** The thing acted on: a grant id, actor id, token id… (timelines are built on it). */
  subjectId?: string | null;
  details?: Record<string, unknown>;
  at?: Date;
};

export const GENESIS_HASH = "0".repeat(64);

/** The fields that are hashed, in a fixed shape (the row minus `hash`). */
export function hashedPayload(row: Omit<typeof auditEvents.$inferSelect, "hash">): string {
  return canonicalJson({
    tenant_id: row.tenantId,
    seq: row.seq,
    id: row.id,
    at: row.at.toISOString(),
    event: row.event,
    request_id: row.requestId,
    principal_type: row.principalType,
    user_id: row.userId,
    actor_id: row.actorId,
    namespace: row.namespace,
    operation: row.operation,
    ref: row.ref,
    outcome: row.outcome,
    gate: row.gate,
    reason: row.reason,
    subject_id: row.subjectId,
    details: row.details,
    prev_hash: row.prevHash,
  });
}

export const linkHash = (row: Omit<typeof auditEvents.$inferSelect, "hash">) =>
  createHash("sha256").update(hashedPayload(row), "utf8").digest("hex");

export async function recordAudit(tx: Executor, input: AuditInput): Promise<{ id: string; seq: number }> {
  // Lock the tenant's chain head for the rest of the transaction: writers queue, the chain never forks.
  await tx.insert(auditHeads).values({ tenantId: input.tenantId, seq: 0, hash: GENESIS_HASH }).onConflictDoNothing();
  const [head] = await tx.select().from(auditHeads).where(eq(auditHeads.tenantId, input.tenantId)).for("update");
  const p = input.principal;
  const row = {
    tenantId: input.tenantId,
    seq: head!.seq + 1,
    id: newId("evt"),
    // Millisecond precision survives the round trip through timestamptz, so the hash can be recomputed.
    at: new Date(Math.floor((input.at ?? new Date()).getTime())),
    event: input.event,
    requestId: input.requestId ?? null,
    principalType: p.type,
    userId: p.type === "user" ? p.userId : p.type === "actor" ? p.grantorId : null,
    actorId: p.type === "actor" ? p.actorId : null,
    namespace: input.namespace ?? null,
    operation: input.operation ?? null,
    ref: input.ref ?? null,
    outcome: input.outcome,
    gate: input.gate ?? null,
    reason: input.reason ?? null,
    subjectId: input.subjectId ?? null,
    details: normaliseDetails(input.details ?? {}),
    prevHash: head!.hash,
  };
  const hash = linkHash(row);
  await tx.insert(auditEvents).values({ ...row, hash });
  await tx.update(auditHeads).set({ seq: row.seq, hash }).where(eq(auditHeads.tenantId, input.tenantId));
  return { id: row.id, seq: row.seq };
}

/** Details go through JSON once so what is hashed is exactly what jsonb gives back. */
function normaliseDetails(d: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(d));
}

export const auditCount = (tx: Executor, tenantId: string) =>
  tx.select({ n: sql<number>`count(*)::int` }).from(auditEvents).where(eq(auditEvents.tenantId, tenantId));

/** A person's change (grant, token, ceiling…): the common shape of most non-decision records. */
export function recordChange(
  tx: Executor,
  who: { tenantId: string; userId: string; requestId?: string | null },
  event: AuditEventName,
  fields: Omit<AuditInput, "tenantId" | "event" | "principal" | "requestId" | "outcome"> = {},
) {
  return recordAudit(tx, { ...fields, tenantId: who.tenantId, event, principal: { type: "user", userId: who.userId }, requestId: who.requestId ?? null, outcome: "ok" });
}
