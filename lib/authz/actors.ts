// Delegated actors and their tokens: 256-bit secrets shown once, stored as SHA-256, optional expiry,
// rotatable, revocable. Every change is audited in the same transaction.
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { actors, actorKinds, actorTokens, grants, memberships, type Actor } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { ActorContext, UserContext } from "./context";
import { hashSecret, newSecret } from "./secrets";

export const ACTOR_TOKEN_PREFIX = "rga";

export const createActorBody = z.strictObject({
  name: z.string().trim().min(1).max(80),
  kind: z.enum(actorKinds),
  /** Issue a first token now (default true). */
  issue_token: z.boolean().default(true),
  token_expires_in_days: z.number().int().min(1).max(3650).nullable().default(null),
});

export const issueTokenBody = z.strictObject({
  expires_in_days: z.number().int().min(1).max(3650).nullable().default(null),
  /** Rotation: revoke the actor's other live tokens in the same transaction. */
  revoke_others: z.boolean().default(false),
});

export const revokeBody = z.strictObject({ reason: z.string().trim().min(1).max(500) });

export type ActorView = {
  id: string;
  name: string;
  kind: string;
  grantor_id: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoke_reason: string | null;
};

export const actorView = (a: Actor): ActorView => ({
  id: a.id,
  name: a.name,
  kind: a.kind,
  grantor_id: a.grantorId,
  created_at: a.createdAt.toISOString(),
  last_used_at: a.lastUsedAt?.toISOString() ?? null,
  revoked_at: a.revokedAt?.toISOString() ?? null,
  revoke_reason: a.revokeReason ?? null,
});

type Who = Pick<UserContext, "tenantId" | "userId" | "requestId">;

export async function createActor(db: Db, who: Who, input: z.infer<typeof createActorBody>, opts: { clientId?: string } = {}) {
  return db.transaction(async (tx) => {
    const [actor] = await tx
      .insert(actors)
      .values({ id: newId("act"), tenantId: who.tenantId, grantorId: who.userId, kind: input.kind, name: input.name, clientId: opts.clientId ?? null })
      .returning();
    await recordChange(tx, who, "actor.created", {
      subjectId: actor!.id,
      details: { name: input.name, kind: input.kind },
    });
    const token = input.issue_token ? await issueTokenTx(tx, who, actor!.id, input.token_expires_in_days) : null;
    return { actor: actorView(actor!), token };
  });
}

/** The actor, if it belongs to this grantor (members see their own; owners and support see all, read-only for support). */
export async function actorForGrantor(db: Executor, who: Pick<UserContext, "tenantId" | "userId">, actorId: string): Promise<Actor> {
  const [actor] = await db.select().from(actors).where(and(eq(actors.id, actorId), eq(actors.tenantId, who.tenantId), eq(actors.grantorId, who.userId)));
  if (!actor) throw new AppError("not_found", "No such actor.", { details: { actor_id: actorId } });
  return actor;
}

export async function listActors(db: Executor, who: Pick<UserContext, "tenantId" | "userId" | "role">, opts: { all?: boolean } = {}) {
  const wantAll = opts.all && (who.role === "owner" || who.role === "support");
  const rows = await db
    .select()
    .from(actors)
    .where(wantAll ? eq(actors.tenantId, who.tenantId) : and(eq(actors.tenantId, who.tenantId), eq(actors.grantorId, who.userId)))
    .orderBy(desc(actors.createdAt));
  if (rows.length === 0) return [];
  const tokens = await db
    .select()
    .from(actorTokens)
    .where(and(eq(actorTokens.tenantId, who.tenantId), inArray(actorTokens.actorId, rows.map((r) => r.id))))
    .orderBy(desc(actorTokens.createdAt));
  return rows.map((a) => ({
    ...actorView(a),
    tokens: tokens.filter((t) => t.actorId === a.id).map(tokenView),
  }));
}

const tokenView = (t: typeof actorTokens.$inferSelect) => ({
  id: t.id,
  display_prefix: t.displayPrefix,
  created_at: t.createdAt.toISOString(),
  expires_at: t.expiresAt?.toISOString() ?? null,
  last_used_at: t.lastUsedAt?.toISOString() ?? null,
  revoked_at: t.revokedAt?.toISOString() ?? null,
});

async function issueTokenTx(tx: Executor, who: Who, actorId: string, expiresInDays: number | null, revokeOthers = false) {
  if (revokeOthers) {
    const revoked = await tx
      .update(actorTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(actorTokens.actorId, actorId), eq(actorTokens.tenantId, who.tenantId), isNull(actorTokens.revokedAt)))
      .returning({ id: actorTokens.id });
    for (const r of revoked) {
      await recordChange(tx, who, "token.revoked", {
        subjectId: r.id,
        details: { actor_id: actorId, reason: "rotated" },
      });
    }
  }
  const token = newSecret(ACTOR_TOKEN_PREFIX);
  const expiresAt = expiresInDays ? new Date(Date.now() + expiresInDays * 86_400_000) : null;
  const [row] = await tx
    .insert(actorTokens)
    .values({ id: newId("tok"), tenantId: who.tenantId, actorId, displayPrefix: token.slice(0, 10), hash: hashSecret(token), expiresAt })
    .returning();
  await recordChange(tx, who, "token.issued", {
    subjectId: row!.id,
    details: { actor_id: actorId, expires_at: expiresAt?.toISOString() ?? null },
  });
  return { ...tokenView(row!), token };
}

export async function issueActorToken(db: Db, who: Who, actorId: string, input: z.infer<typeof issueTokenBody>) {
  return db.transaction(async (tx) => {
    const actor = await actorForGrantor(tx, who, actorId);
    if (actor.revokedAt) throw new AppError("conflict", "This actor is revoked; create a new one.");
    return issueTokenTx(tx, who, actorId, input.expires_in_days, input.revoke_others);
  });
}

export async function revokeActorToken(db: Db, who: Who, actorId: string, tokenId: string) {
  return db.transaction(async (tx) => {
    await actorForGrantor(tx, who, actorId);
    const [row] = await tx
      .update(actorTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(actorTokens.id, tokenId), eq(actorTokens.actorId, actorId), eq(actorTokens.tenantId, who.tenantId), isNull(actorTokens.revokedAt)))
      .returning();
    if (!row) {
      const [existing] = await tx.select().from(actorTokens).where(and(eq(actorTokens.id, tokenId), eq(actorTokens.actorId, actorId)));
      if (!existing) throw new AppError("not_found", "No such token.");
      return tokenView(existing);
    }
    await recordChange(tx, who, "token.revoked", {
      subjectId: row.id,
      details: { actor_id: actorId },
    });
    return tokenView(row);
  });
}

/** Revoking an actor cuts it off at its next request: its tokens and grants die with it. */
export async function revokeActor(db: Db, who: Who, actorId: string, reason: string) {
  return db.transaction(async (tx) => {
    const actor = await actorForGrantor(tx, who, actorId);
    if (actor.revokedAt) return actorView(actor);
    const now = new Date();
    const [row] = await tx.update(actors).set({ revokedAt: now, revokedBy: who.userId, revokeReason: reason }).where(eq(actors.id, actorId)).returning();
    await tx.update(actorTokens).set({ revokedAt: now }).where(and(eq(actorTokens.actorId, actorId), isNull(actorTokens.revokedAt)));
    const ended = await tx
      .update(grants)
      .set({ revokedAt: now, revokedBy: who.userId, revokeReason: `actor revoked: ${reason}` })
      .where(and(eq(grants.actorId, actorId), eq(grants.tenantId, who.tenantId), isNull(grants.revokedAt)))
      .returning({ id: grants.id, namespace: grants.namespace });
    await recordChange(tx, who, "actor.revoked", {
      subjectId: actorId,
      reason,
      details: { grants_revoked: ended.map((g) => g.id) },
    });
    for (const g of ended) {
      await recordChange(tx, who, "grant.revoked", {
        namespace: g.namespace,
        subjectId: g.id,
        reason: `actor revoked: ${reason}`,
        details: { actor_id: actorId },
      });
    }
    return actorView(row!);
  });
}

/** The actor a token acts as, or null when the token (or its actor) is unknown, revoked or expired. */
export async function actorForToken(db: Db, token: string, now = new Date()): Promise<Omit<ActorContext, "requestId"> | null> {
  const [row] = await db
    .select({ token: actorTokens, actor: actors })
    .from(actorTokens)
    .innerJoin(actors, eq(actors.id, actorTokens.actorId))
    .innerJoin(memberships, and(eq(memberships.tenantId, actors.tenantId), eq(memberships.userId, actors.grantorId)))
    .where(and(eq(actorTokens.hash, hashSecret(token)), isNull(actorTokens.revokedAt), isNull(actors.revokedAt)));
  if (!row) return null;
  if (row.token.expiresAt && now.getTime() >= row.token.expiresAt.getTime()) return null;
  if (!row.token.lastUsedAt || now.getTime() - row.token.lastUsedAt.getTime() > 60_000) {
    await db.update(actorTokens).set({ lastUsedAt: now }).where(eq(actorTokens.id, row.token.id));
    await db.update(actors).set({ lastUsedAt: now }).where(eq(actors.id, row.actor.id));
  }
  return {
    kind: "actor",
    tenantId: row.actor.tenantId,
    actorId: row.actor.id,
    actorKind: row.actor.kind,
    actorName: row.actor.name,
    grantorId: row.actor.grantorId,
    via: "actor_token",
    credentialId: row.token.id,
  };
}
