import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { isAppError } from "@/lib/errors";
import { enforceRateLimit, hitRateLimit } from "./rate-limit";

const bucket = () => `test:${randomBytes(6).toString("hex")}`;
const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, 0) + s * 1000);

describe("the PostgreSQL fixed-window limiter", () => {
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
});
