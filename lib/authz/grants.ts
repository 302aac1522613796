// Grants: actor × grantor × namespace × exact operation keys × optional resource scope × expiry.
// Only the actor's own grantor creates them; the grantor or a tenant owner revokes them, with a reason.
import { and, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { actors, grants, type Grant, type ResourceScope } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { isOperationKey, operationKeysOf } from "@/lib/realms/contract";
import { requireRealm } from "@/lib/realms/registry";
import type { UserContext } from "./context";

export const expiryChoices = ["1h", "1d", "30d", "never"] as const;
export type ExpiryChoice = (typeof expiryChoices)[number];
const EXPIRY_MS: Record<ExpiryChoice, number | null> = { "1h": 3_600_000, "1d": 86_400_000, "30d": 30 * 86_400_000, never: null };
export const expiresAtFor = (choice: ExpiryChoice, now: Date) => (EXPIRY_MS[choice] === null ? null : new Date(now.getTime() + EXPIRY_MS[choice]!));

export const resourceScopeSchema = z
  .strictObject({
    ref_prefix: z.string().min(3).max(512).regex(/^[a-z][a-z0-9_]*:[\x21-\x7e]*$/).optional(),
    account_id: z.string().min(1).max(64).optional(),
  })
  .refine((s) => s.ref_prefix || s.account_id, "a resource scope names a ref_prefix or an account_id");

export const createGrantBody = z.strictObject({
  actor_id: z.string().min(1).max(64),
  namespace: z.string().min(1).max(64),
  operations: z.array(z.string().min(1).max(250)).min(1).max(500),
  resource_scope: resourceScopeSchema.nullable().default(null),
  expires: z.enum(expiryChoices).default("30d"),
});

export const WILDCARD_ACTIONS = "object.action.*";

export type GrantView = {
  id: string;
  actor_id: string;
  grantor_id: string;
  namespace: string;
  operations: string[];
  resource_scope: ResourceScope | null;
  expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  revoke_reason: string | null;
  status: "live" | "expired" | "revoked";
};

export function grantView(g: Grant, now = new Date()): GrantView {
  return {
    id: g.id,
    actor_id: g.actorId,
    grantor_id: g.grantorId,
    namespace: g.namespace,
    operations: g.operations,
    resource_scope: g.resourceScope ?? null,
    expires_at: g.expiresAt?.toISOString() ?? null,
    created_at: g.createdAt.toISOString(),
    revoked_at: g.revokedAt?.toISOString() ?? null,
    revoked_by: g.revokedBy ?? null,
    revoke_reason: g.revokeReason ?? null,
    status: g.revokedAt ? "revoked" : g.expiresAt && now >= g.expiresAt ? "expired" : "live",
  };
}

/** Operation keys must be the realm's own, exactly; `object.action.*` only when written so. */
export async function validateGrantOperations(db: Executor, tenantId: string, namespace: string, ops: string[]) {
  const realm = await requireRealm(db, tenantId, namespace);
  const known = new Set<string>(operationKeysOf(realm.manifest));
  const unknown = ops.filter((o) => o !== WILDCARD_ACTIONS && (!isOperationKey(o) || !known.has(o)));
  if (unknown.length) {
    throw new AppError("invalid_input", `Not operations of ${namespace}: ${unknown.slice(0, 5).map((u) => JSON.stringify(u)).join(", ")}.`, {
      details: { namespace, unknown: unknown.slice(0, 50), known: [...known].slice(0, 200) },
    });
  }
  return [...new Set(ops)];
}

type Who = Pick<UserContext, "tenantId" | "userId" | "role" | "requestId">;

export async function createGrantTx(
  tx: Executor,
  who: Who,
  input: { actorId: string; namespace: string; operations: string[]; resourceScope: ResourceScope | null; expiresAt: Date | null; consentRequestId?: string },
): Promise<GrantView> {
  if (who.role === "support") throw new AppError("forbidden", "Support staff review grants; they cannot create them.");
  const [actor] = await tx.select().from(actors).where(and(eq(actors.id, input.actorId), eq(actors.tenantId, who.tenantId), eq(actors.grantorId, who.userId)));
  if (!actor) throw new AppError("not_found", "No such actor of yours.", { details: { actor_id: input.actorId } });
  if (actor.revokedAt) throw new AppError("conflict", "This actor is revoked; it can receive no grants.");
  const operations = await validateGrantOperations(tx, who.tenantId, input.namespace, input.operations);
  const [row] = await tx
    .insert(grants)
    .values({
      id: newId("grt"),
      tenantId: who.tenantId,
      actorId: actor.id,
      grantorId: who.userId,
      namespace: input.namespace,
      operations,
      resourceScope: input.resourceScope,
      expiresAt: input.expiresAt,
      consentRequestId: input.consentRequestId ?? null,
    })
    .returning();
  await recordChange(tx, who, "grant.created", {
    namespace: input.namespace,
    subjectId: row!.id,
    details: { actor_id: actor.id, operations, resource_scope: input.resourceScope, expires_at: input.expiresAt?.toISOString() ?? null },
  });
  return grantView(row!);
}

export async function createGrant(db: Db, who: Who, body: z.infer<typeof createGrantBody>): Promise<GrantView> {
  return db.transaction((tx) =>
    createGrantTx(tx, who, {
      actorId: body.actor_id,
      namespace: body.namespace,
      operations: body.operations,
      resourceScope: body.resource_scope,
      expiresAt: expiresAtFor(body.expires, new Date()),
    }),
  );
}

export const listGrantsQuery = z.strictObject({
  actor_id: z.string().max(64).optional(),
  status: z.enum(["live", "expired", "revoked", "all"]).default("all"),
  scope: z.enum(["mine", "tenant"]).default("mine"),
});

/** Members see the grants they gave; owners and support may ask for the whole tenant. */
export async function listGrants(db: Executor, who: Who, q: z.infer<typeof listGrantsQuery>): Promise<GrantView[]> {
  if (q.scope === "tenant" && who.role === "member") throw new AppError("forbidden", "Only owners and support may list the whole tenant's grants.");
  const conds = [eq(grants.tenantId, who.tenantId)];
  if (q.scope === "mine") conds.push(eq(grants.grantorId, who.userId));
  if (q.actor_id) conds.push(eq(grants.actorId, q.actor_id));
  const now = new Date();
  const rows = await db.select().from(grants).where(and(...conds)).orderBy(desc(grants.createdAt)).limit(1000);
  return rows.map((g) => grantView(g, now)).filter((g) => q.status === "all" || g.status === q.status);
}

/** The grantor, or a tenant owner, revokes; the very next call of the actor is refused. */
export async function revokeGrant(db: Db, who: Who, grantId: string, reason: string): Promise<GrantView> {
  if (who.role === "support") throw new AppError("forbidden", "Support staff review revocations; they do not revoke.");
  return db.transaction(async (tx) => {
    const [g] = await tx.select().from(grants).where(and(eq(grants.id, grantId), eq(grants.tenantId, who.tenantId))).for("update");
    if (!g || (g.grantorId !== who.userId && who.role !== "owner")) throw new AppError("not_found", "No such grant.", { details: { grant_id: grantId } });
    if (g.revokedAt) return grantView(g);
    const [row] = await tx
      .update(grants)
      .set({ revokedAt: new Date(), revokedBy: who.userId, revokeReason: reason })
      .where(and(eq(grants.id, grantId), isNull(grants.revokedAt)))
      .returning();
    await recordChange(tx, who, "grant.revoked", {
      namespace: g.namespace,
      subjectId: g.id,
      reason,
      details: { actor_id: g.actorId, operations: g.operations },
    });
    return grantView(row!);
  });
}
