// Recording audit events: one per decision and per change, written in the caller's transaction, chained to the
// previous event of the tenant's lane it takes by an HMAC-SHA256 under the current audit key (lib/audit/chain.ts).
// A write here is never skipped: if it fails, the change fails.
//
// Lanes: a tenant's trail is a few chains. A writer takes the lowest lane no open transaction holds (`SKIP
// LOCKED`), and holds it until COMMIT; when every lane is held it opens the next one (up to MAX_LANES), so one busy
// tenant's concurrent calls append side by side instead of queueing on one head row. A tenant's lanes grow to the
// number of its transactions that were ever appending at the same moment, and stay; lane 0 is its chain from
// before lanes. Records of all lanes are ordered by `pos` (appendRecord, settledPos).
import { eq, sql } from "drizzle-orm";
import { ADVISORY_LOCKS } from "@/db/advisory-locks";
import type { Db, Executor } from "@/db/client";
import { compiled } from "@/db/compiled";
import { commitWithNext } from "@/db/pipeline";
import { auditEvents } from "@/db/schema";
import { AppError } from "@/lib/errors";
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

/**
 * At most this many lanes per tenant. A writer that finds every one held is answered 503 `service_unavailable`
 * (retry in a second) rather than made to wait: waiting for a lane, after a call's effect has taken its row locks,
 * could close a cycle with a call that holds that lane and waits for those rows. A tenant reaches it only with this
 * many transactions writing its trail at the same moment (an app node holds at most 10).
 */
export const MAX_LANES = 256;

export type LaneHead = { lane: number; seq: string | number; hash: string };

/**
 * Take a lane: lock the lowest of the tenant's lanes that no open transaction holds and read its head; when all
 * are held (or the tenant has none yet), open a new lane at genesis, locked by this insert. A new lane's number is
 * the lowest past the lanes this statement sees whose transaction-scoped advisory lock it gets: a writer opening a
 * lane holds that lock until COMMIT, so two writers never insert the same lane, and neither waits for the other's
 * uncommitted insert. No row comes back when every lane is held and MAX_LANES are open, or when a lane committed
 * meanwhile took the number (a retry then finds it). Built once (db/compiled.ts).
 */
const takeLane = compiled<"tenant" | "genesis" | "max", LaneHead>(
  (p) => sql`
    with free as (
      select "lane", "seq", "hash" from "audit_heads" where "tenant_id" = ${p.tenant} order by "lane" limit 1 for update skip locked
    ), next as (
      select l as "lane" from generate_series((select coalesce(max("lane") + 1, 0) from "audit_heads" where "tenant_id" = ${p.tenant}), ${p.max}::int - 1) l
      where case when exists (select 1 from free) then false else pg_try_advisory_xact_lock(hashtextextended('realmgate-audit-lane/' || ${p.tenant} || '/' || l, 0)) end
      limit 1
    ), made as (
      insert into "audit_heads" ("tenant_id", "lane", "seq", "hash")
      select ${p.tenant}, next."lane", 0, ${p.genesis} from next
      on conflict do nothing
      returning "lane", "seq", "hash"
    )
    select "lane", "seq", "hash" from free union all select "lane", "seq", "hash" from made`,
);

/**
 * Taking a lane ahead of the first record, in a statement the caller sends anyway (gate one's, which knows the
 * tenant only from the token it reads): the CTE `audit_lane` locks the lowest of the tenant's lanes no open
 * transaction holds, and `laneColumn` returns its head (null when none is free: the record then takes one itself).
 * The caller hands the head to `leaseLane`; the transaction's first record uses it and sends one statement fewer.
 */
export const laneCte = (tenant: unknown) => sql`audit_lane as (select "lane", "seq", "hash" from "audit_heads" where "tenant_id" = ${tenant} order by "lane" limit 1 for update skip locked)`;
export const laneColumn = sql`(select jsonb_build_object('lane', l."lane", 'seq', l."seq", 'hash', l."hash") from audit_lane l) as audit_lane`;

/** A lane locked ahead of the first record, and how many records had been appended on the connection then. */
type Lease = { tenantId: string; head: LaneHead; appends: number };
const leases = new WeakMap<object, Lease>();
/** Records appended per connection: a lease is good only if none was appended since (in a savepoint too). */
const appendsOn = new WeakMap<object, number>();
const connectionOf = (tx: Executor): object => (tx as unknown as { session?: { client?: object } }).session?.client ?? tx;

/** Hand the head `laneColumn` read (locked in `tx`, the transaction's top level) to the transaction's first record. */
export function leaseLane(tx: Executor, tenantId: string, head: unknown): void {
  const h = head as LaneHead | null;
  if (!h || typeof h.hash !== "string") return;
  leases.set(tx, { tenantId, head: { lane: Number(h.lane), seq: Number(h.seq), hash: h.hash }, appends: appendsOn.get(connectionOf(tx)) ?? 0 });
}

/** The lane leased for this record, if it is still exactly as read: nothing appended on the connection since. */
function leased(tx: Executor, tenantId: string): LaneHead | null {
  const lease = leases.get(tx);
  if (!lease) return null;
  leases.delete(tx);
  return lease.tenantId === tenantId && lease.appends === (appendsOn.get(connectionOf(tx)) ?? 0) ? lease.head : null;
}

async function laneFor(tx: Executor, tenantId: string): Promise<LaneHead> {
  // A lane committed meanwhile with the number this writer meant to open: it gets no row and looks again (the lane
  // is then taken or free). Nothing after three looks: every lane is held and no more may be opened.
  for (let attempt = 0; attempt < 3; attempt++) {
    const [head] = await takeLane(tx, { tenant: tenantId, genesis: GENESIS_HASH, max: MAX_LANES });
    if (head) return head;
  }
  throw new AppError("service_unavailable", `The audit trail of this workspace has ${MAX_LANES} writers at once; retry in a second.`, {
    headers: { "Retry-After": "1" },
    details: { reason: "audit_lanes_busy", retry_after_seconds: 1, retry_hint: "retry_later" },
  });
}

type AppendKey = "tenant" | "lane" | "seq" | "id" | "at" | "event" | "request" | "principal" | "user" | "actor" | "namespace" | "operation" | "ref" | "outcome" | "gate" | "reason" | "subject" | "details" | "prev" | "hash" | "kid" | "mac";

/**
 * The first key of the tenant's numbering turn: a transaction takes it shared before its first record draws its
 * `pos` and holds it to COMMIT; a reader that pages by `pos` takes it alone for a moment first (`settledPos`).
 */
const NUMBERING_CLASS = ADVISORY_LOCKS.auditNumbering;

/**
 * Insert the record and move its lane's head to it, in one statement: built once. Its `pos` is drawn from the
 * sequence only once the statement holds the tenant's numbering turn (shared: writers never wait for each other).
 */
const appendRecord = compiled<AppendKey>(
  (p) => sql`
    with turn as (
      select pg_advisory_xact_lock_shared(${sql.raw(String(NUMBERING_CLASS))}, hashtext(${p.tenant}))
    ), num as (
      select nextval('audit_events_pos_seq') as pos from turn
    ), ins as (
      insert into audit_events (tenant_id, lane, seq, pos, id, at, event, request_id, principal_type, user_id, actor_id, namespace, operation, ref, outcome, gate, reason, subject_id, details, prev_hash, hash, kid, mac)
      values (${p.tenant}, ${p.lane}::int, ${p.seq}, (select pos from num), ${p.id}, ${p.at}::timestamptz, ${p.event}, ${p.request}, ${p.principal}, ${p.user}, ${p.actor}, ${p.namespace}, ${p.operation}, ${p.ref}, ${p.outcome}, ${p.gate}, ${p.reason}, ${p.subject}, ${p.details}::jsonb, ${p.prev}, ${p.hash}, ${p.kid}, ${p.mac})
      returning tenant_id, lane, seq, mac
    )
    update audit_heads set seq = ins.seq, hash = ins.mac from ins where audit_heads.tenant_id = ins.tenant_id and audit_heads.lane = ins.lane`,
);

/** `last`: the caller sends nothing more in the transaction, so COMMIT goes with the append (db/pipeline.ts). */
export type AppendOptions = { last?: boolean };

/**
 * Append one record to one of the tenant's lanes, in the caller's transaction. Two statements: take a lane (lock
 * and read its head; none when the transaction leased one ahead, `leaseLane`), then one statement that inserts the
 * record and moves that head; the hash and MAC are computed here in between (the key never leaves this process).
 * Callers append last: the lane stays locked until COMMIT — which, with `last`, is sent with the append itself.
 */
export async function recordAudit(tx: Executor, input: AuditInput, opts: AppendOptions = {}): Promise<{ id: string; lane: number; seq: number }> {
  // The lane is locked for the rest of the transaction: that lane's writers queue and it never forks, while other
  // writers of the tenant take other lanes. A second record in the same transaction may take the same lane (its
  // own lock does not stop it) and reads the head as the first one moved it.
  return appendOnLane(tx, leased(tx, input.tenantId) ?? (await laneFor(tx, input.tenantId)), input, opts);
}

/** Append after `head`, the head of a lane this transaction has locked (recordAudit; tests that write a given lane). */
export async function appendOnLane(tx: Executor, head: LaneHead, input: AuditInput, opts: AppendOptions = {}): Promise<{ id: string; lane: number; seq: number }> {
  const { current } = auditKeyring();
  const p = input.principal;
  const row = {
    tenantId: input.tenantId,
    lane: Number(head.lane),
    // A bigint: the driver gives it back as text.
    seq: Number(head.seq) + 1,
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
    prevHash: head.hash,
  };
  const hash = linkHash(row);
  const mac = macOf(current.key, current.kid, row.tenantId, row.lane, row.seq, row.prevHash, hash);
  if (opts.last) commitWithNext(tx);
  await appendRecord(tx, {
    tenant: row.tenantId, lane: row.lane, seq: row.seq, id: row.id, at: row.at.toISOString(), event: row.event, request: row.requestId,
    principal: row.principalType, user: row.userId, actor: row.actorId, namespace: row.namespace, operation: row.operation,
    ref: row.ref, outcome: row.outcome, gate: row.gate, reason: row.reason, subject: row.subjectId,
    details: JSON.stringify(row.details), prev: row.prevHash, hash, kid: current.kid, mac,
  });
  const connection = connectionOf(tx);
  appendsOn.set(connection, (appendsOn.get(connection) ?? 0) + 1);
  if (row.seq % CHECKPOINT_EVERY_RECORDS === 0) nudgeCheckpoints();
  return { id: row.id, lane: row.lane, seq: row.seq };
}

/**
 * How far a tenant's trail may be read by `pos` with no gap that can fill later: every record numbered up to the
 * returned `pos` has committed or rolled back. `pos` is drawn when a record is appended, not when it commits, so a
 * record numbered before a page's last one but committed after the page was read would appear below a page a reader
 * had already passed (an attack paging newest first while denials wrote two records per transaction missed 83 records
 * in 184 pages). So, in a transaction of its own, this takes the tenant's numbering turn alone — waiting for the
 * transactions holding it shared, whose records are numbered but not yet committed — reads how far the sequence has
 * gone, and lets go: writers wait behind it only for that moment (advisory locks are granted in order), never for a
 * reader's page. A page then reads `pos <=` the answer.
 */
export async function settledPos(db: Db, tenantId: string): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${sql.raw(String(NUMBERING_CLASS))}, hashtext(${tenantId}))`);
    const r = (await tx.execute(sql`select last_value, is_called from audit_events_pos_seq`)) as unknown as { rows: { last_value: string | number; is_called: boolean }[] };
    const { last_value, is_called } = r.rows[0]!;
    return is_called ? Number(last_value) : Number(last_value) - 1;
  });
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
