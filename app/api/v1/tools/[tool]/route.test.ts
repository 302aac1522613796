// The REST tool route in-process: an actor's calls share one rate budget with its MCP calls; an actor token is
// looked up in the call's own transaction, and still answers 401 or 429 before anything else.
import { and, eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { dbKind, getDb } from "@/db/client";
import { auditEvents, rateLimitHits } from "@/db/schema";
import { frozenClock, grant, makeActor, makeTenant } from "@/test-support";
import { createActor, revokeActorToken } from "@/lib/authz/actors";
import { readGateOneForToken } from "@/lib/authz/gate-read";
import { AppError } from "@/lib/errors";
import { callerBucket } from "@/lib/limits/rate-limit";
import { builtInRealms } from "@/lib/realms/registry";
import { createGrant } from "@/lib/authz/grants";
import { reloadEnv } from "@/lib/env";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { mcpResourceUrl } from "@/lib/mcp/config";
import { DELETE, GET, PATCH, POST, PUT } from "./route";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  delete process.env.MCP_RATE_LIMIT_PER_MINUTE;
  reloadEnv();
});

const restCall = (token: string) =>
  POST(new Request("http://realmgate.test/api/v1/tools/provider_about", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: "{}" }), {
    params: Promise.resolve({ tool: "provider_about" }),
  });
const mcpCall = (token: string) =>
  mcpPost(
    new Request(mcpResourceUrl(), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
  );

describe("POST /api/v1/tools/:tool", () => {
  it("limits each actor across REST and MCP together: 429 with Retry-After", async () => {
    const t = await makeTenant({ alice: "owner" });
    const { actor, token } = await createActor(t.db, t.users.alice!, { name: "Two-transport agent", kind: "automation", issue_token: true, token_expires_in_days: null });
    await createGrant(t.db, t.users.alice!, { actor_id: actor.id, namespace: "docs", operations: ["provider.about"], resource_scope: null, expires: "1d" });
    process.env.MCP_RATE_LIMIT_PER_MINUTE = "3";
    reloadEnv();
    // The clock stands still: all four calls land in the same one-minute window.
    frozenClock();
    const statuses = [(await restCall(token!.token)).status, (await restCall(token!.token)).status, (await mcpCall(token!.token)).status];
    const fourth = await mcpCall(token!.token);
    // Separate budgets would let the MCP calls through; one shared budget of 3 refuses the fourth call.
    expect([...statuses, fourth.status]).toEqual([200, 200, 200, 429]);
    expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("answers a person's API key without counting against any actor", async () => {
    const t = await makeTenant({ alice: "owner" });
    const { createApiKey } = await import("@/lib/authz/api-keys");
    const { key } = await createApiKey(t.db, t.users.alice!, "k");
    process.env.MCP_RATE_LIMIT_PER_MINUTE = "1";
    reloadEnv();
    for (let i = 0; i < 3; i++) expect((await restCall(key)).status).toBe(200);
  });
});

const onPostgres = (await dbKind()) === "postgres";

const post = (token: string, tool: string, body: string) =>
  POST(new Request(`http://realmgate.test/api/v1/tools/${tool}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body }), {
    params: Promise.resolve({ tool }),
  });
const codeOf = async (res: Response) => ((await res.json()) as { error?: { code: string } }).error?.code ?? "ok";
/** The calls counted against an actor in the current window (the clock is frozen by the caller). */
async function countedCalls(actorId: string): Promise<number> {
  const db = await getDb();
  const [row] = await db.select({ n: sql<number>`coalesce(sum(${rateLimitHits.weight}), 0)::int` }).from(rateLimitHits).where(eq(rateLimitHits.bucket, callerBucket(actorId)));
  return Number(row!.n);
}

/** A workspace and an agent of alice's granted `operations` on docs. */
async function docsAgent(operations: string[]) {
  const t = await makeTenant({ alice: "owner" });
  const agent = await makeActor(t, t.users.alice!);
  if (operations.length) await grant(t, t.users.alice!, agent.actorId, "docs", operations);
  return { t, agent };
}

describe("an actor token looked up in the call's transaction (gate one's statement)", () => {
  const search = JSON.stringify({ namespace: "docs", query: "plan" });

  it("a bad token is 401 whatever else is wrong with the request, and leaves no record", async () => {
    const { t, agent } = await docsAgent(["object.search"]);
    expect((await post(agent.token, "search_objects", search)).status).toBe(200);
    await revokeActorToken(t.db, t.users.alice!, agent.actorId, agent.credentialId);
    const unknown = `${agent.token.slice(0, -4)}zzzz`;
    for (const token of [agent.token, unknown]) {
      for (const [tool, body] of [
        ["search_objects", search], // a call on a built-in realm: the token is looked up in gate one's statement
        ["search_objects", "{not json"],
        ["search_objects", JSON.stringify({ namespace: "docs", query: 5 })],
        ["get_object", JSON.stringify({ ref: "docs:nonsense" })],
        ["no_such_tool", "{}"],
        ["provider_about", "{}"],
      ] as const) {
        const res = await post(token, tool, body);
        expect([tool, body, res.status, await codeOf(res)]).toEqual([tool, body, 401, "unauthenticated"]);
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      }
    }
    const records = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, agent.actorId), eq(auditEvents.event, "tool.call")));
    expect(records).toHaveLength(1); // the call before the revoke
  });

  it("over its limit an actor is 429 whatever else is wrong; every request is counted once", async () => {
    const { agent } = await docsAgent(["object.search"]);
    process.env.MCP_RATE_LIMIT_PER_MINUTE = "2";
    reloadEnv();
    frozenClock();
    const bad = JSON.stringify({ namespace: "docs", query: 5 });
    const answers = [];
    for (const body of [search, bad, search, bad, "{not json"]) {
      const res = await post(agent.token, "search_objects", body);
      answers.push(`${res.status} ${await codeOf(res)}`);
      if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(answers).toEqual(["200 ok", "400 invalid_input", "429 rate_limited", "429 rate_limited", "429 rate_limited"]);
    // The refused calls count too (as they did when authentication came first), and none twice.
    expect(await countedCalls(agent.actorId)).toBe(5);
  });

  it("a read whose effect fails is still counted (its transaction was rolled back)", async () => {
    const { t, agent } = await docsAgent(["object.search"]);
    frozenClock();
    vi.spyOn(builtInRealms.docs!.adapter, "search").mockRejectedValueOnce(new AppError("provider_unavailable", "the documents' store is down"));
    const res = await post(agent.token, "search_objects", search);
    expect([res.status, await codeOf(res)]).toEqual([502, "provider_unavailable"]);
    expect(await countedCalls(agent.actorId)).toBe(1);
    const records = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, agent.actorId)));
    expect(records.map((r) => [r.outcome, r.reason])).toEqual([["error", "provider_unavailable"]]);
  });

  it("a read whose transaction cannot go on (its savepoint is gone) is rolled back whole, audited and counted in a fresh one", async () => {
    const { t, agent } = await docsAgent(["object.search"]);
    frozenClock();
    vi.spyOn(builtInRealms.docs!.adapter, "search").mockImplementationOnce(async (ctx) => {
      // What a lost connection would leave: nothing to roll back to.
      await ctx.tx.execute(sql`release savepoint rg_effect`);
      await ctx.tx.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) values (${`half:${agent.actorId}`}, now(), 1, now())`);
      throw new AppError("provider_unavailable", "the documents' store is down");
    });
    const res = await post(agent.token, "search_objects", search);
    expect([res.status, await codeOf(res)]).toEqual([502, "provider_unavailable"]);
    expect(await countedCalls(agent.actorId)).toBe(1);
    const [half] = await t.db.select({ n: sql<number>`count(*)::int` }).from(rateLimitHits).where(eq(rateLimitHits.bucket, `half:${agent.actorId}`));
    expect(Number(half!.n)).toBe(0);
    const records = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, agent.actorId)));
    expect(records.map((r) => [r.outcome, r.reason])).toEqual([["error", "provider_unavailable"]]);
  });

  it.skipIf(!onPostgres)("a burst of reads that fail gets in over the limit by at most the calls one node holds open at once", async () => {
    const { agent } = await docsAgent(["object.get"]);
    process.env.MCP_RATE_LIMIT_PER_MINUTE = "5";
    reloadEnv();
    frozenClock();
    // 40 at once, each a document that does not exist (404 not_found: the read's effect fails). Rolled back to the
    // savepoint behind gate one, each keeps its count; were it rolled back whole and counted again later, the counts
    // would be invisible while the call waited for a connection, and nearly all 40 got in (seen: 35 of 35).
    const missing = JSON.stringify({ ref: "docs:document:doc_zzzzzzzzzzzzzzzzzzzz" });
    const answers = await Promise.all(Array.from({ length: 40 }, () => post(agent.token, "get_object", missing).then(codeOf)));
    const inOverLimit = answers.filter((c) => c !== "rate_limited").length;
    expect(answers.filter((c) => c !== "rate_limited" && c !== "not_found")).toEqual([]);
    // The limit, plus at most the pool's 10 transactions in flight whose counts were not committed yet.
    expect(inOverLimit).toBeLessThanOrEqual(5 + 10);
    expect(await countedCalls(agent.actorId)).toBe(40);
  });

  it.skipIf(!onPostgres)("calls in flight never wait on each other, and see each other's counts once committed: at most those get in over the limit", async () => {
    const { agent } = await docsAgent([]);
    const db = await getDb();
    const limit = { limit: 1, windowSeconds: 60 };
    const now = new Date();
    const ask = { namespace: "docs", operation: "object.search" as const, risk: "read" as const };
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let first!: (allowed: boolean | undefined) => void;
    const firstRead = new Promise<boolean | undefined>((r) => (first = r));
    const inFlight = db.transaction(async (tx) => {
      first((await readGateOneForToken(tx, ask, agent.token, now, { limit })).actor?.limited?.allowed);
      await held;
    });
    expect(await firstRead).toBe(true);
    // A second call while the first is open (which holds its tally and its touch of last_used_at): it waits for
    // neither, and the first's count is not committed yet, so it gets in too.
    const second = await db.transaction(async (tx) => (await readGateOneForToken(tx, ask, agent.token, now, { limit })).actor?.limited);
    expect(second).toMatchObject({ allowed: true, count: 1 });
    release();
    await inFlight;
    // Both committed: the next one sees them and is refused.
    const third = await db.transaction(async (tx) => (await readGateOneForToken(tx, ask, agent.token, now, { limit })).actor?.limited);
    expect(third).toMatchObject({ allowed: false, count: 3 });
  });
});

describe("other methods on a tool", () => {
  it("answer 405 method_not_allowed naming POST, in the error shape, whoever asks", async () => {
    for (const [method, handler] of [["GET", GET], ["PUT", PUT], ["PATCH", PATCH], ["DELETE", DELETE]] as const) {
      const res = await handler(new Request("http://realmgate.test/api/v1/tools/search_objects", { method }), { params: Promise.resolve({ tool: "search_objects" }) });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      const body = (await res.json()) as { error: { code: string; details: Record<string, unknown>; request_id: string } };
      expect(body.error).toMatchObject({ code: "method_not_allowed", details: { method, allowed: ["POST"] } });
      expect(body.error.request_id).toMatch(/^req_/);
    }
  });
});
