import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { eq, sql } from "drizzle-orm";
import { dbKind, getDb, onStatement } from "@/db/client";
import { rateLimitHits } from "@/db/schema";
import { isAppError } from "@/lib/errors";
import { enforceRateLimit, expiredTallies, hitRateLimit, limitValues, startTallySweeps, sweepExpiredTallies, sweepStatement } from "./rate-limit";

const bucket = () => `test:${randomBytes(6).toString("hex")}`;
const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, 0) + s * 1000);

describe("the PostgreSQL fixed-window limiter (tallies, no hot row)", () => {
  it("names the window each check falls in, whatever window and limit the check before it named", () => {
    const minute = { limit: 3, windowSeconds: 60 };
    const hour = { limit: 3, windowSeconds: 3600 };
    // Taking turns between limits and windows: the window start kept from the check before must never leak into the next.
    const checks: [typeof minute, number, string][] = [
      [minute, 0, "2030-01-01T12:00:00.000Z"],
      [minute, 59, "2030-01-01T12:00:00.000Z"],
      [minute, 60, "2030-01-01T12:01:00.000Z"],
      [hour, 61, "2030-01-01T12:00:00.000Z"],
      [minute, 61, "2030-01-01T12:01:00.000Z"],
      [hour, 3600, "2030-01-01T13:00:00.000Z"],
      [minute, -1, "2030-01-01T11:59:00.000Z"],
    ];
    for (const [l, s, start] of checks) expect(limitValues(l, at(s), 2)).toEqual({ rl_window_start: start, rl_weight: 2, rl_window_seconds: l.windowSeconds });
  });

  it("allows `limit` requests per window, then refuses until the next window starts", async () => {
    const db = await getDb();
    const b = bucket();
    const l = { limit: 3, windowSeconds: 60 };
    for (const s of [0, 10, 20]) expect((await hitRateLimit(db, b, l, at(s))).allowed).toBe(true);
    const refused = await hitRateLimit(db, b, l, at(45));
    expect(refused).toMatchObject({ allowed: false, count: 4, retryAfterSeconds: 15 });
    expect((await hitRateLimit(db, b, l, at(60))).allowed).toBe(true);
    expect((await hitRateLimit(db, b, l, at(61))).count).toBe(2);
  });

  it("counts buckets apart, weighs batches, and never resets a newer window from a lagging clock", async () => {
    const db = await getDb();
    const [a, b] = [bucket(), bucket()];
    const l = { limit: 5, windowSeconds: 60 };
    expect((await hitRateLimit(db, a, l, at(0), 5)).allowed).toBe(true);
    expect((await hitRateLimit(db, b, l, at(0))).count).toBe(1);
    expect((await hitRateLimit(db, a, l, at(61))).count).toBe(1);
    expect((await hitRateLimit(db, a, l, at(30))).count).toBe(2);
  });

  it("answers 429 rate_limited with Retry-After", async () => {
    const db = await getDb();
    const b = bucket();
    const l = { limit: 1, windowSeconds: 60 };
    await enforceRateLimit(db, b, l, "calls", at(0));
    const err = await enforceRateLimit(db, b, l, "calls", at(50)).catch((e: unknown) => e);
    expect(isAppError(err) && err.status).toBe(429);
    expect(isAppError(err) && err.headers["Retry-After"]).toBe("10");
  });

  it("has no hot row: a tally an open call holds is skipped, so it never holds up the same actor's next call", async () => {
    const db = await getDb();
    const b = bucket();
    const l = { limit: 100, windowSeconds: 60 };
    expect((await hitRateLimit(db, b, l, at(0))).count).toBe(1);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let counted!: () => void;
    const inside = new Promise<void>((r) => (counted = r));
    // One call counted in a transaction that stays open (as if its node were slow to commit): it holds the tally…
    const open = db.transaction(async (tx) => {
      expect((await hitRateLimit(tx, b, l, at(1))).count).toBe(2);
      counted();
      await held;
    });
    await inside;
    if ((await dbKind()) === "postgres") {
      // …and the same actor's next call, on another connection, is counted at once in a tally of its own: it does
      // not wait for the lock (the open call's weight is not committed yet, so it is not in this count).
      const next = await Promise.race([hitRateLimit(db, b, l, at(2)), new Promise((r) => setTimeout(() => r("waited"), 3_000))]);
      expect(next).toMatchObject({ allowed: true, count: 2 });
    }
    release();
    await open;
    const calls = (await dbKind()) === "postgres" ? 4 : 3;
    expect((await hitRateLimit(db, b, l, at(3))).count).toBe(calls);
    const tallies = await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, b));
    expect(tallies.reduce((n, t) => n + t.weight, 0)).toBe(calls);
    expect(tallies.length).toBe((await dbKind()) === "postgres" ? 2 : 1);
  });

  it("keeps one tally for calls that come one after another, so a check reads a few rows however many were counted", async () => {
    const db = await getDb();
    const b = bucket();
    const l = { limit: 1000, windowSeconds: 60 };
    let last = 0;
    for (let i = 0; i < 60; i++) last = (await hitRateLimit(db, b, l, at(i % 50))).count;
    expect(last).toBe(60);
    const tallies = await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, b));
    expect(tallies).toHaveLength(1);
    expect(tallies[0]!.weight).toBe(60);
  });

  it("loses no count when one actor's calls come at once", async () => {
    const db = await getDb();
    const b = bucket();
    const l = { limit: 25, windowSeconds: 60 };
    const results = await Promise.all(Array.from({ length: 30 }, () => hitRateLimit(db, b, l, at(5))));
    const tallies = await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, b));
    expect(tallies.reduce((n, t) => n + t.weight, 0)).toBe(30);
    // About one tally per call in flight at once (the pool's 10 connections; a few more when two checks race for
    // one tally: 9–14 in 40 runs here), never one per request.
    expect(tallies.length).toBeLessThan(30);
    expect((await hitRateLimit(db, b, l, at(6))).allowed).toBe(false);
    // Concurrent checks may each miss the others' uncommitted weight, but never count more than were sent.
    expect(Math.max(...results.map((r) => r.count))).toBeLessThanOrEqual(30);
  });

  it("leaves expired tallies to the sweep: a check deletes nothing, a sweep deletes what expired and nothing live", async () => {
    const db = await getDb();
    const [old, live] = [bucket(), bucket()];
    await db.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) values (${old}, now() - interval '1 hour', 1, now() - interval '59 minutes')`);
    const statements: string[] = [];
    const stop = onStatement((s) => void statements.push(s));
    try {
      for (let i = 0; i < 3; i++) await hitRateLimit(db, live, { limit: 5, windowSeconds: 60 });
    } finally {
      stop();
    }
    expect(statements.some((s) => /\bdelete\b/i.test(s))).toBe(false);
    expect(await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, old))).toHaveLength(1);
    for (let i = 0; i < 50 && (await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, old))).length > 0; i++) await sweepExpiredTallies(db);
    expect(await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, old))).toEqual([]);
    expect((await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, live)))[0]!.weight).toBe(3);
  });

  it("sweeps by itself once started (the server's job), and stops when told", async () => {
    const db = await getDb();
    const old = bucket();
    const stop = startTallySweeps(db, { intervalMs: 20 });
    try {
      await db.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) values (${old}, now() - interval '1 hour', 1, now() - interval '59 minutes')`);
      for (let i = 0; i < 250 && (await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, old))).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, old))).toEqual([]);
    } finally {
      stop();
    }
    await db.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) values (${old}, now() - interval '1 hour', 1, now() - interval '59 minutes')`);
    await new Promise((r) => setTimeout(r, 150));
    expect(await db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, old))).toHaveLength(1);
    await db.delete(rateLimitHits).where(eq(rateLimitHits.bucket, old));
  });

  it("a sweep that keeps failing (database down) is logged once a minute, its cause only (never the query and its parameters), not once a sweep", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => void lines.push(String(line)));
    const secret = "tok_secret_value_in_sql_params";
    const down = { execute: () => Promise.reject(Object.assign(new Error(`Failed query: delete … params: ${secret}`), { cause: Object.assign(new Error("connection refused"), { code: "ECONNREFUSED" }) })) } as unknown as Parameters<typeof startTallySweeps>[0];
    const stop = startTallySweeps(down, { intervalMs: 5 });
    try {
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      stop();
      spy.mockRestore();
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("Rate-limit sweep failed: connection refused");
    expect(lines[0]).not.toContain(secret);
  });

  it("a sweep with nothing expired skips its delete outright: no pass over the live tallies", async () => {
    // Deleting by ctid may scan the table; with nothing to delete (almost every sweep) that scan must not run at all.
    const db = await getDb();
    const scans: number[][] = [];
    const undo = new Error("roll back");
    type PlanNode = { "Node Type": string; "Relation Name"?: string; Filter?: string; "TID Cond"?: string; "Actual Loops"?: number; Plans?: PlanNode[] };
    /** The loops of each scan of rate_limit_hits that matches tallies by ctid (the delete's, not the finder's). */
    const deleteScans = (n: PlanNode): number[] => {
      const byCtid = `${n.Filter ?? ""} ${n["TID Cond"] ?? ""}`.includes("ctid");
      const own = /Scan/.test(n["Node Type"]) && n["Relation Name"] === "rate_limit_hits" && byCtid ? [n["Actual Loops"] ?? -1] : [];
      return [...own, ...(n.Plans ?? []).flatMap(deleteScans)];
    };
    const explain = async (tx: Parameters<Parameters<typeof db.transaction>[0]>[0]) => {
      const result = (await tx.execute(sql`explain (analyze, format json) ${sweepStatement}`)) as unknown as { rows: { "QUERY PLAN": { Plan: PlanNode }[] }[] };
      scans.push(deleteScans(result.rows[0]!["QUERY PLAN"][0]!.Plan));
    };
    await db
      .transaction(async (tx) => {
        // In this transaction (rolled back), with live tallies and nothing expired, the scan under the delete never runs.
        await tx.execute(sql`delete from rate_limit_hits where expires_at < now()`);
        await tx.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) select ${bucket()}, now(), 1, now() + interval '1 minute' from generate_series(1, 200)`);
        await explain(tx);
        // With one expired tally, it runs (and deletes it).
        await tx.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) values (${bucket()}, now() - interval '1 hour', 1, now() - interval '59 minutes')`);
        await explain(tx);
        throw undo;
      })
      .catch((e: unknown) => {
        if (e !== undo) throw e;
      });
    expect(scans[0]!.length).toBeGreaterThan(0);
    expect(scans[0]!.every((loops) => loops === 0)).toBe(true);
    expect(scans[1]!.some((loops) => loops > 0)).toBe(true);
  });

  it("finds expired tallies along the expiry index, even when the planner's statistics think most tallies are expired", async () => {
    // Under load the table holds every live tally of the last two minutes and almost none expired (each check deletes
    // what has): a scan that does not walk the index in order reads all of them on every call. Statistics from a
    // moment when many had expired make the planner expect to find a batch at once; the order must still hold it
    // to the index. Everything here is rolled back, the statistics too.
    const db = await getDb();
    let plan = "";
    const undo = new Error("roll back");
    await db
      .transaction(async (tx) => {
        const b = bucket();
        await tx.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) select ${b}, now() - interval '1 hour', 1, now() - interval '59 minutes' from generate_series(1, 3000)`);
        await tx.execute(sql`analyze rate_limit_hits`);
        await tx.execute(sql`delete from rate_limit_hits where bucket = ${b}`);
        await tx.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) select ${b}, now(), 1, now() + interval '1 minute' from generate_series(1, 3000)`);
        const result = (await tx.execute(sql`explain (format json) ${expiredTallies}`)) as unknown as { rows: Record<string, unknown>[] };
        plan = JSON.stringify(result.rows[0]);
        throw undo;
      })
      .catch((e: unknown) => {
        if (e !== undo) throw e;
      });
    expect(plan).toContain("rate_limit_hits_expires");
    expect(plan).not.toContain("Seq Scan");
  });
});
