// The working set in the database: one row per exact tool, per actor. A set is live while it is used: once
// REALMGATE_WORKING_SET_TTL has passed since the last materialize or call of any of its tools, it is empty (its
// rows are removed by the next change). Every read is by tenant and actor, both from the caller's credential.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db/client";
import { actors, workingSetTools, type WorkingSetSlot, type WorkingSetTool } from "@/db/schema";
import { env } from "@/lib/env";

export type Owner = { tenantId: string; actorId: string };

const mine = (o: Owner) => and(eq(workingSetTools.tenantId, o.tenantId), eq(workingSetTools.actorId, o.actorId));

export const workingSetTtlMs = (): number => env().REALMGATE_WORKING_SET_TTL;

/** Whether rows last used at these times make a live set at `now`. */
export const isLive = (rows: Pick<WorkingSetTool, "lastUsedAt">[], now: Date, ttlMs = workingSetTtlMs()): boolean =>
  rows.some((r) => r.lastUsedAt.getTime() > now.getTime() - ttlMs);

/** The actor's tools, in the order they are listed (materialized first, first): none once the set went idle. */
export async function readWorkingSet(db: Executor, o: Owner, now: Date): Promise<WorkingSetTool[]> {
  const rows = await db.select().from(workingSetTools).where(mine(o)).orderBy(asc(workingSetTools.createdAt), asc(workingSetTools.name));
  return isLive(rows, now) ? rows : [];
}

/**
 * For a change: the actor's row locked (two materializations of one actor take turns; a revoke waits), its set
 * read, and an idle set removed.
 */
export async function lockWorkingSet(tx: Tx, o: Owner, now: Date): Promise<WorkingSetTool[]> {
  await tx.select({ id: actors.id }).from(actors).where(and(eq(actors.id, o.actorId), eq(actors.tenantId, o.tenantId))).for("no key update");
  const rows = await tx.select().from(workingSetTools).where(mine(o)).orderBy(asc(workingSetTools.createdAt), asc(workingSetTools.name));
  if (rows.length && !isLive(rows, now)) {
    await tx.delete(workingSetTools).where(mine(o));
    return [];
  }
  return rows;
}

export async function addTool(tx: Tx, o: Owner, t: { name: string; namespace: string; operation: string; slot: WorkingSetSlot }, now: Date) {
  await tx.insert(workingSetTools).values({ ...o, ...t, createdAt: now, lastUsedAt: now });
}

export async function removeTools(tx: Tx, o: Owner, names: string[]) {
  if (names.length) await tx.delete(workingSetTools).where(and(mine(o), inArray(workingSetTools.name, names)));
}

export async function touchTool(tx: Tx, o: Owner, name: string, now: Date) {
  await tx.update(workingSetTools).set({ lastUsedAt: now }).where(and(mine(o), eq(workingSetTools.name, name)));
}

/**
 * A call of an exact tool by name, in one statement: the tool, if the actor's set holds it and is live, marked
 * used now. Null: no such tool in a live set (`expired` says whether the name was there before the set went idle).
 */
export async function takeExactTool(db: Executor, o: Owner, name: string, now: Date): Promise<{ namespace: string; operation: string } | { missing: true; expired: boolean }> {
  const since = new Date(now.getTime() - workingSetTtlMs());
  const result = await db.execute(sql`
    with live as (
      select 1 from working_set_tools where tenant_id = ${o.tenantId} and actor_id = ${o.actorId} and last_used_at > ${since.toISOString()}::timestamptz limit 1
    ), hit as (
      update working_set_tools set last_used_at = ${now.toISOString()}::timestamptz
      where tenant_id = ${o.tenantId} and actor_id = ${o.actorId} and name = ${name} and exists (select 1 from live)
      returning namespace, operation
    )
    select hit.namespace, hit.operation, null::boolean as expired from hit
    union all
    select null, null, true from working_set_tools w
    where w.tenant_id = ${o.tenantId} and w.actor_id = ${o.actorId} and w.name = ${name} and not exists (select 1 from live)`);
  const rows = (result as unknown as { rows: { namespace: string | null; operation: string | null; expired: boolean | null }[] }).rows;
  const hit = rows.find((r) => r.namespace !== null);
  if (hit) return { namespace: hit.namespace!, operation: hit.operation! };
  return { missing: true, expired: rows.some((r) => r.expired) };
}

/** The operation an exact tool of the actor's set stands for (whether or not the set is live), without marking it used. */
export async function heldExactTool(db: Executor, o: Owner, name: string): Promise<{ namespace: string; operation: string } | null> {
  const [row] = await db.select({ namespace: workingSetTools.namespace, operation: workingSetTools.operation }).from(workingSetTools).where(and(mine(o), eq(workingSetTools.name, name)));
  return row ?? null;
}
