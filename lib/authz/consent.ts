// Consent requests: an actor's attempt that fails gate one for lack of a grant becomes a pending request the
// grantor sees in the hub; approving it creates exactly that grant, and the agent's retry succeeds.
import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { actors, consentRequests, users, type ConsentRequest } from "@/db/schema";
import { recordAudit, recordChange } from "@/lib/audit/record";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { UserContext } from "./context";
import { createGrantTx, expiresAtFor, expiryChoices, type GrantView } from "./grants";

export const consentUrl = (id: string) => `${env().appUrl}/consent/${id}`;

/** Record (or refresh) the pending request for this actor × namespace × operation. */
export async function recordConsentRequest(
  tx: Executor,
  input: { tenantId: string; actorId: string; grantorId: string; namespace: string; operation: string; ref: string | null; requestId: string },
): Promise<{ id: string; created: boolean }> {
  const [existing] = await tx
    .select({ id: consentRequests.id })
    .from(consentRequests)
    .where(
      and(
        eq(consentRequests.tenantId, input.tenantId),
        eq(consentRequests.actorId, input.actorId),
        eq(consentRequests.namespace, input.namespace),
        eq(consentRequests.status, "pending"),
        sql`${consentRequests.operations} = array[${input.operation}]::text[]`,
      ),
    )
    .limit(1);
  if (existing) {
    await tx
      .update(consentRequests)
      .set({ attempts: sql`${consentRequests.attempts} + 1`, lastAttemptAt: new Date() })
      .where(eq(consentRequests.id, existing.id));
    return { id: existing.id, created: false };
  }
  const id = newId("ccr");
  await tx.insert(consentRequests).values({
    id,
    tenantId: input.tenantId,
    actorId: input.actorId,
    grantorId: input.grantorId,
    namespace: input.namespace,
    operations: [input.operation],
    ref: input.ref,
  });
  await recordAudit(tx, {
    tenantId: input.tenantId,
    event: "consent.requested",
    principal: { type: "actor", actorId: input.actorId, grantorId: input.grantorId },
    requestId: input.requestId,
    namespace: input.namespace,
    operation: input.operation,
    ref: input.ref,
    outcome: "ok",
    subjectId: id,
  });
  return { id, created: true };
}

export type ConsentRequestView = {
  id: string;
  status: string;
  namespace: string;
  operations: string[];
  ref: string | null;
  attempts: number;
  created_at: string;
  last_attempt_at: string;
  decided_at: string | null;
  grant_id: string | null;
  actor: { id: string; name: string; kind: string; revoked: boolean };
  grantor: { id: string; name: string; email: string };
  url: string;
};

async function views(db: Executor, rows: ConsentRequest[]): Promise<ConsentRequestView[]> {
  if (rows.length === 0) return [];
  const actorRows = await db.select().from(actors).where(sql`${actors.id} in ${rows.map((r) => r.actorId)}`);
  const userRows = await db.select().from(users).where(sql`${users.id} in ${rows.map((r) => r.grantorId)}`);
  return rows.map((r) => {
    const a = actorRows.find((x) => x.id === r.actorId)!;
    const u = userRows.find((x) => x.id === r.grantorId)!;
    return {
      id: r.id,
      status: r.status,
      namespace: r.namespace,
      operations: r.operations,
      ref: r.ref,
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

export const listConsentQuery = z.strictObject({ status: z.enum(["pending", "approved", "denied", "all"]).default("pending") });

export async function listConsentRequests(db: Executor, who: Who, q: z.infer<typeof listConsentQuery>) {
  const conds = [eq(consentRequests.tenantId, who.tenantId), eq(consentRequests.grantorId, who.userId)];
  if (q.status !== "all") conds.push(eq(consentRequests.status, q.status));
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
  /** Approve only some of the operations asked for (default: all of them). */
  operations: z.array(z.string().min(1).max(250)).min(1).max(500).optional(),
  /** Narrow the approval to the ref the agent named. */
  scope_to_ref: z.boolean().default(false),
});

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
    let grant: GrantView | null = null;
    if (body.decision === "approve") {
      const ops = body.operations ?? row.operations;
      const extra = ops.filter((o) => !row.operations.includes(o));
      if (extra.length) throw new AppError("invalid_input", "You can approve only operations the agent asked for.", { details: { not_requested: extra } });
      grant = await createGrantTx(tx, who, {
        actorId: row.actorId,
        namespace: row.namespace,
        operations: ops,
        resourceScope: body.scope_to_ref && row.ref ? { ref_prefix: row.ref } : null,
        expiresAt: expiresAtFor(body.expires, now),
        consentRequestId: row.id,
      });
    }
    await tx
      .update(consentRequests)
      .set({ status: body.decision === "approve" ? "approved" : "denied", decidedAt: now, decidedBy: who.userId, grantId: grant?.id ?? null })
      .where(eq(consentRequests.id, id));
    await recordChange(tx, who, body.decision === "approve" ? "consent.approved" : "consent.denied", {
      namespace: row.namespace,
      subjectId: row.id,
      details: { actor_id: row.actorId, operations: row.operations, grant_id: grant?.id ?? null, expires: body.decision === "approve" ? body.expires : null },
    });
    const [updated] = await tx.select().from(consentRequests).where(eq(consentRequests.id, id));
    return { request: (await views(tx, [updated!]))[0]!, grant };
  });
}
