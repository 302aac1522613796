// npm run bench:pipeline — what pairing BEGIN and COMMIT with statements (db/pipeline.ts) saves, on PostgreSQL.
//
// Two pools on one database in one process, side by side: the baseline sends every statement on its own (as with
// DB_PIPELINE=0), the other pairs BEGIN with the first statement and COMMIT with the one marked last. Both run the
// same transaction, shaped like a tool call's: a read with parameters, two more reads, a lock-and-read of a head
// row, then an insert marked last (a logged table, so COMMIT flushes the WAL like the audit's does). The pools take
// turns in blocks, so a machine whose speed drifts slows both alike; CPU is the client's (this process) and the
// server's (the two pools' backends, read from /proc), per transaction.
//
// BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) names a server where a scratch database
// may be created and dropped.
import pg from "pg";
import { sql } from "drizzle-orm";
import { commitWithNext, pipelineTransactions, resetPipeline, type PgQueryClass } from "@/db/pipeline";
import { machineLine, ms, writeSection } from "./report";
import { scratchDatabase, type ScratchDatabase } from "./scratch-db";
import { measuredBlock, measuredPool, perCall, ratio, totals, type MeasuredPool } from "./turns";

const BLOCK = Number(process.env.BENCH_BLOCK ?? 250);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);

type Side = MeasuredPool & { label: string; exchanges: number };

function side(url: string, label: string, pipelined: boolean): Side {
  const s: Side = {
    label,
    exchanges: 0,
    ...measuredPool(url, (client, own) =>
      pipelined
        ? pipelineTransactions(client, pg.Query as unknown as PgQueryClass, own, () => s.exchanges++)
        : (...args: unknown[]) => {
            s.exchanges++;
            return own(...args);
          },
    ),
  };
  if (pipelined) s.pool.on("acquire", resetPipeline);
  return s;
}

const call = (db: Side["db"], i: number) =>
  db.transaction(async (tx) => {
    await tx.execute(sql`select ${i}::int as n, now() as at`);
    await tx.execute(sql`select count(*)::int as n from bench_pipeline_head where id = ${1}::int`);
    await tx.execute(sql`select ${`k${i % 10}`}::text as k`);
    const [head] = (await tx.execute(sql`select seq from bench_pipeline_head where id = ${1 + (i % 10)}::int for update`)).rows as { seq: number }[];
    commitWithNext(tx);
    await tx.execute(sql`insert into bench_pipeline_log (seq, body) values (${Number(head?.seq ?? 0) + 1}::int, ${"x".repeat(200)}::text)`);
  });

async function main() {
  let scratch: ScratchDatabase;
  try {
    scratch = await scratchDatabase("realmgate_bench_pipeline");
  } catch (err) {
    console.error(`bench:pipeline needs PostgreSQL (${(err as Error).message}); set BENCH_PG_ADMIN_URL.`);
    process.exit(1);
  }
  const url = scratch.url;
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query("create table bench_pipeline_head (id int primary key, seq int not null)");
  await setup.query("insert into bench_pipeline_head select g, 0 from generate_series(1, 10) g");
  await setup.query("create table bench_pipeline_log (id bigserial primary key, seq int not null, body text not null)");
  await setup.end();

  const rows: string[] = [];
  try {
    for (const concurrency of [1, 8]) {
      const sides = [side(url, "each statement on its own (DB_PIPELINE=0)", false), side(url, "BEGIN and COMMIT paired", true)];
      const acc = sides.map(() => ({ ...totals(), exchanges: 0 }));
      const block = async (s: Side, k: number, record: boolean) => {
        const ex0 = s.exchanges;
        await measuredBlock(BLOCK, concurrency, s.pids, (n) => call(s.db, n), record ? acc[k] : undefined);
        if (record) acc[k]!.exchanges += s.exchanges - ex0;
      };
      for (const [k, s] of sides.entries()) await block(s, k, false); // warm-up: connections, prepared statements
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 ? [1, 0] : [0, 1];
        for (const k of order) await block(sides[k]!, k, true);
      }
      const [base, piped] = acc.map((a) => ({ ...perCall(a), exchanges: a.exchanges / a.n }));
      for (const [k, s] of sides.entries()) {
        const m = [base, piped][k]!;
        rows.push(
          `| ${concurrency} | ${s.label} | ${m.exchanges.toFixed(1)} | ${ms(m.median)} | ${ms(m.p99)} | ${ms(m.client)} | ${m.server === null ? "—" : ms(m.server)} |`,
        );
      }
      rows.push(
        `| ${concurrency} | **paired ÷ baseline** | | **${ratio(base!.median, piped!.median)}** | ${ratio(base!.p99, piped!.p99)} | **${ratio(base!.client, piped!.client)}** | ${base!.server && piped!.server ? `**${ratio(base!.server, piped!.server)}**` : "—"} |`,
      );
      console.log(rows.slice(-3).join("\n"));
      await Promise.all(sides.map((s) => s.pool.end()));
    }
  } finally {
    await scratch.drop().catch(() => {});
  }

  writeSection(
    "pipeline",
    `## BEGIN and COMMIT paired with statements (\`npm run bench:pipeline\`)

PostgreSQL 127.0.0.1, two pools side by side in one process, taking turns in blocks of ${BLOCK} transactions (${ROUNDS} rounds
each, after a warm-up block). The transaction is shaped like a tool call's: three reads with parameters, a head row
read \`FOR UPDATE\` (one of 10), then an insert into a logged table marked as the last statement. **Baseline**: every
statement on its own (as with \`DB_PIPELINE=0\`). **Paired**: BEGIN travels with the first read, COMMIT with the insert
(\`db/pipeline.ts\`). "Round trips" are counted at the client; CPU per transaction is this process's and the two
pools' server backends' (from /proc); latencies are per transaction.

| concurrent transactions | | round trips | median | p99 | client CPU | server CPU |
|---|---|---:|---:|---:|---:|---:|
${rows.join("\n")}

${machineLine()}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
