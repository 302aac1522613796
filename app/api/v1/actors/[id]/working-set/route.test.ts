// The working-set routes in-process: the grantor reads the set and removes one tool; an agent's own token is
// refused (people only); another member is not found; support staff read their own, never remove. And the
// records it and the budget setting write, as the audit trail reads them.
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { eventSummary, kilobytes } from "@/components/audit/event-words";
import { auditEvents } from "@/db/schema";
import { auditView } from "@/lib/audit/view";
import { removeWorkingSetTool } from "@/lib/views/working-set";
import { changeTenantSettings } from "@/lib/views/tenant-settings";
import { createActor } from "@/lib/authz/actors";
import { createApiKey } from "@/lib/authz/api-keys";
import { dispatch } from "@/lib/tools/dispatch";
import { call, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { DELETE } from "./[name]/route";
import { GET } from "./route";

let t: TestTenant;
let aliceKey: string;
let bobKey: string;
let agent: Awaited<ReturnType<typeof makeActor>>;
beforeAll(async () => {
  t = await makeTenant();
  aliceKey = (await createApiKey(t.db, t.users.alice!, "ws test")).key;
  bobKey = (await createApiKey(t.db, t.users.bob!, "ws test")).key;
  agent = await makeActor(t, t.users.alice!, "Route agent");
  for (const operation of ["object.action.export", "object.action.reply_comment"]) await dispatch(call(agent), "object_schema", { namespace: "docs", operation, materialize: true });
});

const url = (id: string, name?: string) => `http://realmgate.test/api/v1/actors/${id}/working-set${name ? `/${name}` : ""}`;
const get = (key: string, id = agent.actorId) => GET(new Request(url(id), { headers: { authorization: `Bearer ${key}` } }), { params: Promise.resolve({ id }) });
const remove = (key: string, name: string, id = agent.actorId) => DELETE(new Request(url(id, name), { method: "DELETE", headers: { authorization: `Bearer ${key}` } }), { params: Promise.resolve({ id, name }) });
const errorOfRes = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

describe("/api/v1/actors/:id/working-set", () => {
  it("gives the grantor the set with its proof; refuses an agent token; another member's is not found", async () => {
    const res = await get(aliceKey);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: { title: string; realm_title: string; bytes: number }[]; proof: { reads: number; writes: number; budget_bytes: number }; can_remove: boolean };
    expect(body.tools.map((x) => [x.title, x.realm_title])).toEqual([["Export", "Docs"], ["Reply", "Docs"]]);
    expect(body.proof).toMatchObject({ reads: 1, writes: 1, budget_bytes: 16384 });
    expect(body.can_remove).toBe(true);
    const asAgent = await get(agent.token);
    expect(asAgent.status).toBe(403);
    expect((await errorOfRes(asAgent)).code).toBe("forbidden");
    expect((await get(bobKey)).status).toBe(404);
    expect((await get(aliceKey, "act_unknown")).status).toBe(404);
  });

  it("removes one tool for the grantor, then it is not found; support staff are forbidden; another member not found", async () => {
    expect((await remove(bobKey, "docs_export")).status).toBe(404);
    expect((await remove(agent.token, "docs_export")).status).toBe(403);
    const res = await remove(aliceKey, "docs_export");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { removed: string; tools: { name: string }[] };
    expect(body.removed).toBe("docs_export");
    expect(body.tools.map((x) => x.name)).toEqual(["docs_reply_comment"]);
    const again = await remove(aliceKey, "docs_export");
    expect(again.status).toBe(404);
    expect((await errorOfRes(again)).message).toContain("Route agent");

    const sam = t.users.sam!;
    const samKey = (await createApiKey(t.db, sam, "ws test")).key;
    const { actor } = await createActor(t.db, sam, { name: "Support client", kind: "mcp_client", issue_token: false, token_expires_in_days: null });
    expect((await get(samKey, actor.id)).status).toBe(200);
    const refused = await remove(samKey, "docs_export", actor.id);
    expect(refused.status).toBe(403);
    expect((await errorOfRes(refused)).code).toBe("forbidden");
  });
});

describe("the records in words (the trail's table)", () => {
  const materialize = (a: Awaited<ReturnType<typeof makeActor>>, operation: string) => dispatch(call(a), "object_schema", { namespace: "docs", operation, materialize: true });
  it("reads the two new records as sentences, the budget in KB", async () => {
    const tt = await makeTenant();
    const agent = await makeActor(tt, tt.users.alice!, "Worded");
    await materialize(agent, "object.action.export");
    await removeWorkingSetTool(tt.db, call(tt.users.alice!), agent.actorId, "docs_export");
    await changeTenantSettings(tt.db, call(tt.users.alice!), { catalog_budget_bytes: 24576 });
    const rows = await tt.db.select().from(auditEvents).where(eq(auditEvents.tenantId, tt.tenantId));
    const names = { user: (id: string | null) => (id === tt.users.alice!.userId ? "Alice" : id), actor: (id: string | null) => (id === agent.actorId ? "Worded" : id) };
    const words = { docs: { title: "Docs", operations: { "object.action.export": { label: "Export", risk: "read" as const } } } };
    const removed = eventSummary(auditView(rows.find((r) => r.event === "working_set.changed")!), words, names);
    expect(removed.sentence).toBe("Alice removed “Export” from Worded's working set in Docs");
    expect(removed.details).toContainEqual({ label: "Tool", value: "docs_export" });
    const settings = eventSummary(auditView(rows.find((r) => r.event === "tenant.settings_changed")!), words, names);
    expect(settings.sentence).toBe("Alice changed the workspace's settings");
    expect(settings.details).toEqual([
      { label: "Before", value: "Catalog budget for agents: 16 KB" },
      { label: "After", value: "Catalog budget for agents: 24 KB" },
    ]);
    expect([kilobytes(10035), kilobytes(16384), kilobytes(49152)]).toEqual(["9.8 KB", "16 KB", "48 KB"]);
  });

});
