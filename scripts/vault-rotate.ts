// `npm run vault:rotate`: re-seal every stored provider token under the current vault key (the first in
// REALMGATE_VAULT_KEYS). Run it after putting a new key first and keeping the old ones after it; once it
// reports nothing unreadable, the old keys can be removed. Records that do not open are left untouched and
// listed, and the command exits non-zero. `--tenant <tenant id>` re-seals one workspace's records only (to try a
// new key on one workspace first).
import { closeDb, openDb } from "@/db/client";
import { runDataSteps } from "@/db/data-steps";
import { rotateVault } from "@/lib/connections/rotate";
import { keyring } from "@/lib/connections/vault";
import { ConfigError, env } from "@/lib/env";

async function main(): Promise<number> {
  env();
  const ring = keyring();
  if (ring.source === "auth_secret") {
    console.error("REALMGATE_VAULT_KEYS is not set: tokens are sealed with the development key derived from AUTH_SECRET. Set REALMGATE_VAULT_KEYS=\"<new kid>:<base64 key>\" to rotate onto a real key.");
  }
  const at = process.argv.indexOf("--tenant");
  const tenantId = at >= 0 ? process.argv[at + 1] : undefined;
  if (at >= 0 && !tenantId?.startsWith("ten_")) {
    console.error("--tenant takes a workspace's id (ten_…).");
    return 2;
  }
  const report = await rotateVault(await openDb(runDataSteps), ring, tenantId ? { tenantId } : {});
  if (tenantId) console.log(`Only workspace ${tenantId}.`);
  console.log(`Vault key in use: ${report.current_kid}. Re-sealed ${report.rewrapped} record(s); ${report.already_current} already current.`);
  for (const u of report.unreadable) console.error(`Unreadable: account ${u.account_id} (key ${u.kid ?? "none"}): ${u.reason}`);
  if (report.unreadable.length) {
    console.error(`${report.unreadable.length} record(s) could not be opened with the configured keys and were left as they are. Keep their old key in REALMGATE_VAULT_KEYS and run again, or have their owners reconnect.`);
    return 1;
  }
  return 0;
}

main()
  .then(async (code) => {
    await closeDb();
    process.exit(code);
  })
  .catch(async (err: unknown) => {
    console.error(err instanceof ConfigError || (err instanceof Error && err.name === "VaultError") ? err.message : `vault:rotate failed: ${err instanceof Error ? err.message : String(err)}`);
    await closeDb().catch(() => {});
    process.exit(1);
  });
