// The owner ceiling and user choices: an operation's mode per row (off, ask, on); no row means the default
// (on, or ask for a destructive operation in a tenant that starts them there). The effective mode for a
// user's agents is the stricter of ceiling and choice (then each actor's grants or a single-call approval, in
// gate one).
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { ceilingSettings, operationModes, realmSettings, tenants, userChoices, type OperationMode } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { isOperationKey, operationKeysOf, riskOf, type OperationKey } from "@/lib/realms/contract";
import { requireRealm } from "@/lib/realms/registry";
import type { UserContext } from "./context";
import { defaultCeilingMode, effectiveMode, modeOf } from "./modes";
import { voidApprovals } from "./void-approvals";

export const settingsChangeBody = z.strictObject({
  namespace: z.string().min(1).max(64),
  changes: z
    .array(
      z
        .strictObject({ operation: z.string().min(1).max(250), mode: z.enum(operationModes).optional(), enabled: z.boolean().optional() })
        .refine((c) => (c.mode === undefined) !== (c.enabled === undefined), "give each change a mode (off, ask, on) or enabled, not both"),
    )
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
    /** Agents act only on the actions they selected (their working set): object_action on another is operation_not_selected. */
    selected_only: z.boolean().optional(),
  })
  .refine((b) => b.changes !== undefined || b.open_description !== undefined || b.selected_only !== undefined, "give changes, open_description or selected_only");

/**
 * One operation for one person: the owner's mode (`ceiling_mode`, the default where never set), the person's own
 * (`choice_mode`), and what their agents get (`mode`, the stricter). The booleans say "not off" for each.
 */
export type OperationState = {
  operation: OperationKey;
  ceiling: boolean;
  choice: boolean;
  effective: boolean;
  ceiling_mode: OperationMode;
  choice_mode: OperationMode;
  mode: OperationMode;
};

export async function readCeiling(db: Executor, tenantId: string, namespace?: string) {
  return db
    .select({ namespace: ceilingSettings.namespace, operation: ceilingSettings.operation, mode: ceilingSettings.mode })
    .from(ceilingSettings)
    .where(namespace ? and(eq(ceilingSettings.tenantId, tenantId), eq(ceilingSettings.namespace, namespace)) : eq(ceilingSettings.tenantId, tenantId));
}

export async function readChoices(db: Executor, tenantId: string, userId: string, namespace?: string) {
  const base = and(eq(userChoices.tenantId, tenantId), eq(userChoices.userId, userId));
  return db
    .select({ namespace: userChoices.namespace, operation: userChoices.operation, mode: userChoices.mode })
    .from(userChoices)
    .where(namespace ? and(base, eq(userChoices.namespace, namespace)) : base);
}

/** The ceiling mode of a destructive operation the owner never set, for this tenant. */
export async function readDestructiveDefault(db: Executor, tenantId: string): Promise<"ask" | "on"> {
  const [row] = await db.select({ d: tenants.destructiveDefault }).from(tenants).where(eq(tenants.id, tenantId));
  return row?.d ?? "on";
}

/** Whether agents act only on the actions in their working set in this realm (no row: no). */
export async function readSelectedOnly(db: Executor, tenantId: string, namespace: string): Promise<boolean> {
  const [row] = await db
    .select({ only: realmSettings.selectedOnly })
    .from(realmSettings)
    .where(and(eq(realmSettings.tenantId, tenantId), eq(realmSettings.namespace, namespace)));
  return row?.only ?? false;
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
  const ceiling = new Map((await readCeiling(db, tenantId, namespace)).map((r) => [r.operation, r.mode]));
  const choice = new Map((await readChoices(db, tenantId, userId, namespace)).map((r) => [r.operation, r.mode]));
  const destructiveDefault = await readDestructiveDefault(db, tenantId);
  return operationKeysOf(realm.manifest).map((op) => {
    const risk = riskOf(realm.manifest, op);
    const c = ceiling.get(op) ?? defaultCeilingMode(risk, destructiveDefault);
    const u = choice.get(op) ?? "on";
    const mode = effectiveMode(c, u, risk, destructiveDefault);
    return { operation: op, ceiling: c !== "off", choice: u !== "off", effective: mode !== "off", ceiling_mode: c, choice_mode: u, mode };
  });
}

type ModeChange = { operation: string; mode?: OperationMode; enabled?: boolean };

/** Every change names an operation of the realm, and asks only for a mode the operation can have (a read: on or off). */
async function validChanges(db: Executor, tenantId: string, namespace: string, changes: ModeChange[]) {
  const realm = await requireRealm(db, tenantId, namespace);
  const known = new Set<string>(operationKeysOf(realm.manifest));
  const unknown = changes.map((c) => c.operation).filter((o) => !isOperationKey(o) || !known.has(o));
  if (unknown.length) {
    throw new AppError("invalid_input", `Unknown operation${unknown.length > 1 ? "s" : ""} for ${namespace}: ${unknown.slice(0, 5).join(", ")}.`, {
      details: { namespace, unknown: unknown.slice(0, 50) },
    });
  }
  const askedReads = changes.filter((c) => c.mode === "ask" && riskOf(realm.manifest, c.operation as OperationKey) === "read").map((c) => c.operation);
  if (askedReads.length) {
    throw new AppError("invalid_input", `Read operations are on or off, never ask: ${askedReads.slice(0, 5).join(", ")}.`, {
      details: { namespace, field: "changes[].mode", read_operations: askedReads.slice(0, 50) },
    });
  }
}

/** Owner only (enforced by the route): change the tenant ceiling and the realm's open description, in one transaction and one audit record. */
export async function changeCeiling(db: Db, who: UserContext, input: z.infer<typeof ceilingChangeBody>) {
  if (who.role !== "owner") throw new AppError("forbidden", "Only a tenant owner may change the ceiling.");
  const changes = input.changes ?? [];
  return db.transaction(async (tx) => {
    if (changes.length) await validChanges(tx, who.tenantId, input.namespace, changes);
    else await requireRealm(tx, who.tenantId, input.namespace);
    if (input.open_description !== undefined || input.selected_only !== undefined) {
      const set = {
        ...(input.open_description !== undefined ? { openDescription: input.open_description } : {}),
        ...(input.selected_only !== undefined ? { selectedOnly: input.selected_only } : {}),
      };
      await tx
        .insert(realmSettings)
        .values({ tenantId: who.tenantId, namespace: input.namespace, ...set, updatedBy: who.userId })
        .onConflictDoUpdate({ target: [realmSettings.tenantId, realmSettings.namespace], set: { ...set, updatedBy: who.userId, updatedAt: new Date() } });
    }
    for (const c of changes) {
      const mode = modeOf(c);
      await tx
        .insert(ceilingSettings)
        .values({ tenantId: who.tenantId, namespace: input.namespace, operation: c.operation, mode, updatedBy: who.userId })
        .onConflictDoUpdate({
          target: [ceilingSettings.tenantId, ceilingSettings.namespace, ceilingSettings.operation],
          set: { mode, updatedBy: who.userId, updatedAt: new Date() },
        });
    }
    // Turned off, an operation's pending and approved-but-unused approvals no longer count (everyone's).
    const off = changes.filter((c) => modeOf(c) === "off").map((c) => c.operation);
    if (off.length) await voidApprovals(tx, who.tenantId, { namespace: input.namespace, operations: off }, "the owner turned the operation off", who.requestId);
    await recordChange(tx, who, "ceiling.changed", {
      namespace: input.namespace,
      details: { changes: changes.map((c) => ({ operation: c.operation, mode: modeOf(c) })), ...(input.open_description !== undefined ? { open_description: input.open_description } : {}),
        ...(input.selected_only !== undefined ? { selected_only: input.selected_only } : {}),
      },
    });
    return {
      operations: await operationStates(tx, who.tenantId, who.userId, input.namespace),
      open_description: await readOpenDescription(tx, who.tenantId, input.namespace),
      selected_only: await readSelectedOnly(tx, who.tenantId, input.namespace),
    };
  });
}

/** Any member (not support, who only reads): narrow what their own agents may use. */
export async function changeChoices(db: Db, who: UserContext, input: z.infer<typeof settingsChangeBody>) {
  if (who.role === "support") throw new AppError("forbidden", "Support staff review; they do not change choices.");
  return db.transaction(async (tx) => {
    await validChanges(tx, who.tenantId, input.namespace, input.changes);
    for (const c of input.changes) {
      const mode = modeOf(c);
      await tx
        .insert(userChoices)
        .values({ tenantId: who.tenantId, userId: who.userId, namespace: input.namespace, operation: c.operation, mode })
        .onConflictDoUpdate({
          target: [userChoices.tenantId, userChoices.userId, userChoices.namespace, userChoices.operation],
          set: { mode, updatedAt: new Date() },
        });
    }
    // Turned off, the operation's approvals for this person's agents no longer count.
    const off = input.changes.filter((c) => modeOf(c) === "off").map((c) => c.operation);
    if (off.length) await voidApprovals(tx, who.tenantId, { namespace: input.namespace, operations: off, grantorId: who.userId }, "their user turned the operation off", who.requestId);
    await recordChange(tx, who, "choice.changed", {
      namespace: input.namespace,
      details: { changes: input.changes.map((c) => ({ operation: c.operation, mode: modeOf(c) })) },
    });
    return operationStates(tx, who.tenantId, who.userId, input.namespace);
  });
}
