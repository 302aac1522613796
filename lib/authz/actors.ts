// Delegated actors and their tokens: 256-bit secrets shown once, stored as SHA-256, optional expiry,
// rotatable, revocable. Every change is audited in the same transaction.
import { and, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { compiledVariants } from "@/db/compiled";
import { actors, actorKinds, actorTokens, grants, type Actor } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { callerBucketSql, limitColumns, limitCtes, limitResultOf, limitValues, type Limit, type LimitColumns, type LimitResult, type LimitValues } from "@/lib/limits/rate-limit";
import { newId } from "@/lib/ids";
import type { ActorContext, UserContext } from "./context";
import { takeTurnsOf } from "./grant-turns";
import { hashSecret, newSecret } from "./secrets";
import { recordVoided, voidApprovalRows } from "./void-approvals";

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
    // Every row this locks is locked before its first audit record (lock order: void-approvals.ts).
    const reason = "the token that asked was replaced";
    const voided = [];
    for (const r of revoked) voided.push(await voidApprovalRows(tx, who.tenantId, { credentialId: r.id }, reason));
    for (const [i, r] of revoked.entries()) {
      await recordChange(tx, who, "token.revoked", {
        subjectId: r.id,
        details: { actor_id: actorId, reason: "rotated" },
      });
      await recordVoided(tx, who.tenantId, voided[i]!, reason, who.requestId);
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
    // The approvals this token asked for are locked before the audit head (lock order: void-approvals.ts).
    const reason = "the token that asked was revoked";
    const voided = await voidApprovalRows(tx, who.tenantId, { credentialId: row.id }, reason);
    await recordChange(tx, who, "token.revoked", {
      subjectId: row.id,
      details: { actor_id: actorId },
    });
    await recordVoided(tx, who.tenantId, voided, reason, who.requestId);
    return tokenView(row);
  });
}

/** Revoking an actor cuts it off at its next request: its tokens and grants die with it. */
export async function revokeActor(db: Db, who: Who, actorId: string, reason: string) {
  return db.transaction(async (tx) => {
    const actor = await actorForGrantor(tx, who, actorId);
    if (actor.revokedAt) return actorView(actor);
    // Its turn first (grant-turns.ts): its calls from now on wait for this revoke instead of starving its grants' update.
    await takeTurnsOf(tx, [actorId]);
    const now = new Date();
    const [row] = await tx.update(actors).set({ revokedAt: now, revokedBy: who.userId, revokeReason: reason }).where(eq(actors.id, actorId)).returning();
    await tx.update(actorTokens).set({ revokedAt: now }).where(and(eq(actorTokens.actorId, actorId), isNull(actorTokens.revokedAt)));
    const ended = await tx
      .update(grants)
      .set({ revokedAt: now, revokedBy: who.userId, revokeReason: `actor revoked: ${reason}` })
      .where(and(eq(grants.actorId, actorId), eq(grants.tenantId, who.tenantId), isNull(grants.revokedAt)))
      .returning({ id: grants.id, namespace: grants.namespace });
    // Its approvals are locked before the audit head (lock order: void-approvals.ts).
    const voidReason = "the agent was revoked";
    const voided = await voidApprovalRows(tx, who.tenantId, { actorId }, voidReason);
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
    await recordVoided(tx, who.tenantId, voided, voidReason, who.requestId);
    return actorView(row!);
  });
}

/** How often a token's (and its actor's) `last_used_at` is written at most. */
const LAST_USED_EVERY_SECONDS = 60;

/** When this process last asked for a token's `last_used_at` touch, by the token's hash (bounded: cleared when full). */
const touchAskedAt = new Map<string, number>();
const TOUCHES_REMEMBERED = 10_000;

/**
 * Whether a lookup of this token should carry the touch of `last_used_at`: once a minute per process. The touch's own
 * condition (the row's `last_used_at` older than a minute) keeps it to once a minute across processes; asking only
 * when due spares every other call the two updates' part of the statement. A touch that rolled back is asked again a
 * minute later, so `last_used_at` may lag the last use by two minutes at most.
 */
export function touchDue(hash: string, now: Date): boolean {
  const last = touchAskedAt.get(hash);
  if (last !== undefined && Math.abs(now.getTime() - last) < LAST_USED_EVERY_SECONDS * 1000) return false;
  if (touchAskedAt.size >= TOUCHES_REMEMBERED) touchAskedAt.clear();
  touchAskedAt.set(hash, now.getTime());
  return true;
}

type TokenRow = TokenColumns & LimitColumns;
/** The values of a token's lookup: its hash, the time of the call, and the rate-limit check's (nulls: nothing counted). */
export type TokenValues = { hash: string; at: string } & LimitValues;
/** The columns `tokenCtes` answer with (`tokenColumns`): all null when the token is unknown, revoked or expired. */
export type TokenColumns = { token_id: string | null; actor_id: string | null; tenant_id: string | null; kind: Actor["kind"] | null; name: string | null; grantor_id: string | null };

/**
 * The CTEs of a token's lookup, to put in a statement's WITH list: `tok` (the token's actor, when the token, the
 * actor and the grantor's membership are live: no row otherwise), with `touch` (`touchDue`) the touches of
 * `last_used_at` (at most once a minute; skipped while another open call holds the row, so an actor's concurrent
 * calls never wait on one another even though gate one's statement holds the touch until its call commits) and,
 * with `counted`, the call counted against the actor's rate limit (lib/limits). Gate one's statement
 * embeds them too (lib/authz/gate-read.ts), so a REST tool call authenticates, is counted and reads gate one in
 * one statement.
 */
export function tokenCtes(p: Record<keyof TokenValues, unknown>, counted: boolean, touch = true): SQL {
  const stale = sql`(tok.last_used_at is null or tok.last_used_at < ${p.at}::timestamptz - make_interval(secs => ${sql.raw(String(LAST_USED_EVERY_SECONDS))}))`;
  const v = { rl_window_start: p.rl_window_start, rl_weight: p.rl_weight, rl_window_seconds: p.rl_window_seconds };
  return sql`tok as (
      select t.id as token_id, t.last_used_at, a.id as actor_id, a.tenant_id, a.kind, a.name, a.grantor_id
      from actor_tokens t
      join actors a on a.id = t.actor_id
      join memberships m on m.tenant_id = a.tenant_id and m.user_id = a.grantor_id
      where t.hash = ${p.hash} and t.revoked_at is null and a.revoked_at is null and (t.expires_at is null or t.expires_at > ${p.at}::timestamptz)
      limit 1)${
        touch
          ? sql`,
    touch_token as (
      update actor_tokens set last_used_at = ${p.at}::timestamptz
      where actor_tokens.id = (select tt.id from actor_tokens tt join tok on tt.id = tok.token_id where ${stale} for no key update of tt skip locked)),
    touch_actor as (
      update actors set last_used_at = ${p.at}::timestamptz
      where actors.id = (select ta.id from actors ta join tok on ta.id = tok.actor_id where ${stale} for no key update of ta skip locked))`
          : sql``
      }
    ${counted ? sql`, ${limitCtes(sql`(select ${callerBucketSql(sql`tok.actor_id`)} from tok)`, v)}` : sql``}`;
}

/**
 * The columns of `tokenCtes` (`TokenColumns`, each named with `prefix` first, and with `counted` the rate limit's
 * `LimitColumns`), one row whether or not the token is live. `joined`: the statement's FROM left-joins `tok`
 * (gate one's), so its columns are read from there rather than by a subquery each.
 */
export function tokenColumns(p: Record<keyof TokenValues, unknown>, counted: boolean, prefix = "", joined = false): SQL {
  const col = (c: keyof TokenColumns) => (joined ? sql`tok.${sql.raw(c)} as ${sql.raw(prefix + c)}` : sql`(select tok.${sql.raw(c)} from tok) as ${sql.raw(prefix + c)}`);
  const cols = (["token_id", "actor_id", "tenant_id", "kind", "name", "grantor_id"] as const).map(col);
  return sql.join(counted ? [...cols, limitColumns({ rl_weight: p.rl_weight })] : cols, sql`, `);
}

/** The values of one token's lookup at `now`, counting `count` (nothing when absent). */
export function tokenValues(token: string, now: Date, count?: { limit: Limit; weight?: number }): TokenValues {
  const limit: LimitValues = count ? limitValues(count.limit, now, count.weight ?? 1) : { rl_window_start: null, rl_weight: null, rl_window_seconds: null };
  return { hash: hashSecret(token), at: now.toISOString(), ...limit };
}

/** The actor of a lookup's columns, with the rate limit's answer when the call was counted; null when the token is not live. */
export function actorOfToken(columns: Record<string, unknown>, now: Date, limit?: Limit, prefix = ""): (Omit<ActorContext, "requestId"> & { limited?: LimitResult }) | null {
  const at = (c: keyof TokenColumns) => columns[prefix + c] ?? null;
  const row = { token_id: at("token_id"), actor_id: at("actor_id"), tenant_id: at("tenant_id"), kind: at("kind"), name: at("name"), grantor_id: at("grantor_id"), rl_count: columns.rl_count, rl_window_ms: columns.rl_window_ms } as TokenColumns & Partial<LimitColumns>;
  if (!row.token_id || !row.actor_id || !row.tenant_id || !row.kind || row.name === null || !row.grantor_id) return null;
  const limited = limit && row.rl_count !== undefined && row.rl_window_ms !== undefined ? limitResultOf({ rl_count: row.rl_count, rl_window_ms: row.rl_window_ms }, limit, now) : null;
  return {
    kind: "actor",
    tenantId: row.tenant_id,
    actorId: row.actor_id,
    actorKind: row.kind,
    actorName: row.name,
    grantorId: row.grantor_id,
    via: "actor_token",
    credentialId: row.token_id,
    ...(limited ? { limited } : {}),
  };
}

/** The token lookup on its own: built once per shape (db/compiled.ts). */
const tokenStatement = compiledVariants<`${"counted" | "plain"}${"" | "+touch"}`, keyof TokenValues, TokenRow>((variant, p) => {
  const counted = variant.startsWith("counted");
  return sql`with ${tokenCtes(p, counted, variant.endsWith("+touch"))} select ${tokenColumns(p, counted)}`;
});

/**
 * The actor a token acts as, or null when the token (or its actor) is unknown, revoked or expired. One
 * statement: the lookup, `last_used_at` (at most once a minute) and, with `count`, the call counted against the
 * actor's rate limit (lib/limits: added to a tally no other open call holds, no shared row). An unknown, revoked
 * or expired token counts nothing.
 */
export async function actorForToken(
  db: Executor,
  token: string,
  now = new Date(),
  count?: { limit: Limit; weight?: number },
): Promise<(Omit<ActorContext, "requestId"> & { limited?: LimitResult }) | null> {
  const values = tokenValues(token, now, count);
  const [row] = await tokenStatement(`${count ? "counted" : "plain"}${touchDue(values.hash, now) ? "+touch" : ""}`)(db, values);
  return actorOfToken(row!, now, count?.limit);
}
