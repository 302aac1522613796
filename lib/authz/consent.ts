// Consent requests: an actor's attempt that fails gate one for lack of a grant becomes a pending request the
// grantor sees in the hub; approving it creates exactly that grant, and the agent's retry succeeds. The realm's
// companion operations of what was asked are offered with it: the person may approve them in the same grant.
import { and, desc, eq, gt, isNull, lte, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { actors, consentRequests, users, type ConsentRequest, type ConsentRequestInput } from "@/db/schema";
import { recordAudit, recordChange } from "@/lib/audit/record";
import { canonicalJson } from "@/lib/canonical-json";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { companionsOf } from "@/lib/realms/companions";
import { describeRefsAs } from "@/lib/realms/names";
import { findRealm } from "@/lib/realms/registry";
import type { UserContext } from "./context";
import { createGrantTx, expiresAtFor, expiryChoices, type GrantView } from "./grants";

export const consentUrl = (id: string) => `${env().appUrl}/consent/${id}`;

/** The most of a call's input a consent request keeps, in bytes of canonical JSON. */
export const CONSENT_INPUT_MAX_BYTES = 8 * 1024;

/** What a request keeps of its call's input: the input itself when its canonical JSON fits, else a note of its size. */
export function boundedInput(input: Record<string, unknown> | undefined, max = CONSENT_INPUT_MAX_BYTES): ConsentRequestInput | null {
  if (!input) return null;
  const text = canonicalJson(input);
  const bytes = Buffer.byteLength(text, "utf8");
  return bytes <= max ? { value: JSON.parse(text) as Record<string, unknown> } : { too_large: true, bytes };
}

/**
 * Record (or refresh) the pending request for this distinct ask: actor × set of operation keys × target (or the
 * namespace) × the other refs the call named. A different target or operation set is a different request, so
 * what the person approves is what this very call asked. Expired requests are never reused.
 */
export async function recordConsentRequest(
  tx: Executor,
  input: {
    tenantId: string;
    actorId: string;
    grantorId: string;
    namespace: string;
    operations: string[];
    ref: string | null;
    namedRefs?: string[];
    /** The input of the call that asked (kept bounded; the page shows it as "the request that asked for this"). */
    callInput?: Record<string, unknown>;
    requestId: string;
    now?: Date;
  },
): Promise<{ id: string; created: boolean }> {
  const now = input.now ?? new Date();
  const callInput = boundedInput(input.callInput);
  const operations = [...new Set(input.operations)].sort();
  const namedRefs = [...new Set(input.namedRefs ?? [])].filter((r) => r !== input.ref).sort();
  // One statement: the live request for this very ask counted again (with the latest input), or a new one. Two
  // concurrent first asks may each make one, as two look-ups before two inserts would.
  const id = newId("ccr");
  const at = now.toISOString();
  const inputJson = callInput ? JSON.stringify(callInput) : null;
  const live = and(
    eq(consentRequests.tenantId, input.tenantId),
    eq(consentRequests.actorId, input.actorId),
    eq(consentRequests.namespace, input.namespace),
    eq(consentRequests.status, "pending"),
    input.ref === null ? isNull(consentRequests.ref) : eq(consentRequests.ref, input.ref),
    sql`${consentRequests.operations} = ${pgTextArray(operations)}`,
    sql`${consentRequests.namedRefs} = ${pgTextArray(namedRefs)}`,
    or(isNull(consentRequests.expiresAt), gt(consentRequests.expiresAt, now)),
  );
  const result = (await tx.execute(sql`
    with existing as (select ${consentRequests.id} as id from ${consentRequests} where ${live} limit 1),
    counted as (
      update consent_requests set attempts = attempts + 1, last_attempt_at = ${at}::timestamptz${inputJson === null ? sql`` : sql`, input = ${inputJson}::jsonb`}
      where id = (select id from existing)
      returning id),
    made as (
      insert into consent_requests (id, tenant_id, actor_id, grantor_id, namespace, operations, ref, named_refs, input, created_at, last_attempt_at, expires_at)
      select ${id}, ${input.tenantId}, ${input.actorId}, ${input.grantorId}, ${input.namespace}, ${pgTextArray(operations)}, ${input.ref}, ${pgTextArray(namedRefs)},
        ${inputJson}::jsonb, ${at}::timestamptz, ${at}::timestamptz, ${new Date(now.getTime() + env().REALMGATE_CONSENT_REQUEST_TTL).toISOString()}::timestamptz
      where not exists (select 1 from existing)
      returning id)
    select coalesce((select id from counted), (select id from made)) as id, exists (select 1 from made) as created`)) as unknown as { rows: { id: string; created: boolean }[] };
  const row = result.rows[0]!;
  if (!row.created) return { id: row.id, created: false };
  await recordAudit(tx, {
    tenantId: input.tenantId,
    event: "consent.requested",
    principal: { type: "actor", actorId: input.actorId, grantorId: input.grantorId },
    requestId: input.requestId,
    namespace: input.namespace,
    operation: operations.length === 1 ? operations[0] : null,
    ref: input.ref,
    outcome: "ok",
    subjectId: id,
    details: { operations, ...(namedRefs.length ? { named_refs: namedRefs } : {}) },
  });
  return { id, created: true };
}

/** A text[] literal as a bound parameter (never interpolated). */
const pgTextArray = (items: string[]) => (items.length ? sql`array[${sql.join(items.map((i) => sql`${i}`), sql`, `)}]::text[]` : sql`'{}'::text[]`);

/** What a person sees of a ref: its name when the realm can tell them, else the ref itself. */
export type NamedRef = { ref: string; label: string | null; summary: string | null; kind: string | null; visible: boolean };

export type ConsentRequestView = {
  id: string;
  /** `expired`: still pending in the database, but past its time; it can no longer be approved. */
  status: "pending" | "approved" | "denied" | "expired";
  namespace: string;
  operations: string[];
  ref: string | null;
  /** Other refs the call named (in its fields or payload): an approval "only for these items" covers them too. */
  named_refs: string[];
  /** The input of the (latest) call that asked, bounded; null when none was kept. */
  input: ConsentRequestInput | null;
  expires_at: string | null;
  attempts: number;
  created_at: string;
  last_attempt_at: string;
  decided_at: string | null;
  grant_id: string | null;
  actor: { id: string; name: string; kind: string; revoked: boolean };
  grantor: { id: string; name: string; email: string };
  url: string;
};

const statusOf = (r: ConsentRequest, now: Date): ConsentRequestView["status"] =>
  r.status === "pending" && r.expiresAt && r.expiresAt.getTime() <= now.getTime() ? "expired" : r.status;

async function views(db: Executor, rows: ConsentRequest[], now = new Date()): Promise<ConsentRequestView[]> {
  if (rows.length === 0) return [];
  const actorRows = await db.select().from(actors).where(sql`${actors.id} in ${rows.map((r) => r.actorId)}`);
  const userRows = await db.select().from(users).where(sql`${users.id} in ${rows.map((r) => r.grantorId)}`);
  return rows.map((r) => {
    const a = actorRows.find((x) => x.id === r.actorId)!;
    const u = userRows.find((x) => x.id === r.grantorId)!;
    return {
      id: r.id,
      status: statusOf(r, now),
      namespace: r.namespace,
      operations: r.operations,
      ref: r.ref,
      named_refs: r.namedRefs,
      input: r.input ?? null,
      expires_at: r.expiresAt?.toISOString() ?? null,
      attempts: r.attempts,
      created_at: r.createdAt.toISOString(),
      last_attempt_at: r.lastAttemptAt.toISOString(),
      decided_at: r.decidedAt?.toISOString() ?? null,
      grant_id: r.grantId,
      actor: { id: a.id, name: a.name, kind: a.kind, revoked: a.revokedAt !== null },
      grantor: { id: u.id, name: u.name, email: u.email },
      url: consentUrl(r.id),
    };
  });
}

type Who = Pick<UserContext, "tenantId" | "userId" | "role" | "requestId">;

export const listConsentQuery = z.strictObject({ status: z.enum(["pending", "approved", "denied", "expired", "all"]).default("pending") });

export async function listConsentRequests(db: Executor, who: Who, q: z.infer<typeof listConsentQuery>) {
  const now = new Date();
  const conds = [eq(consentRequests.tenantId, who.tenantId), eq(consentRequests.grantorId, who.userId)];
  const live = or(isNull(consentRequests.expiresAt), gt(consentRequests.expiresAt, now))!;
  if (q.status === "pending") conds.push(eq(consentRequests.status, "pending"), live);
  else if (q.status === "expired") conds.push(eq(consentRequests.status, "pending"), lte(consentRequests.expiresAt, now));
  else if (q.status !== "all") conds.push(eq(consentRequests.status, q.status));
  const rows = await db.select().from(consentRequests).where(and(...conds)).orderBy(desc(consentRequests.lastAttemptAt)).limit(200);
  return views(db, rows);
}

/** One request, for its grantor only (anyone else: not_found). */
export async function getConsentRequest(db: Executor, who: Pick<UserContext, "tenantId" | "userId">, id: string): Promise<ConsentRequestView> {
  const [row] = await db
    .select()
    .from(consentRequests)
    .where(and(eq(consentRequests.id, id), eq(consentRequests.tenantId, who.tenantId), eq(consentRequests.grantorId, who.userId)));
  if (!row) throw new AppError("not_found", "No such consent request.", { details: { consent_request_id: id } });
  return (await views(db, [row]))[0]!;
}

export const decideConsentBody = z.strictObject({
  decision: z.enum(["approve", "deny"]),
  expires: z.enum(expiryChoices).default("1d"),
  /** Approve only some of the operations asked for, and any of their companions (default: exactly those asked for). */
  operations: z.array(z.string().min(1).max(250)).min(1).max(500).optional(),
  /** Approve only for the item the agent named (and the other items its call named): `{refs: [...]}`. */
  scope_to_ref: z.boolean().default(false),
});

/** The request's refs as the deciding person reads them (describeRefs with their authority). */
export async function namedRefsOf(db: Executor, who: Pick<UserContext, "tenantId" | "userId">, req: Pick<ConsentRequestView, "namespace" | "ref" | "named_refs">): Promise<NamedRef[]> {
  const refs = [...(req.ref ? [req.ref] : []), ...req.named_refs];
  if (refs.length === 0) return [];
  const realm = await findRealm(db, who.tenantId, req.namespace);
  const described = realm ? await describeRefsAs(db, { tenantId: who.tenantId, userId: who.userId, realm, refs, appUrl: env().appUrl }) : {};
  return refs.map((ref) => {
    const d = described[ref] ?? null;
    return { ref, label: d?.label ?? null, summary: d?.summary ?? null, kind: d?.kind ?? null, visible: d !== null };
  });
}

/** The companions a request offers: the realm's companion operations of what was asked (none once the realm is gone). */
export async function offeredCompanions(db: Executor, tenantId: string, req: { namespace: string; operations: string[] }): Promise<string[]> {
  const realm = await findRealm(db, tenantId, req.namespace);
  return realm ? companionsOf(realm.manifest, req.operations) : [];
}

export async function decideConsentRequest(
  db: Db,
  who: Who,
  id: string,
  body: z.infer<typeof decideConsentBody>,
): Promise<{ request: ConsentRequestView; grant: GrantView | null }> {
  if (who.role === "support") throw new AppError("forbidden", "Support staff cannot approve consent requests.");
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(consentRequests)
      .where(and(eq(consentRequests.id, id), eq(consentRequests.tenantId, who.tenantId), eq(consentRequests.grantorId, who.userId)))
      .for("update");
    if (!row) throw new AppError("not_found", "No such consent request.", { details: { consent_request_id: id } });
    if (row.status !== "pending") throw new AppError("conflict", `This request was already ${row.status}.`, { details: { status: row.status } });
    const now = new Date();
    if (body.decision === "approve" && statusOf(row, now) === "expired") {
      throw new AppError("conflict", "This request expired before it was decided. If the agent still needs it, its next attempt asks again.", {
        details: { status: "expired", expired_at: row.expiresAt?.toISOString() ?? null },
      });
    }
    let grant: GrantView | null = null;
    if (body.decision === "approve") {
      const ops = [...new Set(body.operations ?? row.operations)];
      const beyond = ops.filter((o) => !row.operations.includes(o));
      const offered = new Set<string>([...row.operations, ...(beyond.length ? await offeredCompanions(tx, who.tenantId, row) : [])]);
      const extra = beyond.filter((o) => !offered.has(o));
      if (extra.length) {
        throw new AppError("invalid_input", "You can approve only operations the agent asked for and their companions.", { details: { not_requested: extra, offered: [...offered] } });
      }
      // Companions go along with what was asked; they are never approved instead of it.
      if (!ops.some((o) => row.operations.includes(o))) {
        throw new AppError("invalid_input", "Approve at least one of the operations the agent asked for (companions only go along with it); or deny the request.", {
          details: { asked: row.operations, given: ops },
        });
      }
      const refs = row.ref ? [row.ref, ...row.namedRefs] : [];
      // "Only these items": the grant validates them with the decider's own authority (an item they cannot see
      // cannot be approved as "only this item"; the refusal leaves the request pending).
      if (body.scope_to_ref && refs.length === 0) {
        throw new AppError("invalid_input", "The agent named no item, so there is none to limit the approval to.", { details: { field: "scope_to_ref" } });
      }
      grant = await createGrantTx(tx, who, {
        actorId: row.actorId,
        namespace: row.namespace,
        operations: ops,
        resourceScope: body.scope_to_ref ? { refs } : null,
        expiresAt: expiresAtFor(body.expires, now),
        consentRequestId: row.id,
      });
    }
    await tx
      .update(consentRequests)
      .set({ status: body.decision === "approve" ? "approved" : "denied", decidedAt: now, decidedBy: who.userId, grantId: grant?.id ?? null })
      .where(eq(consentRequests.id, id));
    // What the person saw, kept with the decision: the items' names as they read them (support reads these later
    // without reading the objects again; an item the person could not see is kept as not visible).
    const named = await namedRefsOf(tx, who, { namespace: row.namespace, ref: row.ref, named_refs: row.namedRefs });
    await recordChange(tx, who, body.decision === "approve" ? "consent.approved" : "consent.denied", {
      namespace: row.namespace,
      subjectId: row.id,
      details: {
        actor_id: row.actorId,
        operations: row.operations,
        ...(named.length ? { items: named.slice(0, 20).map((n) => ({ ref: n.ref, label: n.visible ? (n.label ?? null) : null, visible: n.visible })) } : {}),
        ...(grant && grant.operations.some((o) => !row.operations.includes(o)) ? { companions: grant.operations.filter((o) => !row.operations.includes(o)) } : {}),
        grant_id: grant?.id ?? null,
        expires: body.decision === "approve" ? body.expires : null,
      },
    });
    const [updated] = await tx.select().from(consentRequests).where(eq(consentRequests.id, id));
    return { request: (await views(tx, [updated!]))[0]!, grant };
  });
}
