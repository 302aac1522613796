// npm run bench:pipeline — what pairing BEGIN and COMMIT with statements (db/pipeline.ts) saves, on PostgreSQL, and
// what sending independent reads in one exchange (`inOneExchange`) saves on top of it.
//
// Two pools on one database in one process, side by side: the baseline sends every statement on its own (as with
// DB_PIPELINE=0), the other pairs BEGIN with the first statement and COMMIT with the one marked last. Both run the
// same transaction, shaped like a tool call's: a read with parameters, two more reads, a lock-and-read of a head
// row, then an insert marked last (a logged table, so COMMIT flushes the WAL like the audit's does). The pools take
// turns in blocks, so a machine whose speed drifts slows both alike; CPU is the client's (this process) and the
// server's (the two pools' backends, read from /proc), per transaction. The second comparison: both pools paired,
// the transaction's three reads one after another, or in one exchange. The third: a write's shape (its effect in a
// savepoint between the reads and the head row), its SAVEPOINT and RELEASE each on its own (as before 2026-12-05:
// sent here with a comment, which the pipeline does not hold) or held to ride with the statements next to them.
//
// BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) names a server where a scratch database
// may be created and dropped.
import pg from "pg";
import { sql } from "drizzle-orm";
import { commitWithNext, inOneExchange, pipelineTransactions, resetPipeline, type PgDriver } from "@/db/pipeline";
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
        ? pipelineTransactions(client, pg as unknown as PgDriver, own, () => s.exchanges++)
        : (...args: unknown[]) => {
            s.exchanges++;
            return own(...args);
          },
    ),
  };
  if (pipelined) s.pool.on("acquire", resetPipeline);
  return s;
}

type Db = Side["db"];
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
const reads = (tx: Tx, i: number) => [
  () => tx.execute(sql`select ${i}::int as n, now() as at`),
  () => tx.execute(sql`select count(*)::int as n from bench_pipeline_head where id = ${1}::int`),
  () => tx.execute(sql`select ${`k${i % 10}`}::text as k`),
];

/**
 * A tool call's shape: reads (`together`: in one exchange), with `write` an effect in a savepoint (its SAVEPOINT and
 * RELEASE held by the pipeline, or sent each on its own), the head row locked, the insert marked last.
 */
const call = (db: Db, i: number, together = false, write?: "held" | "alone") =>
  db.transaction(async (tx) => {
    if (together) await inOneExchange(tx, reads(tx, i));
    else for (const read of reads(tx, i)) await read();
    if (write) {
      // A comment after the name keeps the pipeline from holding the command (db/pipeline.ts matches the bare form).
      const alone = write === "alone" ? " -- on its own" : "";
      await tx.execute(sql.raw(`savepoint bench_effect${alone}`));
      await tx.execute(sql`insert into bench_pipeline_log (seq, body) values (${i}::int, ${"effect"}::text)`);
      await tx.execute(sql.raw(`release savepoint bench_effect${alone}`));
    }
    const [head] = (await tx.execute(sql`select seq from bench_pipeline_head where id = ${1 + (i % 10)}::int for update`)).rows as { seq: number }[];
    commitWithNext(tx);
    await tx.execute(sql`insert into bench_pipeline_log (seq, body) values (${Number(head?.seq ?? 0) + 1}::int, ${"x".repeat(200)}::text)`);
  });

type Variant = { label: string; pipelined: boolean; together: boolean; write?: "held" | "alone" };

/** Two variants side by side at each concurrency: a row each and their ratio (the second over the first). */
async function compare(url: string, [a, b]: [Variant, Variant], ratioLabel: string): Promise<string[]> {
  const rows: string[] = [];
  for (const concurrency of [1, 8]) {
    const variants = [a, b];
    const sides = variants.map((v) => side(url, v.label, v.pipelined));
    const acc = sides.map(() => ({ ...totals(), exchanges: 0 }));
    const block = async (k: number, record: boolean) => {
      const s = sides[k]!;
      const ex0 = s.exchanges;
      await measuredBlock(BLOCK, concurrency, s.pids, (n) => call(s.db, n, variants[k]!.together, variants[k]!.write), record ? acc[k] : undefined);
      if (record) acc[k]!.exchanges += s.exchanges - ex0;
    };
    for (const k of [0, 1]) await block(k, false); // warm-up: connections, prepared statements
    for (let r = 0; r < ROUNDS; r++) {
      for (const k of r % 2 ? [1, 0] : [0, 1]) await block(k, true);
    }
    const [base, other] = acc.map((x) => ({ ...perCall(x), exchanges: x.exchanges / x.n }));
    for (const [k, s] of sides.entries()) {
      const m = [base, other][k]!;
      rows.push(`| ${concurrency} | ${s.label} | ${m.exchanges.toFixed(1)} | ${ms(m.median)} | ${ms(m.p99)} | ${ms(m.client)} | ${m.server === null ? "—" : ms(m.server)} |`);
    }
    rows.push(
      `| ${concurrency} | **${ratioLabel}** | | **${ratio(base!.median, other!.median)}** | ${ratio(base!.p99, other!.p99)} | **${ratio(base!.client, other!.client)}** | ${base!.server && other!.server ? `**${ratio(base!.server, other!.server)}**` : "—"} |`,
    );
    console.log(rows.slice(-3).join("\n"));
    await Promise.all(sides.map((x) => x.pool.end()));
  }
  return rows;
}

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

  let paired: string[];
  let together: string[];
  let savepoints: string[];
  try {
    paired = await compare(
      url,
      [
        { label: "each statement on its own (DB_PIPELINE=0)", pipelined: false, together: false },
        { label: "BEGIN and COMMIT paired", pipelined: true, together: false },
      ],
      "paired ÷ baseline",
    );
    together = await compare(
      url,
      [
        { label: "paired, the three reads one after another", pipelined: true, together: false },
        { label: "paired, the three reads in one exchange (inOneExchange)", pipelined: true, together: true },
      ],
      "one exchange ÷ one after another",
    );
    savepoints = await compare(
      url,
      [
        { label: "paired, a write's SAVEPOINT and RELEASE each on its own", pipelined: true, together: true, write: "alone" },
        { label: "paired, SAVEPOINT and RELEASE held to ride with the statements next to them", pipelined: true, together: true, write: "held" },
      ],
      "held ÷ on its own",
    );
  } finally {
    await scratch.drop().catch(() => {});
  }

  writeSection(
    "pipeline",
    `## BEGIN and COMMIT paired with statements, independent reads in one exchange (\`npm run bench:pipeline\`)

PostgreSQL 127.0.0.1, two pools side by side in one process, taking turns in blocks of ${BLOCK} transactions (${ROUNDS} rounds
each, after a warm-up block). The transaction is shaped like a tool call's: three reads with parameters, a head row
read \`FOR UPDATE\` (one of 10), then an insert into a logged table marked as the last statement. **Baseline**: every
statement on its own (as with \`DB_PIPELINE=0\`). **Paired**: BEGIN travels with the first read, COMMIT with the insert
(\`db/pipeline.ts\`). "Round trips" are counted at the client; CPU per transaction is this process's and the two
pools' server backends' (from /proc); latencies are per transaction.

| concurrent transactions | | round trips | median | p99 | client CPU | server CPU |
|---|---|---:|---:|---:|---:|---:|
${paired.join("\n")}

Then, both pools paired, the same transaction with its three reads sent one after another, or gathered into one
exchange (\`inOneExchange\`, as a docs search asks for documents and threads, or a document for its tabs, counts and people).

| concurrent transactions | | round trips | median | p99 | client CPU | server CPU |
|---|---|---:|---:|---:|---:|---:|
${together.join("\n")}

Then a write's shape, reads in one exchange: an effect (one insert) in a savepoint before the head row, its SAVEPOINT
and RELEASE each sent on its own (as before 2026-12-05), or held to go in front of the next statement — the SAVEPOINT
with the effect's statement, the RELEASE with the head row's (a tool call's RELEASE rides with its audit append).

| concurrent transactions | | round trips | median | p99 | client CPU | server CPU |
|---|---|---:|---:|---:|---:|---:|
${savepoints.join("\n")}

${machineLine()}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
