// SQL building blocks shared by the native realms: safe ILIKE patterns, text[] literals, exact timestamps for
// keysets, word matches, and the owner / shared-with visibility predicate.
import { and, eq, or, sql, type AnyColumn, type Placeholder, type SQL } from "drizzle-orm";
import { authorityOf, type RealmContext } from "@/lib/realms/contract";

/** `%term%` with LIKE's wildcards escaped, for `ilike`. */
export const likePattern = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A text[] literal built from bound parameters. */
export function sqlTextArray(values: string[]): SQL {
  return values.length ? sql`array[${sql.join(values.map((v) => sql`${v}`), sql`, `)}]::text[]` : sql`'{}'::text[]`;
}

/** A timestamp as an exact (microsecond) UTC string: a JS Date would lose precision and break the keyset. */
export const exactTime = (col: AnyColumn) => sql<string>`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The words of a query (at most ten). */
export const queryWords = (query: string) => query.trim().split(/\s+/).filter(Boolean).slice(0, 10);

/** Each word of `query` appears in `haystack` (case-insensitive). */
export function termsMatch(haystack: SQL, query: string): SQL[] {
  return queryWords(query).map((t) => sql`${haystack} ilike ${likePattern(t)}`);
}

/** Owner / shared-with columns of a native realm's root table. */
export type AclColumns = { tenantId: AnyColumn; ownerId: AnyColumn; sharedWith: AnyColumn };

/** Rows the caller may read: in the tenant, owned by or shared with the call's authority. */
export function ownedOrShared(ctx: RealmContext, t: AclColumns): SQL {
  return visibleTo(t, ctx.tenantId, authorityOf(ctx.principal));
}

/** `ownedOrShared` for a statement built once (db/compiled.ts): the tenant and the authority are its placeholders. */
export function visibleTo(t: AclColumns, tenantId: Placeholder | string, who: Placeholder | string): SQL {
  return and(eq(t.tenantId, tenantId), or(eq(t.ownerId, who), sql`${t.sharedWith} @> array[${who}]::text[]`))!;
}

/** The row with this id in the call's tenant (every native query carries the tenant). */
export const inTenant = (ctx: RealmContext, t: { tenantId: AnyColumn; id: AnyColumn }, id: string): SQL => and(eq(t.tenantId, ctx.tenantId), eq(t.id, id))!;
