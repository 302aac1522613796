// Recording audit events: one per decision and per change, written in the caller's transaction, chained to the
// tenant's previous event by an HMAC-SHA256 under the current audit key (lib/audit/chain.ts). A write here is
// never skipped: if it fails, the change fails.
import { eq, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { compiled } from "@/db/compiled";
import { commitWithNext } from "@/db/pipeline";
import { auditEvents } from "@/db/schema";
import { newId } from "@/lib/ids";
import { GENESIS_LINK, hashedPayload, linkHash, macOf } from "./chain";
import { auditKeyring } from "./keys";
import { CHECKPOINT_EVERY_RECORDS, nudgeCheckpoints } from "./nudge";

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
  "working_set.changed",
  "tenant.settings_changed",
  "consent.requested",
  "consent.approved",
  "consent.denied",
  "approval.requested",
  "approval.approved",
  "approval.denied",
  "approval.expired",
  "approval.consumed",
  "approval.voided",
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
  "remote_provider.token_minted",
  "remote_provider.registered",
  "remote_provider.manifest_changed",
  "remote_provider.unavailable",
  "remote_provider.available",
  "remote_provider.breaker_opened",
  "remote_provider.breaker_closed",
  "remote_provider.removed",
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

export const GENESIS_HASH = GENESIS_LINK;
export { hashedPayload, linkHash };

/** Lock and read the tenant's chain head (creating it at genesis the first time): built once (db/compiled.ts). */
const lockHead = compiled<"tenant" | "genesis", { seq: string | number; hash: string }>(
  (p) => sql`insert into "audit_heads" ("tenant_id", "seq", "hash") values (${p.tenant}, 0, ${p.genesis}) on conflict ("tenant_id") do update set "seq" = "audit_heads"."seq" returning "seq", "hash"`,
);

type AppendKey = "tenant" | "seq" | "id" | "at" | "event" | "request" | "principal" | "user" | "actor" | "namespace" | "operation" | "ref" | "outcome" | "gate" | "reason" | "subject" | "details" | "prev" | "hash" | "kid" | "mac";

/** Insert the record and move the head to it, in one statement: built once. */
const appendRecord = compiled<AppendKey>(
  (p) => sql`
    with ins as (
      insert into audit_events (tenant_id, seq, id, at, event, request_id, principal_type, user_id, actor_id, namespace, operation, ref, outcome, gate, reason, subject_id, details, prev_hash, hash, kid, mac)
      values (${p.tenant}, ${p.seq}, ${p.id}, ${p.at}::timestamptz, ${p.event}, ${p.request}, ${p.principal}, ${p.user}, ${p.actor}, ${p.namespace}, ${p.operation}, ${p.ref}, ${p.outcome}, ${p.gate}, ${p.reason}, ${p.subject}, ${p.details}::jsonb, ${p.prev}, ${p.hash}, ${p.kid}, ${p.mac})
      returning tenant_id, seq, mac
    )
    update audit_heads set seq = ins.seq, hash = ins.mac from ins where audit_heads.tenant_id = ins.tenant_id`,
);

/** `last`: the caller sends nothing more in the transaction, so COMMIT goes with the append (db/pipeline.ts). */
export type AppendOptions = { last?: boolean };

/**
 * Append one record to the tenant's chain, in the caller's transaction. Two statements: lock and read the
 * head (an upsert that returns it), then one statement that inserts the record and moves the head; the hash and
 * MAC are computed here in between (the key never leaves this process). Callers append last: the head stays
 * locked until COMMIT — which, with `last`, is sent with the append itself.
 */
export async function recordAudit(tx: Executor, input: AuditInput, opts: AppendOptions = {}): Promise<{ id: string; seq: number }> {
  const { current } = auditKeyring();
  // Lock and read the tenant's chain head in one statement, for the rest of the transaction: writers queue, the
  // chain never forks. The tenant's first record creates the head (a concurrent first writer waits on it); after
  // that the no-op update locks the row and returns it as it is.
  const [head] = await lockHead(tx, { tenant: input.tenantId, genesis: GENESIS_HASH });
  const p = input.principal;
  const row = {
    tenantId: input.tenantId,
    // A bigint: the driver gives it back as text.
    seq: Number(head!.seq) + 1,
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
  const mac = macOf(current.key, current.kid, row.tenantId, row.seq, row.prevHash, hash);
  if (opts.last) commitWithNext(tx);
  await appendRecord(tx, {
    tenant: row.tenantId, seq: row.seq, id: row.id, at: row.at.toISOString(), event: row.event, request: row.requestId,
    principal: row.principalType, user: row.userId, actor: row.actorId, namespace: row.namespace, operation: row.operation,
    ref: row.ref, outcome: row.outcome, gate: row.gate, reason: row.reason, subject: row.subjectId,
    details: JSON.stringify(row.details), prev: row.prevHash, hash, kid: current.kid, mac,
  });
  if (row.seq % CHECKPOINT_EVERY_RECORDS === 0) nudgeCheckpoints();
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
