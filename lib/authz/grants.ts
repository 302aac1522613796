// Grants: actor × grantor × namespace × exact operation keys × optional resource scope × expiry.
// Only the actor's own grantor creates them; the grantor or a tenant owner revokes them, with a reason.
import { and, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { actors, connectedAccounts, grants, type Grant, type GrantSuspension, type ResourceScope } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import { env } from "@/lib/env";
import { AppError, isAppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { isOperationKey, operationKeysOf, type Realm } from "@/lib/realms/contract";
import { describeRefsAs } from "@/lib/realms/names";
import { requireRealm } from "@/lib/realms/registry";
import type { UserContext } from "./context";
import { takeTurnsOf } from "./grant-turns";

export const expiryChoices = ["1h", "1d", "30d", "never"] as const;
export type ExpiryChoice = (typeof expiryChoices)[number];
const EXPIRY_MS: Record<ExpiryChoice, number | null> = { "1h": 3_600_000, "1d": 86_400_000, "30d": 30 * 86_400_000, never: null };
export const expiresAtFor = (choice: ExpiryChoice, now: Date) => (EXPIRY_MS[choice] === null ? null : new Date(now.getTime() + EXPIRY_MS[choice]!));

/** A scope names objects: exact refs (and what they contain), or one connected account of the grantor. */
export const resourceScopeSchema = z.union([
  z.strictObject({ refs: z.array(z.string().min(1).max(512)).min(1).max(100) }),
  z.strictObject({ account_id: z.string().min(1).max(64) }),
]);

/** How "every action" is spelled in a request's operation list; stored as the grant's `all_actions` flag. */
export const ALL_ACTIONS = "object.action.*";

export const createGrantBody = z
  .strictObject({
    actor_id: z.string().min(1).max(64),
    namespace: z.string().min(1).max(64),
    operations: z.array(z.string().min(1).max(250)).max(500).default([]),
    /** Every action of the realm, except those only an exact grant covers. */
    all_actions: z.boolean().default(false),
    resource_scope: resourceScopeSchema.nullable().default(null),
    expires: z.enum(expiryChoices).default("30d"),
  })
  .refine((b) => b.operations.length > 0 || b.all_actions, { message: "name at least one operation, or all_actions", path: ["operations"] });

export type GrantView = {
  id: string;
  actor_id: string;
  grantor_id: string;
  namespace: string;
  operations: string[];
  all_actions: boolean;
  resource_scope: ResourceScope | null;
  /** Operations suspended because their meaning changed (approve them again to resume). */
  suspended: { operation: string; change: string; at: string }[];
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
    all_actions: g.allActions,
    resource_scope: g.resourceScope ?? null,
    suspended: Object.entries(g.suspensions ?? {}).map(([operation, v]: [string, GrantSuspension]) => ({ operation, change: v.change, at: v.at })),
    expires_at: g.expiresAt?.toISOString() ?? null,
    created_at: g.createdAt.toISOString(),
    revoked_at: g.revokedAt?.toISOString() ?? null,
    revoked_by: g.revokedBy ?? null,
    revoke_reason: g.revokeReason ?? null,
    status: g.revokedAt ? "revoked" : g.expiresAt && now >= g.expiresAt ? "expired" : "live",
  };
}

/**
 * Operation keys must be the realm's own, exactly. `object.action.*` in a list is read as "every action" and
 * becomes the flag (no action can be named `*`); it never stays in the list.
 */
export function checkOperations(realm: Realm, ops: string[]): { operations: string[]; allActions: boolean } {
  const { namespace } = realm.manifest;
  const known = new Set<string>(operationKeysOf(realm.manifest));
  const exact = ops.filter((o) => o !== ALL_ACTIONS);
  const unknown = exact.filter((o) => !isOperationKey(o) || !known.has(o));
  if (unknown.length) {
    throw new AppError("invalid_input", `Not operations of ${namespace}: ${unknown.slice(0, 5).map((u) => JSON.stringify(u)).join(", ")}.`, {
      details: { namespace, unknown: unknown.slice(0, 50), known: [...known].slice(0, 200) },
    });
  }
  return { operations: [...new Set(exact)], allActions: exact.length !== ops.length };
}

/**
 * A scope must name real objects of this realm: each ref parses (syntax, no I/O), or the account exists, is the
 * grantor's own and not disconnected, and the realm acts through accounts of its kind.
 */
export async function validateResourceScope(db: Executor, who: { tenantId: string }, grantorId: string, realm: Realm, scope: ResourceScope | null): Promise<ResourceScope | null> {
  if (!scope) return null;
  const { namespace } = realm.manifest;
  if (scope.refs) {
    const refs = [...new Set(scope.refs)];
    for (const ref of refs) {
      try {
        if (!ref.startsWith(`${namespace}:`)) throw new AppError("invalid_ref", `Not a ref of ${namespace}.`);
        realm.adapter.parseRef(ref);
      } catch (err) {
        if (!isAppError(err)) throw err;
        throw new AppError("invalid_ref", `A scope names whole objects of ${namespace}: ${JSON.stringify(ref.slice(0, 80))} is not one (${err.message}).`, {
          details: { namespace, ref: ref.slice(0, 120), field: "resource_scope.refs" },
        });
      }
    }
    // A person scopes an agent only to what they can see themselves (resolved with their own authority).
    const seen = await describeRefsAs(db, { tenantId: who.tenantId, userId: grantorId, realm, refs, appUrl: env().appUrl });
    const hidden = refs.filter((r) => !seen[r]);
    if (hidden.length) {
      throw new AppError("not_found", `You cannot see ${hidden[0]!.slice(0, 80)}${hidden.length > 1 ? ` (and ${hidden.length - 1} more)` : ""}, so you cannot scope a grant to it.`, {
        details: { namespace, refs: hidden.slice(0, 20), field: "resource_scope.refs" },
      });
    }
    return { refs };
  }
  const api = realm.manifest.connection?.api;
  if (!api) {
    throw new AppError("invalid_input", `${namespace} does not act through connected accounts, so a grant there cannot be scoped to one.`, {
      details: { namespace, field: "resource_scope.account_id" },
    });
  }
  const [account] = await db
    .select({ id: connectedAccounts.id, api: connectedAccounts.api, status: connectedAccounts.status })
    .from(connectedAccounts)
    .where(and(eq(connectedAccounts.id, scope.account_id), eq(connectedAccounts.tenantId, who.tenantId), eq(connectedAccounts.userId, grantorId)));
  if (!account || account.status === "revoked" || account.api !== api) {
    throw new AppError("invalid_input", `No connected account of yours with id ${JSON.stringify(scope.account_id.slice(0, 64))} for ${namespace}.`, {
      details: { namespace, field: "resource_scope.account_id", account_id: scope.account_id.slice(0, 64) },
    });
  }
  return { account_id: account.id };
}

type Who = Pick<UserContext, "tenantId" | "userId" | "role" | "requestId">;

export async function createGrantTx(
  tx: Executor,
  who: Who,
  input: {
    actorId: string;
    namespace: string;
    operations: string[];
    allActions?: boolean;
    resourceScope: ResourceScope | null;
    expiresAt: Date | null;
    consentRequestId?: string;
  },
): Promise<GrantView> {
  if (who.role === "support") throw new AppError("forbidden", "Support staff review grants; they cannot create them.");
  const [actor] = await tx.select().from(actors).where(and(eq(actors.id, input.actorId), eq(actors.tenantId, who.tenantId), eq(actors.grantorId, who.userId)));
  if (!actor) throw new AppError("not_found", "No such actor of yours.", { details: { actor_id: input.actorId } });
  if (actor.revokedAt) throw new AppError("conflict", "This actor is revoked; it can receive no grants.");
  const realm = await requireRealm(tx, who.tenantId, input.namespace);
  const checked = checkOperations(realm, input.operations);
  const operations = checked.operations;
  const allActions = checked.allActions || input.allActions === true;
  if (operations.length === 0 && !allActions) throw new AppError("invalid_input", "A grant names at least one operation.", { details: { field: "operations" } });
  const resourceScope = await validateResourceScope(tx, who, who.userId, realm, input.resourceScope);
  const [row] = await tx
    .insert(grants)
    .values({
      id: newId("grt"),
      tenantId: who.tenantId,
      actorId: actor.id,
      grantorId: who.userId,
      namespace: input.namespace,
      operations,
      allActions,
      resourceScope,
      expiresAt: input.expiresAt,
      consentRequestId: input.consentRequestId ?? null,
    })
    .returning();
  await recordChange(tx, who, "grant.created", {
    namespace: input.namespace,
    subjectId: row!.id,
    details: { actor_id: actor.id, operations, all_actions: allActions, resource_scope: resourceScope, expires_at: input.expiresAt?.toISOString() ?? null },
  });
  return grantView(row!);
}

export async function createGrant(db: Db, who: Who, body: Omit<z.infer<typeof createGrantBody>, "all_actions"> & { all_actions?: boolean }): Promise<GrantView> {
  return db.transaction((tx) =>
    createGrantTx(tx, who, {
      actorId: body.actor_id,
      namespace: body.namespace,
      operations: body.operations,
      allActions: body.all_actions ?? false,
      resourceScope: body.resource_scope as ResourceScope | null,
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
    // The actor's turn first (grant-turns.ts): its calls from now on wait for this revoke instead of starving it.
    const [owner] = await tx.select({ actorId: grants.actorId }).from(grants).where(and(eq(grants.id, grantId), eq(grants.tenantId, who.tenantId)));
    if (owner) await takeTurnsOf(tx, [owner.actorId]);
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
