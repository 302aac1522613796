// Start-up: validate configuration, open (and migrate) the database, seed the demo when asked.
// Any failure prints one clear line and exits non-zero instead of serving a broken app.
import { ConfigError, env } from "@/lib/env";

export async function startUp(): Promise<void> {
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  try {
    const cfg = env();
    // Provider and vault settings are checked now, not on first use.
    const { configuredProviders } = await import("@/lib/connections/providers");
    const { keyring } = await import("@/lib/connections/vault");
    const { auditKeyring, auditSigner } = await import("@/lib/audit/keys");
    try {
      configuredProviders();
      keyring();
      auditKeyring();
      auditSigner();
    } catch (err) {
      // A ConfigError already reads "Invalid configuration: …"; anything else gets the prefix once.
      if (err instanceof ConfigError) throw err;
      throw new ConfigError(`Invalid configuration: ${(err as Error).message}`);
    }
    const { openDb, DatabaseUnavailableError } = await import("@/db/client");
    const { runDataSteps } = await import("@/db/data-steps");
    let db;
    try {
      db = await openDb(runDataSteps);
    } catch (err) {
      if (err instanceof DatabaseUnavailableError) throw new ConfigError(err.message);
      throw err;
    }
    if (cfg.REALMGATE_SEED_DEMO) {
      const { seedDemoTenant } = await import("@/lib/demo");
      const demo = await seedDemoTenant(db, { dataDir: cfg.dataDir, appUrl: cfg.appUrl });
      console.log(`Realmgate demo tenant "${demo.tenant.slug}" ready; sign-in details and API keys in ${cfg.dataDir}/demo.json`);
    }
    // Audit checkpoints: an interval in this server process (one node writes, under an advisory lock).
    const { startAuditCheckpoints } = await import("@/lib/audit/checkpoints");
    startAuditCheckpoints(db);
    // Rate-limit tallies past their window: swept once a second, off the calls' path.
    const { startTallySweeps } = await import("@/lib/limits/rate-limit");
    startTallySweeps(db);
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : `Realmgate could not start: ${(err as Error).stack ?? err}`);
    process.exit(1);
  }
}
