// Round trips per tool call, counted at the driver (BEGIN, COMMIT, ROLLBACK, SAVEPOINT and RELEASE included): a
// change that adds a statement to a call's path fails here. Each count is the whole REST request: authentication
// and the rate limit, the call's transaction, and anything written after a rollback.
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbKind } from "@/db/client";
import { actorTokens, auditEvents, consentRequests, grants, rateLimitHits } from "@/db/schema";
import { readAndDecideGateOne } from "@/lib/authz/gate-read";
import { AppError } from "@/lib/errors";
import { manifestSchema, type Realm, type RealmAdapter } from "@/lib/realms/contract";
import { dispatch } from "@/lib/tools/dispatch";
import { call, grant, makeActor, makeTenant, roundTrips, tenantRealm, type TestTenant } from "@/test-support";
import { POST } from "./route";

type Json = Record<string, unknown>;

/** A statement as the tables below name it. */
const kindOf = (s: string): string => {
  const l = s.toLowerCase();
  if (/^rollback to\b/.test(l)) return "ROLLBACK TO";
  if (/^(begin|commit|rollback)\b/.test(l)) return l.split(" ")[0]!.toUpperCase();
  if (/^savepoint\b/.test(l)) return "SAVEPOINT";
  if (/^release\b/.test(l)) return "RELEASE";
  if (l.includes("from actor_tokens") && l.includes("rate_limit_hits") && l.includes("from ceiling_settings")) return "auth + rate limit + gate one";
  if (l.includes("from actor_tokens") && l.includes("rate_limit_hits")) return "auth + rate limit";
  if (l.includes("from ceiling_settings") && l.includes("for share")) return "gate one";
  if (l.includes('from "audit_heads"') && l.includes("skip locked")) return "audit lane (lock)";
  if (l.includes("insert into audit_events")) return "audit record + head";
  if (l.includes("consent_requests")) return "consent request";
  return "realm";
};

async function rest(token: string, tool: string, body: Json) {
  const res = await POST(new Request(`http://realmgate.test/api/v1/tools/${tool}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) }), {
    params: Promise.resolve({ tool }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/**
 * The statements of one REST call, by kind, after warm-up calls of the same shape: two, as a token's first lookup of
 * the minute carries the touch of its `last_used_at` (lib/authz/actors.ts touchDue), a statement of its own shape.
 */
async function counted(token: string, tool: string, body: Json, warm: Json | null = body) {
  if (warm) for (let i = 0; i < 2; i++) await rest(token, tool, warm);
  const rt = roundTrips();
  const res = await rest(token, tool, body);
  const kinds = rt.stop().map(kindOf);
  return { ...res, kinds, n: kinds.length, exchanges: rt.exchanges };
}

const onPostgres = (await dbKind()) === "postgres";

let t: TestTenant;
let agent: Awaited<ReturnType<typeof makeActor>>;
let docRef: string;

beforeAll(async () => {
  t = await makeTenant({ alice: "owner" });
  const alice = t.users.alice!;
  docRef = ((await dispatch(call(alice), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Q3 planning" } })) as Json).ref as string;
  agent = await makeActor(t, alice);
  await grant(t, alice, agent.actorId, "docs", ["object.search", "object.get", "object.upsert"]);
});

describe("round trips per REST tool call (an agent with a grant)", () => {
  it("search_objects on docs: 7 — the token, the rate limit, gate one and the audit lane in one statement, the read's savepoint, the realm's 2, the audit record", async () => {
    const r = await counted(agent.token, "search_objects", { namespace: "docs", query: "Q3" });
    expect(r.status).toBe(200);
    // The realm's 2: documents (with where each matched, as a subquery) and threads, asked at once. The audit lane
    // was taken by gate one's statement, so the record is one statement.
    expect(r.kinds).toEqual(["BEGIN", "auth + rate limit + gate one", "SAVEPOINT", "realm", "realm", "audit record + head", "COMMIT"]);
    expect(r.n).toBeLessThanOrEqual(9);
    // On PostgreSQL BEGIN and the SAVEPOINT go with the first statement, the realm's 2 go in one exchange and COMMIT
    // with the audit record (db/pipeline.ts): 3 round trips.
    if (onPostgres) expect(r.exchanges).toBe(3);
  });

  it("search_objects, a token's first call of the minute: still 7 (last_used_at is written by the first statement)", async () => {
    const fresh = await makeActor(t, t.users.alice!, "Fresh agent");
    await grant(t, t.users.alice!, fresh.actorId, "docs", ["object.search"]);
    const r = await counted(fresh.token, "search_objects", { namespace: "docs", query: "Q3" }, null);
    expect(r.status).toBe(200);
    expect(r.n).toBe(7);
    const [row] = await t.db.select({ lastUsedAt: actorTokens.lastUsedAt }).from(actorTokens).where(eq(actorTokens.id, fresh.credentialId));
    expect(row!.lastUsedAt).not.toBeNull();
  });

  it("get_object: the realm's reads between gate one and the audit, after a savepoint that costs no round trip", async () => {
    const r = await counted(agent.token, "get_object", { ref: docRef });
    expect(r.status).toBe(200);
    // The realm's 4: the document, its tabs, its threads' counts and the people it names, asked at once (the three
    // need only the document's id: lib/realms/docs/kinds/document.ts).
    expect(r.kinds).toEqual(["BEGIN", "auth + rate limit + gate one", "SAVEPOINT", "realm", "realm", "realm", "realm", "audit record + head", "COMMIT"]);
    // The realm's 4 go in one exchange (db/pipeline.ts): 3, as search_objects.
    if (onPostgres) expect(r.exchanges).toBe(3);
  });

  it("upsert_object (a write): the effect in a savepoint", async () => {
    const upsert = (title: string) => ({ namespace: "docs", kind: "docs.document", ref: docRef, fields: { title } });
    const r = await counted(agent.token, "upsert_object", upsert("Q3 planning, v2"), upsert("Q3 planning, v1"));
    expect(r.status).toBe(200);
    // The realm's 5: the document, its update, then what the answer adds (tabs, threads' counts, people).
    expect(r.kinds).toEqual([
      "BEGIN", "auth + rate limit + gate one",
      "SAVEPOINT", "realm", "realm", "realm", "realm", "realm", "RELEASE",
      "audit record + head", "COMMIT",
    ]);
    // The document as it is now (tabs, counts, people) in one exchange, inside the savepoint too; the SAVEPOINT goes
    // with the effect's first statement and the RELEASE with the audit record and COMMIT (db/pipeline.ts): 5.
    if (onPostgres) expect(r.exchanges).toBe(5);
  });

  it("a gate-one denial: its consent request, the audit of both, no realm statement", async () => {
    // No grant covers object.list: a consent request (the first time: created and audited; then: counted again).
    const first = await counted(agent.token, "list_objects", { namespace: "docs", kind: "docs.document" }, null);
    expect(first.status).toBe(403);
    // The consent request's record takes the lane gate one's statement locked; the call's own record, after it,
    // locks a lane again (the lease is spent: its head moved).
    // The consent request is one statement: the live one for this ask counted again, or a new one (lib/authz/consent.ts).
    expect(first.kinds).toEqual([
      "BEGIN", "auth + rate limit + gate one",
      "consent request", "audit record + head",
      "audit lane (lock)", "audit record + head", "COMMIT",
    ]);
    // BEGIN goes with the first statement, COMMIT with the call's audit record.
    if (onPostgres) expect(first.exchanges).toBe(5);
    const again = await counted(agent.token, "list_objects", { namespace: "docs", kind: "docs.document" }, null);
    expect(again.status).toBe(403);
    expect(again.kinds).toEqual(["BEGIN", "auth + rate limit + gate one", "consent request", "audit record + head", "COMMIT"]);
    if (onPostgres) expect(again.exchanges).toBe(3);
    const [req] = await t.db.select().from(consentRequests).where(and(eq(consentRequests.tenantId, t.tenantId), eq(consentRequests.actorId, agent.actorId)));
    expect(req).toMatchObject({ operations: ["object.list"], attempts: 2 });
  });
});

describe("gate one's one statement", () => {
  it("still locks the actor's grants FOR SHARE: a revoke waits for the call that read them", async () => {
    const [g] = await t.db.select().from(grants).where(and(eq(grants.tenantId, t.tenantId), eq(grants.actorId, agent.actorId), eq(grants.namespace, "docs")));
    const principal = { type: "actor" as const, actorId: agent.actorId, grantorId: t.users.alice!.userId, actorKind: "hosted_agent" };
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let read!: (allow: boolean) => void;
    const decided = new Promise<boolean>((r) => (read = r));
    const inCall = t.db.transaction(async (tx) => {
      const d = await readAndDecideGateOne(tx, { tenantId: t.tenantId, principal, namespace: "docs", operation: "object.get", refs: [docRef], now: new Date() });
      read(d.allow);
      await held;
    });
    expect(await decided).toBe(true);
    if ((await dbKind()) === "postgres") {
      // Another connection cannot take the row for an update while the call's transaction is open.
      const err = await t.db
        .transaction(async (tx) => {
          await tx.execute(sql`set local lock_timeout = '200ms'`);
          await tx.execute(sql`update grants set revoke_reason = revoke_reason where id = ${g!.id}`);
        })
        .catch((e: unknown) => e);
      expect(String((err as { cause?: { code?: string } })?.cause?.code ?? err)).toMatch(/55P03|lock/);
    }
    release();
    await inCall;
  });
});

// A realm whose effects write a row and then fail: a read (get) and a write (upsert).
const manifest = manifestSchema.parse({
  namespace: "rtfail",
  realm_type: "native",
  service_card: { title: "Failing", purpose: "Effects that fail after writing.", works_with: "Nothing.", touches: ["Items"], operation_labels: { "provider.about": "About", "object.schema": "Schema", "object.get": "Get", "object.upsert": "Upsert" } },
  kinds: [
    {
      name: "rtfail.item",
      label: "Item",
      one_liner: "One item.",
      ref_pattern: "rtfail:item:<id>",
      fields: [{ name: "title", type: "text", description: "Title.", writable: true }],
      operations: ["object.get", "object.upsert"],
    },
  ],
  selectors: [],
  actions: [],
  catalog: { path: "/", label: "Failing", description: "Everything.", keywords: [], kinds: ["rtfail.item"], operations: [], children: [] },
  delivery: { cursors: false, files: false },
});
/** The stamp an effect writes before it fails (a table any test may write; the bucket names the call). */
const halfWrite = (ctx: { tx: { execute: (q: ReturnType<typeof sql>) => Promise<unknown> } }, bucket: string) =>
  ctx.tx.execute(sql`insert into rate_limit_hits (bucket, window_start, weight, expires_at) values (${bucket}, now(), 1, now())`);
const adapter: RealmAdapter = {
  parseRef: (ref) => {
    if (!/^rtfail:item:[a-z0-9_]+$/.test(ref)) throw new AppError("invalid_ref", "not an item ref", { details: { ref } });
    return { kind: "rtfail.item" };
  },
  describeRefs: async (_ctx, refs) => Object.fromEntries(refs.map((r) => [r, { kind: "rtfail.item", label: r, lineage: [] }])),
  list: () => Promise.reject(new Error("unused")),
  search: () => Promise.reject(new Error("unused")),
  get: async (ctx, { ref }) => {
    await halfWrite(ctx, `half:${ref}`);
    // A database error aborts the transaction itself (no savepoint to fall back to); an AppError does not.
    if (ref.endsWith("_sql")) await ctx.tx.execute(sql`select 1 / 0`);
    throw new AppError("provider_unavailable", "the item's store is down");
  },
  upsert: async (ctx, { ref }) => {
    await halfWrite(ctx, `half:${ref}`);
    throw new AppError("provider_unavailable", "the item's store is down");
  },
  resolve: () => Promise.reject(new Error("unused")),
  action: () => Promise.reject(new Error("unused")),
  delete: () => Promise.reject(new Error("unused")),
  hostFile: () => Promise.reject(new Error("unused")),
};
const failing = tenantRealm({ manifest, adapter } satisfies Realm);

describe("a failed effect: rolled back, its audit record written exactly once", () => {
  let a: Awaited<ReturnType<typeof makeActor>>;
  beforeAll(async () => {
    failing.showTo(t.tenantId);
    a = await makeActor(t, t.users.alice!, "Failing agent");
    await grant(t, t.users.alice!, a.actorId, "rtfail", ["object.get", "object.upsert"]);
  });
  afterAll(() => failing.remove());

  const recordsOf = (requestRef: string) =>
    t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, a.actorId), eq(auditEvents.ref, requestRef)));
  const stamps = async (ref: string) => (await t.db.select().from(rateLimitHits).where(eq(rateLimitHits.bucket, `half:${ref}`))).length;

  for (const [what, ref] of [
    ["an AppError", "rtfail:item:app"],
    ["a database error", "rtfail:item:db_sql"],
  ] as const) {
    it(`a read that fails with ${what}: rolled back to the savepoint behind gate one, the error audited in the same transaction`, async () => {
      const r = await counted(a.token, "get_object", { ref }, null);
      expect(r.status).toBe(ref.endsWith("_sql") ? 500 : 502);
      expect(r.kinds).toEqual([
        // (The test's own realm is kept in memory: finding it costs no statement; a table realm's costs one.)
        "auth + rate limit", "BEGIN", "gate one", "SAVEPOINT", "realm", ...(ref.endsWith("_sql") ? ["realm"] : []), "ROLLBACK TO",
        "audit lane (lock)", "audit record + head", "COMMIT",
      ]);
      // BEGIN goes with gate one, and so does the SAVEPOINT once gate one's statement is prepared on the connection
      // (this agent's first call: the SAVEPOINT follows on its own); COMMIT with the audit record.
      if (onPostgres) expect(r.exchanges).toBeLessThanOrEqual(r.n - 3);
      expect(await stamps(ref)).toBe(0);
      const records = await recordsOf(ref);
      expect(records.map((e) => [e.outcome, e.reason])).toEqual([["error", ref.endsWith("_sql") ? "internal_error" : "provider_unavailable"]]);
    });
  }

  it("a write that fails: rolled back to its savepoint, the error audited in the same transaction", async () => {
    const ref = "rtfail:item:w";
    const r = await counted(a.token, "upsert_object", { namespace: "rtfail", kind: "rtfail.item", ref, fields: { title: "x" } }, null);
    expect(r.status).toBe(502);
    expect(r.kinds).toEqual(["auth + rate limit", "BEGIN", "gate one", "SAVEPOINT", "realm", "ROLLBACK TO", "audit lane (lock)", "audit record + head", "COMMIT"]);
    // Three ride with another statement: BEGIN with gate one's, the SAVEPOINT with the effect's (db/pipeline.ts),
    // COMMIT with the audit record.
    if (onPostgres) expect(r.exchanges).toBe(r.n - 3);
    expect(await stamps(ref)).toBe(0);
    expect((await recordsOf(ref)).map((e) => [e.outcome, e.reason])).toEqual([["error", "provider_unavailable"]]);
  });
});
