// npm run bench:ratelimit — what one rate-limit check costs on PostgreSQL as a window fills: the tallies of
// lib/limits/rate-limit.ts against the baseline they replaced (a stamp per counted request, each check summing
// every stamp of the window), side by side.
//
// Two pools on one scratch database in one process, each with its own table of the same shape (rate_limit_hits'
// migration). Both count into 200 buckets (actors) in turn; before each level every bucket is filled to that many
// calls in the current window, then the pools take turns in blocks of checks. CPU is the client's (this process)
// and the server's (each pool's backends, from /proc), per check; latencies are per check. Every check is one
// statement, prepared once per connection as in the app (db/prepared.ts).
//
// BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) names a server where a scratch database
// may be created and dropped.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { hitRateLimit, limitValues, type Limit } from "@/lib/limits/rate-limit";
import { machineLine, ms, writeSection } from "./report";
import { scratchDatabase } from "./scratch-db";
import { measuredBlock, measuredPool, perCall, ratio, totals } from "./turns";

const BLOCK = Number(process.env.BENCH_BLOCK ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const BUCKETS = 200;
const LEVELS = [1, 100, 300];
const LIMIT: Limit = { limit: 1_000_000, windowSeconds: 3600 };
/** One window for the whole run: a clock crossing a window's end mid-level would empty every bucket. */
const NOW = new Date(Date.UTC(2030, 0, 1, 12, 0, 0));

type Check = (db: Executor, bucket: string) => Promise<unknown>;
type Side = { label: string; db: Executor; pool: pg.Pool; pids: Set<number>; check: Check; table: string };

/** The baseline: the limiter as it was before the tallies (a stamp per check; the count reads the window's stamps). */
function stampCheck(table: string): Check {
  const t = sql.raw(table);
  return async (db, bucket) => {
    const v = limitValues(LIMIT, NOW);
    const text: SQL = sql`with rl_b as (select ${bucket}::text as bucket),
      rl_w as (select rl_b.bucket, greatest(${v.rl_window_start}::timestamptz, (select max(h.window_start) from ${t} h where h.bucket = rl_b.bucket)) as ws from rl_b),
      rl_n as (select coalesce(sum(s.weight), 0)::int as n from (select h.weight from ${t} h, rl_w where h.bucket = rl_w.bucket and h.window_start = rl_w.ws limit ${LIMIT.limit + 1}) s),
      rl_ins as (insert into ${t} (bucket, window_start, weight, expires_at) select rl_w.bucket, rl_w.ws, ${v.rl_weight}::int, rl_w.ws + make_interval(secs => ${v.rl_window_seconds}::int) from rl_w),
      rl_gc as (delete from ${t} where ctid = any(array(select ctid from ${t} where expires_at < now() - make_interval(secs => 60) order by expires_at limit 16 for update skip locked)))
      select (select n + 1 from rl_n) as rl_count`;
    return db.execute(text);
  };
}

function side(url: string, label: string, table: string, check: Check): Side {
  const m = measuredPool(url);
  return { label, db: m.db as unknown as Executor, pool: m.pool, pids: m.pids, check, table };
}

async function main() {
  let scratch;
  try {
    scratch = await scratchDatabase("realmgate_bench_ratelimit");
  } catch (err) {
    console.error(`bench:ratelimit needs PostgreSQL (${(err as Error).message}); set BENCH_PG_ADMIN_URL.`);
    process.exit(1);
  }
  const ddl = fs.readFileSync(path.join(process.cwd(), "db/migrations/0014_rate_limit_stamps.sql"), "utf8").split("--> statement-breakpoint");
  const setup = new pg.Client({ connectionString: scratch.url });
  await setup.connect();
  for (const stmt of ddl) await setup.query(stmt);
  // The baseline's own table, the same shape and indexes.
  await setup.query("create table bench_stamps (like rate_limit_hits including all)");
  await setup.end();

  const sides = [side(scratch.url, "baseline: a stamp per check", "bench_stamps", stampCheck("bench_stamps")), side(scratch.url, "tallies (lib/limits)", "rate_limit_hits", (db, b) => hitRateLimit(db, b, LIMIT, NOW))];
  const rows: string[] = [];
  const counted = sides.map(() => 0);
  const bucketOf = (i: number) => `calls:actor_${i % BUCKETS}`;
  try {
    for (const level of LEVELS) {
      for (const concurrency of [1, 8]) {
        const acc = sides.map(totals);
        // Fill every bucket up to `level` calls in the window (on both sides alike), eight at a time.
        for (const [k, s] of sides.entries()) {
          const from = counted[k]!;
          const want = Math.max(0, level * BUCKETS - from);
          await measuredBlock(want, 8, s.pids, (i) => s.check(s.db, bucketOf(from + i)));
          counted[k] = from + want;
        }
        const block = async (k: number) => {
          const s = sides[k]!;
          const from = counted[k]!;
          await measuredBlock(BLOCK, concurrency, s.pids, (i) => s.check(s.db, bucketOf(from + i)), acc[k]);
          counted[k] = from + BLOCK;
        };
        for (let r = 0; r < ROUNDS; r++) for (const k of r % 2 ? [1, 0] : [0, 1]) await block(k);
        const m = acc.map(perCall);
        const perBucket = await Promise.all(sides.map(async (s) => Number(((await s.pool.query(`select count(*)::float8 / ${BUCKETS} as n from ${s.table}`)).rows[0] as { n: number }).n)));
        for (const [k, s] of sides.entries()) {
          rows.push(`| ${level} | ${concurrency} | ${s.label} | ${perBucket[k]!.toFixed(1)} | ${ms(m[k]!.median)} | ${ms(m[k]!.p99)} | ${ms(m[k]!.client)} | ${m[k]!.server === null ? "—" : ms(m[k]!.server!)} |`);
        }
        const [base, tal] = m as [(typeof m)[0], (typeof m)[0]];
        rows.push(`| ${level} | ${concurrency} | **tallies ÷ baseline** | | **${ratio(base.median, tal.median)}** | ${ratio(base.p99, tal.p99)} | ${ratio(base.client, tal.client)} | ${base.server && tal.server ? `**${ratio(base.server, tal.server)}**` : "—"} |`);
        console.log(rows.slice(-3).join("\n"));
      }
    }
  } finally {
    await Promise.all(sides.map((s) => s.pool.end().catch(() => {})));
    await scratch.drop().catch(() => {});
  }

  writeSection(
    "ratelimit",
    `## One rate-limit check as the window fills (\`npm run bench:ratelimit\`)

PostgreSQL 127.0.0.1, two pools side by side in one process, each counting into its own table of
\`rate_limit_hits\`' shape, over ${BUCKETS} buckets (actors) in turn. Before each level every bucket holds that many calls
in the current window; then the pools take turns in blocks of ${BLOCK} checks (${ROUNDS} rounds). **Baseline**: the limiter
before the tallies (a stamp per check; the count reads every stamp of the window). **Tallies**: \`lib/limits/rate-limit.ts\`
(a check adds to a tally no open call holds, SKIP LOCKED, or starts one). "Rows per bucket" is the table's rows over
the buckets after the level. CPU per check is this process's and each pool's server backends' (from /proc).

| calls in the window | concurrent checks | | rows per bucket | median | p99 | client CPU | server CPU |
|---:|---:|---|---:|---:|---:|---:|---:|
${rows.join("\n")}

${machineLine()}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
