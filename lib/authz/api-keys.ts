// Personal API keys: a user's bearer credential for the REST API. Shown once, stored as a hash.
import { and, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { apiKeys, memberships } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { UserContext } from "./context";
import { hashSecret, newSecret } from "./secrets";

export const API_KEY_PREFIX = "rgk";

export const createApiKeyBody = z.strictObject({ name: z.string().trim().min(1).max(80) });

export type ApiKeyView = { id: string; name: string; display_prefix: string; created_at: string; last_used_at: string | null; revoked_at: string | null };

const view = (k: typeof apiKeys.$inferSelect): ApiKeyView => ({
  id: k.id,
  name: k.name,
  display_prefix: k.displayPrefix,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

type Who = Pick<UserContext, "tenantId" | "userId"> & { requestId?: string };

export async function createApiKey(db: Db, who: Who, name: string): Promise<ApiKeyView & { key: string }> {
  const key = newSecret(API_KEY_PREFIX);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(apiKeys)
      .values({ id: newId("key"), tenantId: who.tenantId, userId: who.userId, name, displayPrefix: key.slice(0, 10), hash: hashSecret(key) })
      .returning();
    await recordChange(tx, who, "api_key.created", { subjectId: row!.id, details: { name } });
    return { ...view(row!), key };
  });
}

export async function listApiKeys(db: Db, who: Pick<UserContext, "tenantId" | "userId">): Promise<ApiKeyView[]> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, who.tenantId), eq(apiKeys.userId, who.userId)))
    .orderBy(desc(apiKeys.createdAt));
  return rows.map(view);
}

/** Revoke one of the caller's own keys. Another user's key is `not_found`, never "forbidden". */
export async function revokeApiKey(db: Db, who: Who, id: string): Promise<ApiKeyView> {
  const row = await db.transaction(async (tx) => {
    const [r] = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, who.tenantId), eq(apiKeys.userId, who.userId), isNull(apiKeys.revokedAt)))
      .returning();
    if (r) await recordChange(tx, who, "api_key.revoked", { subjectId: r.id });
    return r;
  });
  if (row) return view(row);
  const [existing] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.tenantId, who.tenantId), eq(apiKeys.userId, who.userId)));
  if (!existing) throw new AppError("not_found", "No such API key.");
  return view(existing); // already revoked: revoking is idempotent
}

/** The user an API key acts as, or null when the key is unknown or revoked. */
export async function userForApiKey(db: Db, key: string): Promise<Omit<UserContext, "requestId"> | null> {
  const [row] = await db
    .select({ id: apiKeys.id, tenantId: apiKeys.tenantId, userId: apiKeys.userId, role: memberships.role, lastUsedAt: apiKeys.lastUsedAt })
    .from(apiKeys)
    .innerJoin(memberships, and(eq(memberships.tenantId, apiKeys.tenantId), eq(memberships.userId, apiKeys.userId)))
    .where(and(eq(apiKeys.hash, hashSecret(key)), isNull(apiKeys.revokedAt)));
  if (!row) return null;
  // last_used_at at minute precision: no write per request.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, row.id));
  }
  return { kind: "user", tenantId: row.tenantId, userId: row.userId, role: row.role, via: "api_key" };
}
