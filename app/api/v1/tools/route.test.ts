// GET /api/v1/tools in-process: every tool the caller could be granted, whatever it holds now; a tool turned off
// everywhere is not listed; never unauthenticated.
import { describe, expect, it } from "vitest";
import { makeTenant } from "@/test-support";
import { createActor } from "@/lib/authz/actors";
import { createGrant } from "@/lib/authz/grants";
import { changeCeiling } from "@/lib/authz/policy";
import { operationKeysOf } from "@/lib/realms/contract";
import { listRealms } from "@/lib/realms/registry";
import { toolCatalog } from "@/lib/tools/catalog";
import { toolNames } from "@/lib/tools/schemas";
import { GET } from "./route";

const list = (token: string) => GET(new Request("http://realmgate.test/api/v1/tools", { headers: { authorization: `Bearer ${token}` } }), { params: Promise.resolve({}) });

describe("GET /api/v1/tools", () => {
  it("lists all nine tools to an actor holding only read grants, and to one holding none", async () => {
    const t = await makeTenant({ alice: "owner" });
    const reader = await createActor(t.db, t.users.alice!, { name: "Reader", kind: "automation", issue_token: true, token_expires_in_days: null });
    await createGrant(t.db, t.users.alice!, { actor_id: reader.actor.id, namespace: "docs", operations: ["provider.about", "object.get"], resource_scope: null, expires: "1d" });
    const bare = await createActor(t.db, t.users.alice!, { name: "No grants yet", kind: "automation", issue_token: true, token_expires_in_days: null });
    for (const token of [reader.token!.token, bare.token!.token]) {
      const res = await list(token);
      expect(res.status).toBe(200);
      const { call, tools } = (await res.json()) as { call: string; tools: { name: string; annotations: Record<string, boolean> }[] };
      expect(tools.map((x) => x.name)).toEqual(toolNames);
      // Each tool as MCP's tools/list has it, hints included, and how to call it over REST.
      expect(tools.map(({ annotations: _hints, ...entry }) => entry)).toEqual(toolCatalog());
      expect(tools.find((x) => x.name === "get_object")!.annotations).toMatchObject({ readOnlyHint: true });
      expect(tools.find((x) => x.name === "delete_object")!.annotations).toMatchObject({ destructiveHint: true });
      expect(call).toContain("POST /api/v1/tools/<name>");
    }
  });

  it("a write tool listed without a grant answers consent_required, not a missing tool", async () => {
    const t = await makeTenant({ alice: "owner" });
    const reader = await createActor(t.db, t.users.alice!, { name: "Reader", kind: "automation", issue_token: true, token_expires_in_days: null });
    await createGrant(t.db, t.users.alice!, { actor_id: reader.actor.id, namespace: "docs", operations: ["provider.about", "object.get"], resource_scope: null, expires: "1d" });
    const { POST } = await import("./[tool]/route");
    const res = await POST(
      new Request("http://realmgate.test/api/v1/tools/upsert_object", {
        method: "POST",
        headers: { authorization: `Bearer ${reader.token!.token}`, "content-type": "application/json" },
        body: JSON.stringify({ namespace: "docs", kind: "docs.document", fields: { title: "Draft" } }),
      }),
      { params: Promise.resolve({ tool: "upsert_object" }) },
    );
    expect(res.status).toBe(403);
    expect((await res.json()).error).toMatchObject({ code: "consent_required", details: { connection_hub_url: expect.stringContaining("/consent/ccr_") } });
  });

  it("leaves out a tool whose operation the owner turned off in every realm, and only that one", async () => {
    const t = await makeTenant({ alice: "owner" });
    const agent = await createActor(t.db, t.users.alice!, { name: "Agent", kind: "automation", issue_token: true, token_expires_in_days: null });
    const realms = await listRealms(t.db, t.tenantId);
    for (const r of realms) {
      if (!operationKeysOf(r.manifest).includes("object.delete")) continue;
      await changeCeiling(t.db, t.users.alice!, { namespace: r.manifest.namespace, changes: [{ operation: "object.delete", enabled: false }] });
    }
    const { tools } = (await (await list(agent.token!.token)).json()) as { tools: { name: string }[] };
    expect(tools.map((x) => x.name)).toEqual(toolNames.filter((n) => n !== "delete_object"));
  });

  it("needs a caller: an unknown token is 401", async () => {
    expect((await list(`rga_${"x".repeat(43)}`)).status).toBe(401);
  });
});
