// Shared mechanics of the native realms (memory, docs, board): people named by email or user id, collection
// fields that take a list or {add, remove}, and safe ILIKE patterns. Realms never import each other; they
// import this.
import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { memberships, users } from "@/db/schema";
import { AppError } from "@/lib/errors";
import type { RealmContext } from "./contract";

/** `%term%` with LIKE's wildcards escaped, for `ilike`. */
export const likePattern = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A text[] literal built from bound parameters. */
export function sqlTextArray(values: string[]): SQL {
  return values.length ? sql`array[${sql.join(values.map((v) => sql`${v}`), sql`, `)}]::text[]` : sql`'{}'::text[]`;
}

const person = z.string().trim().min(1).max(320);
/** A collection field: a list replaces; `{add, remove}` edits. */
export const collectionPatch = (item: z.ZodString = person, max = 50) =>
  z.union([z.array(item).max(max), z.strictObject({ add: z.array(item).max(max).optional(), remove: z.array(item).max(max).optional() })]);
export type CollectionPatch = string[] | { add?: string[]; remove?: string[] };

export function applyCollection(current: string[], patch: CollectionPatch): string[] {
  const p = Array.isArray(patch) ? { set: patch } : { add: patch.add, remove: patch.remove };
  const removed = new Set(p.remove ?? []);
  return [...new Set([...(p.set ?? current), ...(p.add ?? [])])].filter((v) => !removed.has(v));
}

/** Tenant members named by user id or email → user ids, in order. Anyone else is `invalid_input`, named. */
export async function memberIds(ctx: RealmContext, idents: string[], field: string, alreadyListed: string[] = []): Promise<string[]> {
  if (!idents.length) return [];
  const lowered = [...new Set(idents.map((i) => i.toLowerCase()))];
  const rows = await ctx.tx
    .select({ id: users.id, email: users.email })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, ctx.tenantId)))
    .where(or(inArray(users.id, idents), inArray(sql`lower(${users.email})`, lowered)));
  const byIdent = new Map<string, string>();
  for (const r of rows) {
    byIdent.set(r.id.toLowerCase(), r.id);
    byIdent.set(r.email.toLowerCase(), r.id);
  }
  // Someone who left the tenant may still be listed: removing them by user id must work.
  for (const id of alreadyListed) byIdent.set(id.toLowerCase(), id);
  const unknown = idents.filter((i) => !byIdent.has(i.toLowerCase()));
  if (unknown.length) {
    throw new AppError("invalid_input", `${field}: ${unknown.join(", ")} ${unknown.length === 1 ? "is not a member" : "are not members"} of this workspace.`, {
      details: { field, unknown },
    });
  }
  return idents.map((i) => byIdent.get(i.toLowerCase())!);
}

/** Apply a people patch (emails or ids) to a stored list of user ids. */
export async function peopleAfter(ctx: RealmContext, current: string[], patch: CollectionPatch, field: string): Promise<string[]> {
  if (Array.isArray(patch)) return applyCollection(current, await memberIds(ctx, patch, field));
  return applyCollection(current, {
    add: patch.add ? await memberIds(ctx, patch.add, field) : undefined,
    remove: patch.remove ? await memberIds(ctx, patch.remove, field, current) : undefined,
  });
}

/** `shared_with` after a patch; the owner is never listed as sharing their own object. */
export async function sharedWithAfter(ctx: RealmContext, current: string[], ownerId: string, patch: CollectionPatch): Promise<string[]> {
  return (await peopleAfter(ctx, current, patch, "shared_with")).filter((id) => id !== ownerId);
}

/** user id → email, for showing people. */
export async function emailsOf(ctx: RealmContext, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await ctx.tx.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.email]));
}
