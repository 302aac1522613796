// `npm run audit:export -- --tenant <slug|id> [--out <file>]`: one tenant's whole audit trail, ascending, one
// JSON record per line with exactly the fields the chain hashes and MACs (plus hash, kid and mac). Check it
// anywhere with `npm run audit:verify -- <file>`. The export is itself recorded (`audit.exported`, by the
// system) and included. Without --out the lines go to standard output.
import fs from "node:fs";
import { once } from "node:events";
import { closeDb, openDb } from "@/db/client";
import { runDataSteps } from "@/db/data-steps";
import { exportAuditLines, resolveTenant } from "@/lib/audit/export";
import { ConfigError, env } from "@/lib/env";

function arg(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

async function main(): Promise<number> {
  env();
  const slugOrId = arg("--tenant");
  if (!slugOrId) {
    console.error("Usage: npm run audit:export -- --tenant <slug|id> [--out <file>]");
    return 2;
  }
  const db = await openDb(runDataSteps);
  const tenant = await resolveTenant(db, slugOrId);
  const outFile = arg("--out");
  const out = outFile ? fs.createWriteStream(outFile, { flags: "wx", mode: 0o600 }) : process.stdout;
  let n = 0;
  const lanes = new Set<number>();
  for await (const line of exportAuditLines(db, tenant.id)) {
    if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, "drain");
    n++;
    lanes.add(line.lane);
  }
  if (outFile) {
    out.end();
    await once(out, "finish");
  }
  console.error(`Exported ${n} audit record(s) of tenant "${tenant.slug}" (${tenant.id}) in ${lanes.size} lane(s)${outFile ? ` to ${outFile}` : ""}.`);
  return 0;
}

main()
  .then(async (code) => {
    await closeDb();
    process.exit(code);
  })
  .catch(async (err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : `audit:export failed: ${err instanceof Error ? err.message : String(err)}`);
    await closeDb().catch(() => {});
    process.exit(1);
  });
