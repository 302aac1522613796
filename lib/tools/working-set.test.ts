// An agent's working set of exact tools: materialize through object_schema, budgets that guide (slots, bytes),
// the catalog proof, calls that run object_action's path (both gates, approvals, audit path "exact_tool"), the
// idle TTL, one agent's set invisible to another, and the owner's "agents act only on operations they selected".
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, tenants, workingSetTools } from "@/db/schema";
import { revokeGrant } from "@/lib/authz/grants";
import { changeCeiling } from "@/lib/authz/policy";
import { AppError } from "@/lib/errors";
import { manifestSchema, type Realm, type RealmAdapter } from "@/lib/realms/contract";
import { DEFAULT_CATALOG_BUDGET_BYTES } from "@/lib/working-set/budget";
import { call, errorOf, frozenClock, grant, makeActor, makeTenant, tenantRealm, type TestTenant } from "@/test-support";
import { dispatch } from "./dispatch";
import { catalogOf, listedTools } from "./working-set";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const payload = (extra: Record<string, unknown> = {}) => ({ type: "object", additionalProperties: false, properties: { note: { type: "string", maxLength: 50 }, ...extra } });
const reads = ["look", "peek", "scan", "count"];
const writes = ["poke", "stamp"];
const huge = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`field_${i}`, { type: "string", description: `A long description of field number ${i} that makes this schema large.` }]));
const actions = [
  ...reads.map((name) => ({ name, label: `Look (${name})`, description: `Reads ${name}.`, target_kind: "ws.item", payload_schema: payload(), example: {}, risk: "read", returns: "What it read." })),
  ...writes.map((name) => ({ name, label: `Change (${name})`, description: `Changes ${name}.`, target_kind: "ws.item", payload_schema: payload(), example: {}, risk: "write", returns: "What changed." })),
  { name: "wipe", label: "Wipe", description: "Wipes everything.", target_kind: null, payload_schema: payload(), example: {}, risk: "destructive", returns: "Nothing." },
  { name: "huge", label: "Huge", description: "Takes very many fields.", target_kind: null, payload_schema: { type: "object", properties: huge }, example: {}, risk: "read", returns: "Nothing." },
  // Its payload has its own `ref`: nested under payload, so the target's ref keeps its meaning.
  { name: "retag", label: "Retag", description: "Points a tag at a ref of another system.", target_kind: "ws.item", payload_schema: payload({ ref: { type: "string" } }), example: {}, risk: "write", returns: "The tag." },
];
const ops = ["provider.about", "object.schema", "object.get", ...actions.map((a) => `object.action.${a.name}`)];
const manifest = manifestSchema.parse({
  namespace: "ws",
  realm_type: "native",
  service_card: { title: "Working set", purpose: "A realm with many actions.", works_with: "Nothing.", touches: ["Items"], operation_labels: Object.fromEntries(ops.map((o) => [o, `Do ${o}`])) },
  kinds: [{ name: "ws.item", label: "Item", one_liner: "One item.", ref_pattern: "ws:item:<id>", fields: [{ name: "title", type: "text", description: "Title." }], operations: ["object.get"], filters: [] }],
  selectors: [],
  actions,
  catalog: { path: "/", label: "Working set", description: "Everything.", keywords: [], kinds: ["ws.item"], operations: ops, children: [] },
  delivery: { cursors: true, files: false },
});
const ran: { action: string; ref: string | null; payload: unknown }[] = [];
const adapter: RealmAdapter = {
  parseRef: (ref) => {
    if (!/^ws:item:[a-z0-9]+$/.test(ref)) throw new AppError("invalid_ref", "not an item ref", { details: { ref } });
    return { kind: "ws.item" };
  },
  describeRefs: async (_ctx, refs) => Object.fromEntries(refs.map((r) => [r, { kind: "ws.item", label: r, lineage: [] }])),
  list: async () => ({ items: [], next: null }),
  search: async () => ({ items: [], next: null }),
  get: async (_ctx, { ref }) => ({ ref }),
  upsert: async () => Promise.reject(new AppError("invalid_input", "no")),
  resolve: async () => ({ ref: "ws:item:one" }),
  action: async (_ctx, { action, ref, payload }) => (ran.push({ action: action.name, ref, payload }), { done: action.name, ref, payload }),
  delete: async () => Promise.reject(new AppError("invalid_input", "no")),
  hostFile: async () => Promise.reject(new AppError("invalid_input", "no")),
};
const realm: Realm = { manifest, adapter };
const ws = tenantRealm(realm);

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
  ws.showTo(t.tenantId);
});
afterAll(() => ws.remove());

const materialize = (agent: Parameters<typeof dispatch>[0], action: string, on = true) =>
  dispatch(call(agent), "object_schema", { namespace: "ws", operation: `object.action.${action}`, materialize: on }) as Promise<Json>;
const names = async (agent: Parameters<typeof catalogOf>[1]) => listedTools(await catalogOf(t.db, agent, new Date())).map((x) => x.name);

describe("materializing", () => {
  it("adds an action as an exact tool listed after the nine, with a catalog proof; removing it takes it away", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const before = await names(agent);
    expect(before).toHaveLength(9);
    const a = await materialize(agent, "poke");
    // Not granted yet: it says so before it is called (calling asks the person first).
    expect(a.materialized).toMatchObject({ name: "ws_poke", title: "Change (poke)", slot: "write", needs_grant: true });
    expect(a.note).toContain("consent_required");
    expect(a.list_changed).toBe(true);
    expect(a.evicted).toEqual([]);
    expect(a.catalog).toMatchObject({ budget_bytes: DEFAULT_CATALOG_BUDGET_BYTES, reads: 0, writes: 1, limits: { reads: 3, writes: 1 } });
    expect(a.catalog.tools.map((x: Json) => x.name)).toEqual([...before, "ws_poke"]);
    expect(a.catalog.catalog_bytes).toBe(a.catalog.generic_bytes + a.materialized.bytes);
    expect(a.catalog.largest).toHaveLength(3);
    expect(a.idle_ttl_seconds).toBe(1800);
    const tools = listedTools(await catalogOf(t.db, agent, new Date()));
    expect(tools.map((x) => x.name)).toEqual([...before, "ws_poke"]);
    const exact = tools[9] as Json;
    expect(exact.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    expect(exact.inputSchema).toMatchObject({ type: "object", required: ["ref"], additionalProperties: false, properties: { note: { type: "string" }, ref: { type: "string" }, idempotency_key: {}, approval_id: {} } });
    // Asking again changes nothing.
    expect(await materialize(agent, "poke")).toMatchObject({ unchanged: true, list_changed: false });
    const off = await materialize(agent, "poke", false);
    expect(off).toMatchObject({ removed: "ws_poke", list_changed: true });
    expect(await names(agent)).toEqual(before);
    expect(await materialize(agent, "poke", false)).toMatchObject({ removed: null, list_changed: false });
  });

  it("holds at most 3 reads and 1 write: a fourth read evicts the least recently used read, a second write replaces the first", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const clock = frozenClock(new Date("2026-12-01T10:00:00Z"));
    try {
      for (const r of ["look", "peek", "scan"]) {
        await materialize(agent, r);
        clock.advance(1000);
      }
      // Using look makes peek the least recently used.
      await materialize(agent, "look");
      clock.advance(1000);
      const fourth = await materialize(agent, "count");
      expect(fourth.evicted).toEqual([expect.objectContaining({ name: "ws_peek", operation: "object.action.peek", reason: "slot_full" })]);
      expect(fourth.catalog.reads).toBe(3);
      await materialize(agent, "poke");
      const second = await materialize(agent, "wipe");
      expect(second.materialized).toMatchObject({ name: "ws_wipe", slot: "write" });
      expect(second.evicted).toEqual([expect.objectContaining({ name: "ws_poke", reason: "slot_full", why: expect.stringContaining("1 write-or-destructive tool") })]);
      expect((await names(agent)).slice(9)).toEqual(["ws_look", "ws_scan", "ws_count", "ws_wipe"]);
      // The tool's hints say it destroys.
      const wipe = listedTools(await catalogOf(t.db, agent, new Date())).find((x) => x.name === "ws_wipe") as Json;
      expect(wipe.annotations.destructiveHint).toBe(true);
    } finally {
      clock.restore();
    }
  });

  it("refuses a tool that alone exceeds the budget, changing nothing, and says what to do instead", async () => {
    const agent = await makeActor(t, t.users.alice!);
    await materialize(agent, "look");
    await t.db.update(tenants).set({ catalogBudgetBytes: 8192 }).where(eq(tenants.id, t.tenantId));
    try {
      const a = await materialize(agent, "huge");
      expect(a.materialized).toBeNull();
      expect(a.list_changed).toBe(false);
      expect(a.refused).toMatchObject({ name: "ws_huge", reason: "exceeds_budget", budget_bytes: 8192 });
      expect(a.refused.catalog_bytes_with_it).toBeGreaterThan(8192);
      expect(a.instead.contract).toMatchObject({ tool: "object_action", action: "huge", payload_schema: { type: "object" } });
      expect((await names(agent)).slice(9)).toEqual(["ws_look"]);
    } finally {
      await t.db.update(tenants).set({ catalogBudgetBytes: DEFAULT_CATALOG_BUDGET_BYTES }).where(eq(tenants.id, t.tenantId));
    }
  });

  it("answers bad input with documented codes: unknown (with near matches), turned off, not an action, no namespace, a person", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const unknown = await errorOf(dispatch(call(agent), "object_schema", { namespace: "ws", operation: "object.action.pokee", materialize: true }));
    expect(unknown.code).toBe("not_found");
    expect(unknown.details.near_matches).toEqual(expect.arrayContaining([expect.objectContaining({ operation: "object.action.poke" })]));
    await changeCeiling(t.db, call(alice), { namespace: "ws", changes: [{ operation: "object.action.stamp", mode: "off" }] });
    expect((await errorOf(materialize(agent, "stamp"))).code).toBe("operation_disabled");
    const base = await errorOf(dispatch(call(agent), "object_schema", { namespace: "ws", operation: "object.get", materialize: true }));
    expect(base.code).toBe("invalid_input");
    expect(base.message).toContain("get_object");
    expect((await errorOf(dispatch(call(agent), "object_schema", { operation: "object.action.poke", materialize: true }))).code).toBe("invalid_input");
    expect((await errorOf(dispatch(call(agent), "object_schema", { namespace: "ws", materialize: true }))).code).toBe("invalid_input");
    expect((await errorOf(dispatch(call(alice), "object_schema", { namespace: "ws", operation: "object.action.poke", materialize: true }))).code).toBe("invalid_input");
    await changeCeiling(t.db, call(alice), { namespace: "ws", changes: [{ operation: "object.action.stamp", mode: "on" }] });
  });

  it("nests a payload whose own fields are named like the call's inputs", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const a = await materialize(agent, "retag");
    expect(a.materialized.input_schema.properties).toMatchObject({ ref: { type: "string" }, payload: { type: "object", properties: { ref: { type: "string" } } } });
    await grant(t, t.users.alice!, agent.actorId, "ws", ["object.action.retag"]);
    ran.length = 0;
    await dispatch(call(agent), "ws_retag", { ref: "ws:item:one", payload: { ref: "refs/heads/main" } });
    expect(ran).toEqual([{ action: "retag", ref: "ws:item:one", payload: { ref: "refs/heads/main" } }]);
    // Only its own inputs: an argument naming another action or realm is refused, never followed.
    await grant(t, t.users.alice!, agent.actorId, "ws", ["object.action.poke"]);
    ran.length = 0;
    const smuggled = await errorOf(dispatch(call(agent), "ws_retag", { ref: "ws:item:one", payload: {}, action: "poke", namespace: "ws" }));
    expect(smuggled.code).toBe("invalid_input");
    expect(smuggled.details.unknown_fields).toEqual(["action", "namespace"]);
    expect(ran).toEqual([]);
  });

  it("runs only its own realm's action: a ref of another realm is refused", async () => {
    const agent = await makeActor(t, t.users.alice!);
    await materialize(agent, "poke");
    const e = await errorOf(dispatch(call(agent), "ws_poke", { ref: "docs:thread:thr_x" }));
    expect(e.code).toBe("invalid_input");
    expect(e.message).toContain("runs object.action.poke in ws");
  });
});

describe("calling an exact tool", () => {
  it("runs object_action's path: consent without a grant, then the action; audited with path exact_tool", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    await materialize(agent, "poke");
    const denied = await errorOf(dispatch(call(agent), "ws_poke", { ref: "ws:item:one", note: "hi" }));
    expect(denied.code).toBe("consent_required");
    expect(denied.details.connection_hub_url).toEqual(expect.stringContaining("/consent/"));
    const g = await grant(t, alice, agent.actorId, "ws", ["object.action.poke"]);
    ran.length = 0;
    expect(await dispatch(call(agent), "ws_poke", { ref: "ws:item:one", note: "hi" })).toEqual({ done: "poke", ref: "ws:item:one", payload: { note: "hi" } });
    expect(ran).toHaveLength(1);
    // Its payload is checked against the action's contract, as object_action's is.
    expect((await errorOf(dispatch(call(agent), "ws_poke", { ref: "ws:item:one", note: "x".repeat(51) }))).code).toBe("invalid_input");
    expect((await errorOf(dispatch(call(agent), "ws_poke", { ref: "ws:item:one", other: 1 }))).code).toBe("invalid_input");
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "tool.call"), eq(auditEvents.actorId, agent.actorId), eq(auditEvents.operation, "object.action.poke")));
    expect(rows.map((r) => [r.outcome, r.details.tool, r.details.path, r.details.exact_tool])).toEqual([
      ["deny", "object_action", "exact_tool", "ws_poke"],
      ["allow", "object_action", "exact_tool", "ws_poke"],
    ]);
    // The materialize itself is in the object_schema call's record.
    const [m] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, agent.actorId), eq(auditEvents.operation, "object.schema")));
    expect(m!.details.working_set).toMatchObject({ materialized: "ws_poke" });

    // Revoked: refused with the wall named. Turned off by the owner: not listed, and refused.
    await revokeGrant(t.db, call(alice), g.id, "test");
    expect((await errorOf(dispatch(call(agent), "ws_poke", { ref: "ws:item:one" }))).code).toBe("grant_revoked");
    await grant(t, alice, agent.actorId, "ws", ["object.action.poke"]);
    await changeCeiling(t.db, call(alice), { namespace: "ws", changes: [{ operation: "object.action.poke", mode: "off" }] });
    try {
      expect(await names(agent)).not.toContain("ws_poke");
      expect((await errorOf(dispatch(call(agent), "ws_poke", { ref: "ws:item:one" }))).code).toBe("operation_disabled");
    } finally {
      await changeCeiling(t.db, call(alice), { namespace: "ws", changes: [{ operation: "object.action.poke", mode: "on" }] });
    }
  });

  it("asks a person in ask mode, and the same exact call with approval_id runs once", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    await materialize(agent, "stamp");
    await grant(t, alice, agent.actorId, "ws", ["object.action.stamp"]);
    await changeCeiling(t.db, call(alice), { namespace: "ws", changes: [{ operation: "object.action.stamp", mode: "ask" }] });
    try {
      const asked = await errorOf(dispatch(call(agent), "ws_stamp", { ref: "ws:item:one", note: "once" }));
      expect(asked.code).toBe("approval_required");
      const id = asked.details.approval_id as string;
      const { decideApproval } = await import("@/lib/approvals/decide");
      await decideApproval(t.db, call(alice), id, { decision: "approve" });
      ran.length = 0;
      const first = await dispatch(call(agent), "ws_stamp", { ref: "ws:item:one", note: "once", approval_id: id });
      expect(await dispatch(call(agent), "ws_stamp", { ref: "ws:item:one", note: "once", approval_id: id })).toEqual(first);
      expect(ran).toHaveLength(1);
      expect((await errorOf(dispatch(call(agent), "ws_stamp", { ref: "ws:item:one", note: "twice", approval_id: id }))).code).toBe("approval_mismatch");
    } finally {
      await changeCeiling(t.db, call(alice), { namespace: "ws", changes: [{ operation: "object.action.stamp", mode: "on" }] });
    }
  });

  it("is one agent's own: another agent neither lists nor calls it", async () => {
    const alice = t.users.alice!;
    const a = await makeActor(t, alice, "A");
    const b = await makeActor(t, alice, "B");
    await materialize(a, "look");
    await grant(t, alice, b.actorId, "ws", ["object.action.look"]);
    expect(await names(a)).toContain("ws_look");
    expect(await names(b)).not.toContain("ws_look");
    const e = await errorOf(dispatch(call(b), "ws_look", { ref: "ws:item:one" }));
    expect(e.code).toBe("not_found");
    expect(e.details.unknown_tool).toBe(true);
    // Another tenant's agent, same name: nothing.
    const other = await makeTenant();
    ws.showTo(other.tenantId);
    const c = await makeActor(other, other.users.alice!);
    expect((await errorOf(dispatch(call(c), "ws_look", { ref: "ws:item:one" }))).code).toBe("not_found");
  });

  it("an action called by its name as a tool: not found, pointing at object_action with that action", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice, "Shortcut taker");
    const e = await errorOf(dispatch(call(agent), "look", { ref: "ws:item:one" }));
    expect(e.code).toBe("not_found");
    expect(e.message).toContain('look is an action of ws: call object_action with action "look"');
    expect(e.message).toContain('object_schema(namespace: "ws", operation: "object.action.look", materialize: true)');
    expect(e.details.use_object_action).toEqual([{ namespace: "ws", action: "look", target_kind: expect.any(String), example: { action: "look", ref: expect.stringMatching(/^<ref of a /), payload: expect.any(Object) } }]);
    // A name no realm has an action for: the general way.
    const none = await errorOf(dispatch(call(agent), "frobnicate", {}));
    expect(none.details).not.toHaveProperty("use_object_action");
    expect(none.message).toContain("Find an operation with object_schema(query)");
    // Turned off by the owner for everyone: not offered.
    await changeCeiling(t.db, call(alice), { namespace: "ws", changes: [{ operation: "object.action.look", mode: "off" }] });
    try {
      expect((await errorOf(dispatch(call(agent), "look", { ref: "ws:item:one" }))).details).not.toHaveProperty("use_object_action");
    } finally {
      await changeCeiling(t.db, call(alice), { namespace: "ws", changes: [{ operation: "object.action.look", mode: "on" }] });
    }
  });

  it("lapses with the set after the idle TTL, and says so", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    await grant(t, alice, agent.actorId, "ws", ["object.action.look", "object.action.peek"]);
    const clock = frozenClock(new Date("2026-12-01T12:00:00Z"));
    try {
      await materialize(agent, "look");
      clock.advance(20 * 60_000);
      await materialize(agent, "peek");
      // 29 minutes after look, but the set was used 9 minutes ago: still live.
      clock.advance(9 * 60_000);
      expect(await dispatch(call(agent), "ws_look", { ref: "ws:item:one" })).toMatchObject({ done: "look" });
      clock.advance(31 * 60_000);
      expect((await names(agent)).slice(9)).toEqual([]);
      const e = await errorOf(dispatch(call(agent), "ws_look", { ref: "ws:item:one" }));
      expect(e.code).toBe("not_found");
      expect(e.details.expired).toBe(true);
      expect(e.message).toContain("lapsed");
      // The next change starts a fresh set.
      expect((await materialize(agent, "scan")).catalog.reads).toBe(1);
      expect(await t.db.select({ n: workingSetTools.name }).from(workingSetTools).where(eq(workingSetTools.actorId, agent.actorId))).toEqual([{ n: "ws_scan" }]);
    } finally {
      clock.restore();
    }
  });
});

describe("the owner's selected-only rule", () => {
  afterEach(async () => {
    await changeCeiling(t.db, call(t.users.alice!), { namespace: "ws", selected_only: false });
  });

  it("refuses object_action on an action outside the working set with the materialize hint; selected, it runs", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    await grant(t, alice, agent.actorId, "ws", ["object.action.poke"]);
    const input = { ref: "ws:item:one", action: "poke", payload: {} };
    expect(await dispatch(call(agent), "object_action", input)).toMatchObject({ done: "poke" });
    expect(await changeCeiling(t.db, call(alice), { namespace: "ws", selected_only: true })).toMatchObject({ selected_only: true });
    const e = await errorOf(dispatch(call(agent), "object_action", input));
    expect(e.code).toBe("operation_not_selected");
    expect(e.status).toBe(403);
    expect(e.details).toMatchObject({ wall: "working_set", retry_hint: "retry_after_materialize", materialize: { tool: "object_schema", arguments: { namespace: "ws", operation: "object.action.poke", materialize: true } } });
    await materialize(agent, "poke");
    expect(await dispatch(call(agent), "object_action", input)).toMatchObject({ done: "poke" });
    expect(await dispatch(call(agent), "ws_poke", { ref: "ws:item:one" })).toMatchObject({ done: "poke" });
    // People are not bound by it.
    expect(await dispatch(call(alice), "object_action", { ...input, action: "stamp" })).toMatchObject({ done: "stamp" });
  });
});
