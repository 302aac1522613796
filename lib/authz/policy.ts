// The owner ceiling and user choices: data, with the rule that an operation is on unless a row turns it
// off. The effective set for a user's agents is ceiling ∩ choice (∩ each actor's grants, in gate one).
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { ceilingSettings, realmSettings, userChoices } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { isOperationKey, operationKeysOf, type OperationKey } from "@/lib/realms/contract";
import { requireRealm } from "@/lib/realms/registry";
import type { UserContext } from "./context";

export const settingsChangeBody = z.strictObject({
  namespace: z.string().min(1).max(64),
  changes: z
    .array(z.strictObject({ operation: z.string().min(1).max(250), enabled: z.boolean() }))
    .min(1)
    .max(2000),
});

/**
 * What an owner may change for a realm in one request: operations on or off for the tenant's agents, and whether
 * agents may read the realm's description (provider.about, object.schema) without asking.
 */
export const ceilingChangeBody = z
  .strictObject({
    namespace: z.string().min(1).max(64),
    changes: settingsChangeBody.shape.changes.optional(),
    open_description: z.boolean().optional(),
  })
  .refine((b) => b.changes !== undefined || b.open_description !== undefined, "give changes, open_description, or both");

export type OperationState = { operation: OperationKey; ceiling: boolean; choice: boolean; effective: boolean };

export async function readCeiling(db: Executor, tenantId: string, namespace?: string) {
  return db
    .select({ namespace: ceilingSettings.namespace, operation: ceilingSettings.operation, enabled: ceilingSettings.enabled })
    .from(ceilingSettings)
    .where(namespace ? and(eq(ceilingSettings.tenantId, tenantId), eq(ceilingSettings.namespace, namespace)) : eq(ceilingSettings.tenantId, tenantId));
}

export async function readChoices(db: Executor, tenantId: string, userId: string, namespace?: string) {
  const base = and(eq(userChoices.tenantId, tenantId), eq(userChoices.userId, userId));
  return db
    .select({ namespace: userChoices.namespace, operation: userChoices.operation, enabled: userChoices.enabled })
    .from(userChoices)
    .where(namespace ? and(base, eq(userChoices.namespace, namespace)) : base);
}

/** Whether agents may read a realm's description without a grant (no row: yes). */
export async function readOpenDescription(db: Executor, tenantId: string, namespace: string): Promise<boolean> {
  const [row] = await db
    .select({ open: realmSettings.openDescription })
    .from(realmSettings)
    .where(and(eq(realmSettings.tenantId, tenantId), eq(realmSettings.namespace, namespace)));
  return row?.open ?? true;
}

/** The realms of a tenant whose description the owner closed. */
export async function closedDescriptions(db: Executor, tenantId: string): Promise<Set<string>> {
  const rows = await db
    .select({ namespace: realmSettings.namespace })
    .from(realmSettings)
    .where(and(eq(realmSettings.tenantId, tenantId), eq(realmSettings.openDescription, false)));
  return new Set(rows.map((r) => r.namespace));
}

/** Per operation of a realm: the ceiling, the user's choice, and what their agents effectively may use. */
export async function operationStates(db: Executor, tenantId: string, userId: string, namespace: string): Promise<OperationState[]> {
  const realm = await requireRealm(db, tenantId, namespace);
  const ceiling = new Map((await readCeiling(db, tenantId, namespace)).map((r) => [r.operation, r.enabled]));
  const choice = new Map((await readChoices(db, tenantId, userId, namespace)).map((r) => [r.operation, r.enabled]));
  return operationKeysOf(realm.manifest).map((op) => {
    const c = ceiling.get(op) ?? true;
    const u = choice.get(op) ?? true;
    return { operation: op, ceiling: c, choice: u, effective: c && u };
  });
}

async function validOperations(db: Executor, tenantId: string, namespace: string, ops: string[]) {
  const realm = await requireRealm(db, tenantId, namespace);
  const known = new Set<string>(operationKeysOf(realm.manifest));
  const unknown = ops.filter((o) => !isOperationKey(o) || !known.has(o));
  if (unknown.length) {
    throw new AppError("invalid_input", `Unknown operation${unknown.length > 1 ? "s" : ""} for ${namespace}: ${unknown.slice(0, 5).join(", ")}.`, {
      details: { namespace, unknown: unknown.slice(0, 50) },
    });
  }
}

/** Owner only (enforced by the route): change the tenant ceiling and the realm's open description, in one transaction and one audit record. */
export async function changeCeiling(db: Db, who: UserContext, input: z.infer<typeof ceilingChangeBody>) {
  if (who.role !== "owner") throw new AppError("forbidden", "Only a tenant owner may change the ceiling.");
  const changes = input.changes ?? [];
  return db.transaction(async (tx) => {
    if (changes.length) await validOperations(tx, who.tenantId, input.namespace, changes.map((c) => c.operation));
    else await requireRealm(tx, who.tenantId, input.namespace);
    if (input.open_description !== undefined) {
      await tx
        .insert(realmSettings)
        .values({ tenantId: who.tenantId, namespace: input.namespace, openDescription: input.open_description, updatedBy: who.userId })
        .onConflictDoUpdate({
          target: [realmSettings.tenantId, realmSettings.namespace],
          set: { openDescription: input.open_description, updatedBy: who.userId, updatedAt: new Date() },
        });
    }
    for (const c of changes) {
      await tx
        .insert(ceilingSettings)
        .values({ tenantId: who.tenantId, namespace: input.namespace, operation: c.operation, enabled: c.enabled, updatedBy: who.userId })
        .onConflictDoUpdate({
          target: [ceilingSettings.tenantId, ceilingSettings.namespace, ceilingSettings.operation],
          set: { enabled: c.enabled, updatedBy: who.userId, updatedAt: new Date() },
        });
    }
    await recordChange(tx, who, "ceiling.changed", {
      namespace: input.namespace,
      details: { changes, ...(input.open_description !== undefined ? { open_description: input.open_description } : {}) },
    });
    return { operations: await operationStates(tx, who.tenantId, who.userId, input.namespace), open_description: await readOpenDescription(tx, who.tenantId, input.namespace) };
  });
}

/** Any member (not support, who only reads): narrow what their own agents may use. */
export async function changeChoices(db: Db, who: UserContext, input: z.infer<typeof settingsChangeBody>) {
  if (who.role === "support") throw new AppError("forbidden", "Support staff review; they do not change choices.");
  return db.transaction(async (tx) => {
    await validOperations(tx, who.tenantId, input.namespace, input.changes.map((c) => c.operation));
    for (const c of input.changes) {
      await tx
        .insert(userChoices)
        .values({ tenantId: who.tenantId, userId: who.userId, namespace: input.namespace, operation: c.operation, enabled: c.enabled })
        .onConflictDoUpdate({
          target: [userChoices.tenantId, userChoices.userId, userChoices.namespace, userChoices.operation],
          set: { enabled: c.enabled, updatedAt: new Date() },
        });
    }
    await recordChange(tx, who, "choice.changed", {
      namespace: input.namespace,
      details: { changes: input.changes },
    });
    return operationStates(tx, who.tenantId, who.userId, input.namespace);
  });
}
