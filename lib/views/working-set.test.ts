// One agent's working set as its person sees it: the same proof the agent's own catalog gives, each exact tool by
// title and realm with its size and last use, the lapse time, unlisted tools with their reason; who may read it
// (the grantor) and remove a tool (the grantor, never support), audited in the same transaction.
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { actors, auditEvents, tenants } from "@/db/schema";
import { createActor } from "@/lib/authz/actors";
import { changeCeiling } from "@/lib/authz/policy";
import { dispatch } from "@/lib/tools/dispatch";
import { catalogOf, listedTools } from "@/lib/tools/working-set";
import { DEFAULT_CATALOG_BUDGET_BYTES } from "@/lib/working-set/budget";
import { call, errorOf, frozenClock, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { realmCards, realmDetail } from "./realms";
import { changeTenantSettings, readTenantSettings } from "./tenant-settings";
import { actorContextOf, removeWorkingSetTool, workingSetView } from "./working-set";

type Agent = Awaited<ReturnType<typeof makeActor>>;

const materialize = (agent: Agent, operation: string) => dispatch(call(agent), "object_schema", { namespace: "docs", operation, materialize: true }) as Promise<{ catalog: unknown }>;

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
});

describe("the working set view", () => {
  it("shows the agent's own proof, each tool by title and realm with its size and last use, and when the set lapses", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice, "Exporter");
    const clock = frozenClock(new Date("2026-12-01T09:00:00Z"));
    try {
      await materialize(agent, "object.action.export");
      clock.advance(60_000);
      const answer = await materialize(agent, "object.action.reply_comment");
      const view = await workingSetView(t.db, call(alice), agent.actorId);
      // The numbers are the agent's own: what object_schema answered it, and what its tools/list weighs.
      expect(view.proof).toEqual(answer.catalog);
      expect(view.proof).toEqual((await catalogOf(t.db, agent, new Date())).proof);
      expect(view.tools.map((x) => [x.title, x.name, x.realm_title, x.operation, x.slot, x.risk])).toEqual([
        ["Export", "docs_export", "Docs", "object.action.export", "read", "read"],
        ["Reply", "docs_reply_comment", "Docs", "object.action.reply_comment", "write", "write"],
      ]);
      expect(view.tools.map((x) => x.bytes)).toEqual(view.proof.tools.slice(9).map((x) => x.bytes));
      expect(view.proof).toMatchObject({ reads: 1, writes: 1, budget_bytes: DEFAULT_CATALOG_BUDGET_BYTES });
      expect(view.proof.catalog_bytes).toBe(view.proof.generic_bytes + view.tools[0]!.bytes + view.tools[1]!.bytes);
      expect(view.tools[0]!.last_used_at).toBe("2026-12-01T09:00:00.000Z");
      expect(view.tools[1]!.last_used_at).toBe("2026-12-01T09:01:00.000Z");
      // The set lapses 30 minutes after its last use, whichever tool it was.
      expect(view.lapses_at).toBe("2026-12-01T09:31:00.000Z");
      expect(view.idle_ttl_seconds).toBe(1800);
      expect(view.largest).toHaveLength(3);
      expect(view.largest.map((l) => l.bytes)).toEqual(view.proof.largest.map((l) => l.bytes));
      for (const l of view.largest) expect(l.title).toBe(view.tools.find((x) => x.name === l.name)?.title ?? l.name);
      expect(view.unlisted).toEqual([]);
      expect(view.budget).toEqual({ bytes: 16384, min: 8192, max: 49152, default: 16384 });
      expect(view.can_remove).toBe(true);
      expect(view.actor).toEqual({ id: agent.actorId, name: "Exporter", revoked: false });

      // Idle past the TTL: empty, with nothing to lapse.
      clock.advance(31 * 60_000);
      const idle = await workingSetView(t.db, call(alice), agent.actorId);
      expect(idle.tools).toEqual([]);
      expect(idle.lapses_at).toBeNull();
      expect(idle.proof.working_set_bytes).toBe(0);
    } finally {
      clock.restore();
    }
  });

  it("has no tools for a fresh agent, and names tools that are not listed with their reason", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const empty = await workingSetView(t.db, call(alice), agent.actorId);
    expect(empty).toMatchObject({ tools: [], unlisted: [], lapses_at: null, proof: { reads: 0, writes: 0, working_set_bytes: 0 } });
    expect(empty.proof.tools).toHaveLength(9);

    await materialize(agent, "object.action.export");
    await changeCeiling(t.db, call(alice), { namespace: "docs", changes: [{ operation: "object.action.export", mode: "off" }] });
    try {
      const off = await workingSetView(t.db, call(alice), agent.actorId);
      expect(off.tools).toEqual([]);
      expect(off.unlisted).toEqual([
        expect.objectContaining({ name: "docs_export", title: "Export", realm_title: "Docs", reason: "turned_off", why: expect.stringContaining("turned off"), last_used_at: expect.any(String) }),
      ]);
      // It still counts for the lapse: the row is there until the set lapses or changes.
      expect(off.lapses_at).not.toBeNull();
    } finally {
      await changeCeiling(t.db, call(alice), { namespace: "docs", changes: [{ operation: "object.action.export", mode: "on" }] });
    }
  });

  it("is the grantor's: another member, another tenant and an unknown id are not found", async () => {
    const agent = await makeActor(t, t.users.alice!);
    expect((await errorOf(workingSetView(t.db, call(t.users.bob!), agent.actorId))).code).toBe("not_found");
    const other = await makeTenant();
    expect((await errorOf(workingSetView(other.db, call(other.users.alice!), agent.actorId))).code).toBe("not_found");
    expect((await errorOf(workingSetView(t.db, call(t.users.alice!), "act_nope"))).code).toBe("not_found");
  });

  it("builds the agent's context from its row, never a person's", async () => {
    const agent = await makeActor(t, t.users.alice!, "Context");
    const [row] = await t.db.select().from(actors).where(eq(actors.id, agent.actorId));
    expect(actorContextOf(row!, "req_x")).toEqual({
      kind: "actor",
      tenantId: t.tenantId,
      actorId: agent.actorId,
      actorKind: "hosted_agent",
      actorName: "Context",
      grantorId: t.users.alice!.userId,
      via: "actor_token",
      credentialId: "view",
      requestId: "req_x",
    });
  });
});

describe("removing a tool", () => {
  it("takes it out of the agent's catalog, audited in the same transaction; again, it is not found", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice, "Remover");
    await materialize(agent, "object.action.export");
    await materialize(agent, "object.action.reply_comment");
    const who = call(alice);
    const after = await removeWorkingSetTool(t.db, who, agent.actorId, "docs_export");
    expect(after.removed).toBe("docs_export");
    expect(after.tools.map((x) => x.name)).toEqual(["docs_reply_comment"]);
    expect(after.proof).toMatchObject({ reads: 0, writes: 1 });
    expect(listedTools(await catalogOf(t.db, agent, new Date())).map((x) => x.name).slice(9)).toEqual(["docs_reply_comment"]);
    const rows = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "working_set.changed"), eq(auditEvents.subjectId, agent.actorId)));
    expect(rows.map((r) => [r.userId, r.requestId, r.namespace, r.operation, r.outcome, r.details])).toEqual([
      [alice.userId, who.requestId, "docs", "object.action.export", "ok", { actor_id: agent.actorId, removed: "docs_export", slot: "read" }],
    ]);
    const again = await errorOf(removeWorkingSetTool(t.db, call(alice), agent.actorId, "docs_export"));
    expect(again.code).toBe("not_found");
    expect(again.message).toContain("Remover");
    expect((await errorOf(removeWorkingSetTool(t.db, call(alice), agent.actorId, "not a tool name!"))).code).toBe("not_found");
  });

  it("is refused to support staff (forbidden) even for their own agent, whose set they may read; and not found for another member", async () => {
    const sam = t.users.sam!;
    // Support staff hold agents through an MCP client's sign-in; they read, never change.
    const { actor, token } = await createActor(t.db, sam, { name: "Support client", kind: "mcp_client", issue_token: true, token_expires_in_days: null });
    const agent: Agent = { kind: "actor", tenantId: t.tenantId, actorId: actor.id, actorKind: "mcp_client", actorName: actor.name, grantorId: sam.userId, via: "actor_token", credentialId: token!.id, requestId: "req_s", token: token!.token };
    await materialize(agent, "object.action.export");
    const view = await workingSetView(t.db, call(sam), actor.id);
    expect(view.tools.map((x) => x.name)).toEqual(["docs_export"]);
    expect(view.can_remove).toBe(false);
    expect((await errorOf(removeWorkingSetTool(t.db, call(sam), actor.id, "docs_export"))).code).toBe("forbidden");

    const mine = await makeActor(t, t.users.alice!);
    await materialize(mine, "object.action.export");
    expect((await errorOf(removeWorkingSetTool(t.db, call(t.users.bob!), mine.actorId, "docs_export"))).code).toBe("not_found");
    expect((await workingSetView(t.db, call(t.users.alice!), mine.actorId)).tools).toHaveLength(1);
  });
});

describe("the workspace's catalog budget", () => {
  it("is read by any member; the owner changes it with before and after audited; others are forbidden", async () => {
    const tt = await makeTenant();
    for (const who of Object.values(tt.users)) expect(await readTenantSettings(tt.db, who)).toEqual({ catalog_budget_bytes: 16384, min: 8192, max: 49152, default: 16384 });
    const who = call(tt.users.alice!);
    expect(await changeTenantSettings(tt.db, who, { catalog_budget_bytes: 24576 })).toMatchObject({ catalog_budget_bytes: 24576, changed: true });
    const [row] = await tt.db.select({ b: tenants.catalogBudgetBytes }).from(tenants).where(eq(tenants.id, tt.tenantId));
    expect(row!.b).toBe(24576);
    // The same value again changes nothing and records nothing.
    expect(await changeTenantSettings(tt.db, call(tt.users.alice!), { catalog_budget_bytes: 24576 })).toMatchObject({ changed: false });
    const audit = await tt.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, tt.tenantId), eq(auditEvents.event, "tenant.settings_changed")));
    expect(audit.map((a) => [a.userId, a.requestId, a.details])).toEqual([[tt.users.alice!.userId, who.requestId, { before: { catalog_budget_bytes: 16384 }, after: { catalog_budget_bytes: 24576 } }]]);
    for (const name of ["bob", "sam"]) expect((await errorOf(changeTenantSettings(tt.db, call(tt.users[name]!), { catalog_budget_bytes: 8192 }))).code).toBe("forbidden");
    expect((await readTenantSettings(tt.db, tt.users.bob!)).catalog_budget_bytes).toBe(24576);
  });

  it("is the budget the agent's proof is measured against", async () => {
    const tt = await makeTenant();
    const agent = await makeActor(tt, tt.users.alice!);
    await changeTenantSettings(tt.db, call(tt.users.alice!), { catalog_budget_bytes: 32768 });
    const view = await workingSetView(tt.db, call(tt.users.alice!), agent.actorId);
    expect(view.proof.budget_bytes).toBe(32768);
    expect(view.budget.bytes).toBe(32768);
  });
});

describe("on the realm page", () => {
  it("carries the owner's selected-only setting on the realm's card, off by default", async () => {
    const tt = await makeTenant();
    const alice = tt.users.alice!;
    expect((await realmDetail(tt.db, alice, "docs")).card.selected_only).toBe(false);
    await changeCeiling(tt.db, call(alice), { namespace: "docs", selected_only: true });
    expect((await realmDetail(tt.db, tt.users.bob!, "docs")).card.selected_only).toBe(true);
    const cards = await realmCards(tt.db, alice);
    expect(cards.find((c) => c.namespace === "docs")!.selected_only).toBe(true);
    expect(cards.filter((c) => c.namespace !== "docs").every((c) => !c.selected_only)).toBe(true);
  });
});
