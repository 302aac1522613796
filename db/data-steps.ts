// Start-up data steps: changes to existing rows that need TypeScript (a realm's ref parser), run after the SQL
// migrations, each exactly once (recorded in `data_steps`), under the migration lock on PostgreSQL. A step is
// idempotent on its own too: running it again changes nothing. Whoever opens the database for a process passes
// them: `openDb(runDataSteps)` (lib/startup.ts, scripts/*); db/client.ts never imports them.
import { eq } from "drizzle-orm";
import type { Db } from "./client";
import { dataSteps } from "./schema";

export type DataStep = { name: string; run: (db: Db) => Promise<string> };

/** The steps, in order. Loaded lazily: they use realm code, which must not load when the database module does. */
async function steps(): Promise<DataStep[]> {
  const { migratePrefixScopes } = await import("@/lib/authz/scope-migration");
  const { renameLegacyActions } = await import("@/lib/realms/openapi/legacy-names");
  // Names first: the prefix-scope step loads realms, whose manifests must pass today's naming rule.
  return [
    { name: "0011_legacy_action_names", run: renameLegacyActions },
    { name: "0011_prefix_scopes_to_refs", run: migratePrefixScopes },
  ];
}

export async function runDataSteps(db: Db): Promise<void> {
  for (const step of await steps()) {
    const [done] = await db.select().from(dataSteps).where(eq(dataSteps.name, step.name));
    if (done) continue;
    const summary = await step.run(db);
    await db.insert(dataSteps).values({ name: step.name, summary }).onConflictDoNothing();
  }
}
