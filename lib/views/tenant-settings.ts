// The workspace's settings for agents that the owner sets: today the catalog budget, what the tool catalog an agent
// is sent may weigh (the nine generic tools and its working set together). Every member reads it (the Agents page
// shows each agent's catalog against it); only an owner changes it, in one transaction with its audit record.
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import { tenants } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import type { UserContext } from "@/lib/authz/context";
import { AppError } from "@/lib/errors";
import { DEFAULT_CATALOG_BUDGET_BYTES, MAX_CATALOG_BUDGET_BYTES, MIN_CATALOG_BUDGET_BYTES } from "@/lib/working-set/budget";

export type TenantSettingsView = {
  catalog_budget_bytes: number;
  min: number;
  max: number;
  default: number;
};

const BUDGET_WORDS = `The catalog budget is a whole number of bytes from ${MIN_CATALOG_BUDGET_BYTES} (8 KB) to ${MAX_CATALOG_BUDGET_BYTES} (48 KB).`;

export const tenantSettingsBody = z.strictObject({
  catalog_budget_bytes: z
    .number({ error: BUDGET_WORDS })
    .int({ error: BUDGET_WORDS })
    .min(MIN_CATALOG_BUDGET_BYTES, { error: BUDGET_WORDS })
    .max(MAX_CATALOG_BUDGET_BYTES, { error: BUDGET_WORDS }),
});

const viewOf = (bytes: number): TenantSettingsView => ({ catalog_budget_bytes: bytes, min: MIN_CATALOG_BUDGET_BYTES, max: MAX_CATALOG_BUDGET_BYTES, default: DEFAULT_CATALOG_BUDGET_BYTES });

export async function readTenantSettings(db: Executor, who: Pick<UserContext, "tenantId">): Promise<TenantSettingsView> {
  const [row] = await db.select({ b: tenants.catalogBudgetBytes }).from(tenants).where(eq(tenants.id, who.tenantId));
  if (!row) throw new AppError("not_found", "No such workspace.");
  return viewOf(row.b);
}

/** Owner only: set the catalog budget. A save that changes nothing records nothing. */
export async function changeTenantSettings(db: Db, who: UserContext, input: z.infer<typeof tenantSettingsBody>): Promise<TenantSettingsView & { changed: boolean }> {
  if (who.role !== "owner") throw new AppError("forbidden", "Only a workspace owner may change its settings.", { details: { required_roles: ["owner"], role: who.role } });
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ b: tenants.catalogBudgetBytes }).from(tenants).where(eq(tenants.id, who.tenantId)).for("no key update");
    if (!row) throw new AppError("not_found", "No such workspace.");
    if (row.b === input.catalog_budget_bytes) return { ...viewOf(row.b), changed: false };
    await tx.update(tenants).set({ catalogBudgetBytes: input.catalog_budget_bytes }).where(eq(tenants.id, who.tenantId));
    await recordChange(tx, who, "tenant.settings_changed", {
      subjectId: who.tenantId,
      details: { before: { catalog_budget_bytes: row.b }, after: { catalog_budget_bytes: input.catalog_budget_bytes } },
    });
    return { ...viewOf(input.catalog_budget_bytes), changed: true };
  });
}
