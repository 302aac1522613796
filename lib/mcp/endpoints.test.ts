// Dynamic client registration's rate limit: one budget for everyone unless a trusted proxy says who is asking,
// so a client cannot mint itself fresh budgets with made-up X-Forwarded-For values.
import { randomBytes } from "node:crypto";
import { and, eq, gte, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { rateLimitHits } from "@/db/schema";
import { envOverride, frozenClock } from "@/test-support";
import { registrationBuckets, registrationEndpoint } from "./endpoints";

const overrides = envOverride();
// The clock stands still in each test: counting and registering never straddle an hour's window.
let clock: ReturnType<typeof frozenClock>;
beforeEach(() => {
  clock = frozenClock();
});
afterEach(() => {
  clock.restore();
  overrides.restore();
});

const randomIp = () => `198.51.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
const register = (headers: Record<string, string>) =>
  registrationEndpoint(
    new Request("http://realmgate.test/api/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:40111/cb"], client_name: "Limit test" }),
    }),
    "req_test",
  );

/** This hour's count of a bucket (other tests in this worker may have registered already). */
async function countOf(bucket: string): Promise<number> {
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
  const [row] = await (await getDb())
    .select({ n: sql<number>`coalesce(sum(${rateLimitHits.weight}), 0)::int` })
    .from(rateLimitHits)
    .where(and(eq(rateLimitHits.bucket, bucket), gte(rateLimitHits.windowStart, hour)));
  return Number(row?.n ?? 0);
}

describe("the registration limiter's key", () => {
  it("ignores X-Forwarded-For and Forwarded without REALMGATE_TRUST_PROXY: one global bucket", () => {
    for (const headers of [{}, { "x-forwarded-for": "203.0.113.7" }, { forwarded: "for=203.0.113.8" }] as Record<string, string>[]) {
      expect(registrationBuckets(new Request("http://realmgate.test/", { headers })).map((b) => b.bucket)).toEqual(["register:all"]);
    }
  });

  it("behind a trusted proxy: the address it saw, and a global backstop ten times the limit", () => {
    overrides.set({ REALMGATE_TRUST_PROXY: "1", OAUTH_REGISTER_LIMIT_PER_HOUR: "7" });
    const buckets = registrationBuckets(new Request("http://realmgate.test/", { headers: { "x-forwarded-for": "10.9.9.9, 203.0.113.7" } }));
    expect(buckets).toEqual([
      { bucket: "register:addr:203.0.113.7", limit: { limit: 7, windowSeconds: 3600 } },
      { bucket: "register:all", limit: { limit: 70, windowSeconds: 3600 } },
    ]);
  });
});

describe("POST /api/oauth/register", () => {
  it("a made-up X-Forwarded-For on every request does not buy a new budget", async () => {
    const limit = (await countOf("register:all")) + 2;
    overrides.set({ OAUTH_REGISTER_LIMIT_PER_HOUR: String(limit) });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await register({ "x-forwarded-for": randomIp() })).status);
    expect(statuses).toEqual([201, 201, 429]);
    const refused = await register({ "x-forwarded-for": randomIp() });
    expect(refused.status).toBe(429);
    expect((await refused.json()).error).toBe("temporarily_unavailable");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("behind a trusted proxy each client address has its own budget", async () => {
    const limit = Math.max(2, Math.ceil(((await countOf("register:all")) + 6) / 9));
    overrides.set({ REALMGATE_TRUST_PROXY: "1", OAUTH_REGISTER_LIMIT_PER_HOUR: String(limit) });
    const a = randomIp();
    const statuses = [];
    for (let i = 0; i <= limit; i++) statuses.push((await register({ "x-forwarded-for": a })).status);
    expect(statuses).toEqual([...Array<number>(limit).fill(201), 429]);
    expect((await register({ "x-forwarded-for": randomIp() })).status).toBe(201);
  });
});
