// A fixed-window rate limiter kept in PostgreSQL, so every stateless app node counts against the same window.
// No hot row and a check that costs the same at any count: a window's count is the sum of its bucket's tallies
// (`rate_limit_hits`), and a check adds its weight to a tally no other open check holds (FOR UPDATE SKIP LOCKED),
// or starts a tally of its own when every one is held. So an actor's concurrent calls never wait on each other,
// a bucket has about as many tallies per window as it had calls in flight at once (a few more when checks race),
// not one per request, which made every check read the whole window (0.9 ms of PostgreSQL CPU per check with 100
// calls in the window against 0.2: `npm run bench:ratelimit`), and a check reads a handful of rows. One statement
// per check (`limitCtes`, which other statements embed: authentication counts the call in its own statement):
// read the window's tallies, and add to one or start one. Expired tallies are swept off the calls' path, by a job
// every server process runs once a second (`startTallySweeps`, started by lib/startup.ts; SKIP LOCKED, so nobody
// waits): a sweep inside every check cost each call's statement two more parts to set up (~5 % of a tool call).
import { sql, type SQL } from "drizzle-orm";
import type { Db, Executor } from "@/db/client";
import { AppError } from "@/lib/errors";

export type Limit = { limit: number; windowSeconds: number };
export type LimitResult = { allowed: boolean; count: number; retryAfterSeconds: number };

/** Expired tallies a sweep deletes at most (of any bucket), and how long past its window (by the database's clock) a tally is kept. */
const SWEEP_BATCH = 500;
const SWEEP_GRACE_SECONDS = 60;

/** The values `limitCtes` and `limitColumns` take: given directly, or as placeholders of a compiled statement (db/compiled.ts). */
export type LimitValues = { rl_window_start: unknown; rl_weight: unknown; rl_window_seconds: unknown };

/** The last window start written out: every call in a window names the same one (one Date and ISO string less per call). */
let lastWindow = { ms: Number.NaN, iso: "" };

/** The values of one check: the window `now` falls in, and the weight. */
export function limitValues(l: Limit, now: Date, weight = 1): LimitValues {
  const windowMs = l.windowSeconds * 1000;
  const startMs = Math.floor(now.getTime() / windowMs) * windowMs;
  if (startMs !== lastWindow.ms) lastWindow = { ms: startMs, iso: new Date(startMs).toISOString() };
  return {
    rl_window_start: lastWindow.iso,
    rl_weight: weight,
    rl_window_seconds: l.windowSeconds,
  };
}

/**
 * The CTEs (`rl_b`, `rl_w`, `rl_n`, `rl_add`, `rl_new`) that count the weight into `bucket` (an SQL expression; null
 * counts nothing) for the window of `limitValues`, to put in a statement's WITH list; `limitColumns` are their
 * answer. A node whose clock lags may name an older window: it then counts into the newest one the bucket has.
 * `rl_add` adds the weight to one of the window's tallies that no open transaction holds; `rl_new` starts a tally
 * when there is none or all are held (also when the one `rl_add` locked was changed after this statement's
 * snapshot: one more tally, never a lost count). The count is the tallies as this statement's snapshot sees them,
 * plus its own weight. Expired tallies are left to the sweep (`sweepExpiredTallies`).
 */
export function limitCtes(bucket: SQL, v: LimitValues): SQL {
  return sql`rl_b as (select ${bucket}::text as bucket),
    rl_w as (
      select rl_b.bucket, greatest(${v.rl_window_start}::timestamptz, (select max(h.window_start) from rate_limit_hits h where h.bucket = rl_b.bucket)) as ws
      from rl_b where rl_b.bucket is not null),
    rl_n as (
      select coalesce(sum(h.weight), 0)::int as n from rate_limit_hits h, rl_w where h.bucket = rl_w.bucket and h.window_start = rl_w.ws),
    rl_add as (
      update rate_limit_hits set weight = rate_limit_hits.weight + ${v.rl_weight}::int
      where ctid = (select h.ctid from rate_limit_hits h, rl_w where h.bucket = rl_w.bucket and h.window_start = rl_w.ws limit 1 for update of h skip locked)
      returning 1),
    rl_new as (
      insert into rate_limit_hits (bucket, window_start, weight, expires_at)
      select rl_w.bucket, rl_w.ws, ${v.rl_weight}::int, rl_w.ws + make_interval(secs => ${v.rl_window_seconds}::int) from rl_w
      where not exists (select 1 from rl_add))`;
}

/**
 * The expired tallies one sweep deletes: at most SWEEP_BATCH, oldest first along `rate_limit_hits_expires`, skipping
 * any a check holds. The order is what keeps it cheap: a sweep that finds nothing expired reads one index entry,
 * where without it the planner's generic plan scanned every live tally.
 */
export const expiredTallies = sql.raw(
  `select ctid from rate_limit_hits where expires_at < now() - make_interval(secs => ${SWEEP_GRACE_SECONDS}) order by expires_at limit ${SWEEP_BATCH} for update skip locked`,
);

/**
 * One sweep: delete up to SWEEP_BATCH expired tallies of any bucket (those a check holds are skipped). Matching
 * tallies by ctid may scan the table, so when nothing has expired (almost every sweep) the delete is skipped
 * outright: its condition on `x` alone is a one-time filter.
 */
export const sweepStatement = sql`with x as materialized (select array(${expiredTallies}) as ids)
  delete from rate_limit_hits where ctid = any((select ids from x)::tid[]) and (select cardinality(ids) > 0 from x)`;

/** Run one sweep (`sweepStatement`): how many tallies went. */
export async function sweepExpiredTallies(db: Executor): Promise<number> {
  const r = (await db.execute(sweepStatement)) as unknown as { rowCount?: number | null; affectedRows?: number };
  return Number(r.rowCount ?? r.affectedRows ?? 0);
}

const sweeps = globalThis as unknown as { __realmgateTallySweeps?: { stop: () => void } };

/** While sweeps keep failing (the database is down), one log line per this long, not one per sweep. */
const SWEEP_FAILURE_LOG_EVERY_MS = 60_000;

/**
 * Sweep expired tallies every `intervalMs` in this server process (every node sweeps; SKIP LOCKED keeps two sweeps
 * and the checks out of each other's way). Started by lib/startup.ts; never at import time, never in `next build`.
 * A failed sweep is logged as one line (its cause's message, never the query's), at most once a minute while they
 * keep failing. Returns a stop function; a second start in the same process (dev reloads) replaces the first.
 */
export function startTallySweeps(db: Db, { intervalMs = 1_000 } = {}): () => void {
  sweeps.__realmgateTallySweeps?.stop();
  let running = false;
  let loggedAt = Number.NEGATIVE_INFINITY;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepExpiredTallies(db)
      .then(
        () => void (loggedAt = Number.NEGATIVE_INFINITY),
        (err: unknown) => {
          if (Date.now() - loggedAt < SWEEP_FAILURE_LOG_EVERY_MS) return;
          loggedAt = Date.now();
          // The cause's message only: a failed query's own message carries its SQL and parameters (lib/server-log.ts).
          const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
          console.error(`Rate-limit sweep failed: ${cause instanceof Error ? cause.message : String(cause)} (logged once a minute while it keeps failing)`);
        },
      )
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    if (sweeps.__realmgateTallySweeps?.stop === stop) sweeps.__realmgateTallySweeps = undefined;
  };
  sweeps.__realmgateTallySweeps = { stop };
  return stop;
}

/** The answer columns of `limitCtes`: `rl_count` (null when nothing was counted) and `rl_window_ms`. */
export const limitColumns = (v: Pick<LimitValues, "rl_weight">) =>
  sql`(select n + ${v.rl_weight}::int from rl_n where exists (select 1 from rl_w)) as rl_count, (select (extract(epoch from ws) * 1000)::float8 from rl_w) as rl_window_ms`;

export type LimitColumns = { rl_count: number | null; rl_window_ms: number | null };

/** What `limitColumns` say, for a check that counted (null when nothing was). */
export function limitResultOf(row: LimitColumns, l: Limit, now: Date): LimitResult | null {
  if (row.rl_count === null || row.rl_window_ms === null) return null;
  const count = Number(row.rl_count);
  const windowEnd = Number(row.rl_window_ms) + l.windowSeconds * 1000;
  return { allowed: count <= l.limit, count, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)) };
}

/** node-postgres and PGlite both answer `execute` with `{ rows }`. */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

export async function hitRateLimit(db: Executor, bucket: string, l: Limit, now = new Date(), weight = 1): Promise<LimitResult> {
  const v = limitValues(l, now, weight);
  const [row] = rowsOf<LimitColumns>(await db.execute(sql`with ${limitCtes(sql`${bucket}`, v)} select ${limitColumns(v)}`));
  return limitResultOf(row!, l, now)!;
}

/** The 429 `rate_limited` answer, with Retry-After, for a check over its limit. */
export function rateLimitedError(l: Limit, r: LimitResult, what: string): AppError {
  return new AppError("rate_limited", `Too many ${what}: at most ${l.limit} per ${l.windowSeconds} seconds. Retry after ${r.retryAfterSeconds} s.`, {
    headers: { "Retry-After": String(r.retryAfterSeconds) },
    details: { limit: l.limit, window_seconds: l.windowSeconds, retry_after_seconds: r.retryAfterSeconds },
  });
}

/** Count `weight` requests against `bucket`; over the limit, a 429 `rate_limited` with Retry-After. */
export async function enforceRateLimit(db: Executor, bucket: string, l: Limit, what: string, now = new Date(), weight = 1): Promise<void> {
  const r = await hitRateLimit(db, bucket, l, now, weight);
  if (!r.allowed) throw rateLimitedError(l, r, what);
}

/** The bucket of one caller (an actor or a user) for tool calls, whichever transport they use. */
export const callerBucket = (principalId: string) => `calls:${principalId}`;
/** The same, as SQL over a column or expression holding the principal id. */
export const callerBucketSql = (principalId: SQL) => sql`'calls:' || ${principalId}`;
