// The demo workspace's modes: besides its destructive operations (which a new workspace starts at ask), sending
// and replying to mail ask each time, so the demo shows a single-call approval with mail `send`. Written only where
// the owner never set the operation, so a later change in the demo stays.
import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { ceilingSettings } from "@/db/schema";
import type { DemoSeedStep } from "@/db/seed";
import { findRealm } from "@/lib/realms/registry";

/** Realm → operations the demo asks each time. Realms not registered in this build are skipped. */
export const demoAskModes: Record<string, string[]> = {
  mail: ["object.action.send", "object.action.reply"],
  docs: ["object.delete"],
};

export const seedDemoModes: DemoSeedStep = async (db: Db, demo) => {
  const tenantId = demo.tenant.id;
  const alice = demo.users.alice!;
  for (const [namespace, operations] of Object.entries(demoAskModes)) {
    if (!(await findRealm(db, tenantId, namespace))) continue;
    for (const operation of operations) {
      const [set] = await db
        .select({ mode: ceilingSettings.mode })
        .from(ceilingSettings)
        .where(and(eq(ceilingSettings.tenantId, tenantId), eq(ceilingSettings.namespace, namespace), eq(ceilingSettings.operation, operation)));
      if (set) continue;
      await db.insert(ceilingSettings).values({ tenantId, namespace, operation, mode: "ask", updatedBy: alice.user_id }).onConflictDoNothing();
    }
  }
};
