// npm run bench:gate — the cost of gate one + its audit record per call, on PGlite and on PostgreSQL, side by
// side with a baseline transaction that does the same round trips' worth of nothing (a `select 1`).
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { scratchDatabase, type ScratchDatabase } from "./scratch-db";
process.env.AUTH_SECRET ??= randomBytes(32).toString("base64url");
process.env.APP_URL ??= "http://localhost:3000";

const N = Number(process.env.BENCH_N ?? 2000);

async function run(label: string) {
  const { closeDb, getDb } = await import("@/db/client");
  const { makeTenant } = await import("@/test-support");
  const { makeActor, grant } = await import("@/test-support");
  const { readAndDecideGateOne } = await import("@/lib/authz/gate-read");
  const { recordAudit } = await import("@/lib/audit/record");
  const { timeIt, stats } = await import("./report");
  const t = await makeTenant({ alice: "owner" });
  const agent = await makeActor(t, t.users.alice!);
  await grant(t, t.users.alice!, agent.actorId, "docs", ["object.get", "object.list"]);
  const db = await getDb();
  const principal = { type: "actor" as const, actorId: agent.actorId, grantorId: agent.grantorId, actorKind: "hosted_agent" };

  const baseline = await timeIt(N, () => db.transaction(async (tx) => void (await tx.execute(sql`select 1`))));
  const gated = await timeIt(N, () =>
    db.transaction(async (tx) => {
      const d = await readAndDecideGateOne(tx, { tenantId: t.tenantId, principal, namespace: "docs", operation: "object.get", refs: ["docs:document:doc_x"], now: new Date() });
      await recordAudit(tx, { tenantId: t.tenantId, event: "tool.call", principal: { type: "actor", actorId: agent.actorId, grantorId: agent.grantorId }, namespace: "docs", operation: "object.get", outcome: d.allow ? "allow" : "deny", details: { tool: "get_object" } });
    }),
  );
  await closeDb();
  return { label, baseline: stats(baseline), gated: stats(gated) };
}

async function main() {
  const { reloadEnv } = await import("@/lib/env");
  const { writeSection, ms, machineLine } = await import("./report");
  process.env.REALMGATE_DATA_DIR = ":memory:";
  delete process.env.DATABASE_URL;
  reloadEnv();
  const results = [await run("PGlite (embedded, in memory)")];

  let scratch: ScratchDatabase | null = null;
  try {
    scratch = await scratchDatabase("realmgate_bench");
    process.env.DATABASE_URL = scratch.url;
    reloadEnv();
    results.push(await run("PostgreSQL 127.0.0.1"));
  } catch (err) {
    console.warn(`PostgreSQL run skipped: ${(err as Error).message}`);
  } finally {
    await scratch?.drop().catch(() => {});
  }

  const rows = results.map(
    (r) =>
      `| ${r.label} | ${ms(r.baseline.median)} | ${ms(r.baseline.p99)} | ${ms(r.gated.median)} | ${ms(r.gated.p99)} | ${(r.gated.median / r.baseline.median).toFixed(2)}× | ${ms(r.gated.median - r.baseline.median)} |`,
  );
  const md = `## Gate one + audit per call (\`npm run bench:gate\`)

${N} calls each, sequential, after warm-up. **Baseline**: a transaction running \`select 1\`. **Gated**: a transaction
that reads gate one (ceiling, grantor's choice, the actor's grants FOR SHARE) and writes the hash-chained audit record
(locking the tenant's chain head) — what every tool call pays before and after its realm's effect.

| database | baseline median | baseline p99 | gate one + audit median | p99 | ratio (median) | added per call |
|---|---|---|---|---|---|---|
${rows.join("\n")}

${machineLine()}`;
  writeSection("gate", md);
  console.log(md);
}

void main();
