// People in native realms: tenant members named by email or user id (rows store user ids), and collection
// fields that take a list (replaces) or `{add, remove}` (edits).
import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { memberships, users } from "@/db/schema";
import { AppError } from "@/lib/errors";
import type { RealmContext } from "@/lib/realms/contract";

/** A person as a caller names them: an email or a user id. */
export const person = z.string().trim().min(1).max(320);

/** A collection field: a list replaces; `{add, remove}` edits. */
export const collectionPatch = <T extends z.ZodType<string>>(item: T, max = 50) =>
  z.union([z.array(item).max(max), z.strictObject({ add: z.array(item).max(max).optional(), remove: z.array(item).max(max).optional() })]);
/** People (emails or user ids) as a collection field. */
export const peoplePatch = (max = 50) => collectionPatch(person, max);
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

export type Person = { id: string; name: string; email: string };

/** user id → {id, name, email}, for showing people (nulls skipped). */
export async function peopleOf(ctx: RealmContext, ids: (string | null)[]): Promise<Map<string, Person>> {
  const wanted = [...new Set(ids.filter((i): i is string => !!i))];
  if (!wanted.length) return new Map();
  return peopleWhere(ctx, inArray(users.id, wanted));
}

/**
 * The same for the user ids a subquery selects (one column): people an object names, read from its own row, so
 * the read need not wait for the row to reach Node first.
 */
export const peopleSelectedBy = (ctx: RealmContext, ids: SQL): Promise<Map<string, Person>> => peopleWhere(ctx, sql`${users.id} in (${ids})`);

async function peopleWhere(ctx: RealmContext, where: SQL): Promise<Map<string, Person>> {
  const rows = await ctx.tx.select({ id: users.id, name: users.name, email: users.email }).from(users).where(where);
  return new Map(rows.map((r) => [r.id, r]));
}

/** A person's email, or their id when they are gone; null stays null. */
export const emailOf = (people: Map<string, Person>, id: string | null) => (id ? (people.get(id)?.email ?? id) : null);

/** user id → email, for showing people. */
export async function emailsOf(ctx: RealmContext, ids: string[]): Promise<Map<string, string>> {
  return new Map([...(await peopleOf(ctx, ids))].map(([id, p]) => [id, p.email]));
}

/** Emails of stored user ids, in order (an id when the person is gone). */
export const emailList = (emails: Map<string, string>, ids: string[]) => ids.map((id) => emails.get(id) ?? id);

/** The actor a call runs through, if any (kept on what it writes). */
export const viaActor = (ctx: RealmContext) => (ctx.principal.type === "actor" ? ctx.principal.actorId : null);
