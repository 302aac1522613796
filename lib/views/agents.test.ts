import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { consentRequests } from "@/db/schema";
import { createGrant, revokeGrant } from "@/lib/authz/grants";
import { findRealm } from "@/lib/realms/registry";
import { dispatch } from "@/lib/tools/dispatch";
import { call, errorOf, grant, makeActor, makeTenant } from "@/test-support";
import { connectionStatus, countsInWords, grantableRealms, groupByArea, regrantBody, scopeNames, type PickerOperation } from "./agents";

const op = (key: string, risk: PickerOperation["risk"] = "read"): PickerOperation => ({ value: `x ${key}`, key, label: key, risk, checked: false, approved: false, exactOnly: false });

describe("the grouped picker's groups", () => {
  const manifest = {
    namespace: "x",
    service_card: { title: "X", purpose: "p", works_with: "w", touches: ["t"], operation_labels: {} },
    catalog: {
      path: "/",
      label: "X",
      description: "All of X",
      keywords: [],
      kinds: [],
      operations: ["provider.about"],
      children: [
        { path: "/issues", label: "Issues", description: "Issues", keywords: [], kinds: [], operations: [], children: [{ path: "/issues/comments", label: "Comments", description: "c", keywords: [], kinds: [], operations: ["object.action.comment"], children: [] }] },
        { path: "/repos", label: "Repos", description: "Repos", keywords: [], kinds: [], operations: ["object.action.get_repo", "object.action.delete_repo", "object.action.comment"], children: [] },
        { path: "/empty", label: "Empty", description: "e", keywords: [], kinds: [], operations: [], children: [] },
      ],
    },
  };

  it("puts each operation in the first area that names it, realm-wide ones first, and counts risks per group", () => {
    const groups = groupByArea(manifest, [op("provider.about"), op("object.action.comment", "write"), op("object.action.get_repo"), op("object.action.delete_repo", "destructive")]);
    expect(groups.map((g) => [g.area, g.operations.map((o) => o.key)])).toEqual([
      ["General", ["provider.about"]],
      ["Issues", ["object.action.comment"]],
      ["Repos", ["object.action.get_repo", "object.action.delete_repo"]],
    ]);
    expect(groups[2]!.counts).toEqual({ read: 1, write: 0, destructive: 1 });
    expect(countsInWords(groups[2]!.counts)).toBe("1 read, 1 delete data");
  });

  it("groups a built-in realm's grantable operations for the Agents page, every effective operation once", async () => {
    const t = await makeTenant();
    const realms = await grantableRealms(t.db, t.users.alice!);
    const docs = realms.find((r) => r.namespace === "docs")!;
    const keys = docs.groups.flatMap((g) => g.operations.map((o) => o.key));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain("object.search");
    expect(docs.counts.read).toBe(docs.groups.reduce((n, g) => n + g.counts.read, 0));
  }, 120_000);
});

describe("an OAuth client's connection status", () => {
  const at = (iso: string) => new Date(iso);
  const now = at("2026-06-01T00:00:00Z");
  it("says revoked, not active, when every token was revoked", () => {
    expect(connectionStatus([{ revokedAt: at("2026-05-30T00:00:00Z"), rotatedAt: null, expiresAt: at("2026-07-01T00:00:00Z"), createdAt: at("2026-05-01T00:00:00Z") }], now).tokens).toBe("revoked");
  });
  it("is live while one chain's newest token is usable, and expired when they ran out", () => {
    const live = { revokedAt: null, rotatedAt: null, expiresAt: at("2026-07-01T00:00:00Z"), createdAt: at("2026-05-02T00:00:00Z") };
    const rotated = { revokedAt: null, rotatedAt: at("2026-05-02T00:00:00Z"), expiresAt: at("2026-07-01T00:00:00Z"), createdAt: at("2026-05-01T00:00:00Z") };
    expect(connectionStatus([rotated, live], now)).toEqual({ tokens: "live", last_token_at: "2026-05-02T00:00:00.000Z" });
    expect(connectionStatus([{ ...live, expiresAt: at("2026-05-20T00:00:00Z") }], now).tokens).toBe("expired");
    expect(connectionStatus([], now).tokens).toBe("none");
  });
});

describe("after a revoke", () => {
  it("the agent's grant_revoked denial links to the grant on the Agents page and creates no consent request; granting it again restores the call", async () => {
    const t = await makeTenant();
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const g = await grant(t, alice, agent.actorId, "docs", ["object.search"]);
    const search = { namespace: "docs", kind: "docs.document", query: "plan" };
    await dispatch(call(agent), "search_objects", search);
    await revokeGrant(t.db, call(alice), g.id, "testing");
    const requestsBefore = await t.db.select().from(consentRequests).where(eq(consentRequests.tenantId, t.tenantId));

    const denied = await errorOf(dispatch(call(agent), "search_objects", search));
    expect(denied.code).toBe("grant_revoked");
    expect(denied.details.connection_hub_url).toMatch(new RegExp(`/agents\\?grant=${g.id}#grant-${g.id}$`));
    expect(denied.details.instructions).toContain(`/agents?grant=${g.id}`);
    const requestsAfter = await t.db.select().from(consentRequests).where(and(eq(consentRequests.tenantId, t.tenantId)));
    expect(requestsAfter.length).toBe(requestsBefore.length);

    const again = await createGrant(t.db, call(alice), regrantBody({ ...g, actor_id: agent.actorId, all_actions: false, resource_scope: null }, "1d"));
    expect(again.operations).toEqual(["object.search"]);
    await expect(dispatch(call(agent), "search_objects", search)).resolves.toBeTruthy();
  });

  it("names a grant's scoped refs as the viewer reads them", async () => {
    const t = await makeTenant();
    const alice = t.users.alice!;
    const doc = (await dispatch(call(alice), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Q3 planning" } })) as { ref: string };
    expect(await findRealm(t.db, t.tenantId, "docs")).toBeTruthy();
    const names = await scopeNames(t.db, alice, [{ namespace: "docs", resource_scope: { refs: [doc.ref, "docs:document:doc_nope"] } }]);
    expect(names[doc.ref]).toBe("Q3 planning");
    expect(names["docs:document:doc_nope"]).toBeUndefined();
  });
});

describe("MCP configuration snippets", () => {
  it("name the server's MCP URL and only a placeholder for the token", async () => {
    const { mcpSnippets, TOKEN_PLACEHOLDER } = await import("./agents");
    const s = mcpSnippets("https://rg.example/api/mcp");
    expect(s.map((x) => x.id)).toEqual(["claude", "cursor", "inspector"]);
    expect(s[0]!.text).toBe(`claude mcp add --transport http realmgate https://rg.example/api/mcp --header "Authorization: Bearer ${TOKEN_PLACEHOLDER}"`);
    expect(JSON.parse(s[1]!.text)).toEqual({ mcpServers: { realmgate: { url: "https://rg.example/api/mcp", headers: { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` } } } });
    for (const x of s) expect(x.text).not.toMatch(/rga_/);
  });
});

describe("the OAuth consent offer, grouped", () => {
  it("keeps every offered operation once, pre-ticked exactly as offered", async () => {
    const { consentOffer } = await import("@/lib/mcp/oauth");
    const { consentPicker } = await import("./agents");
    const t = await makeTenant();
    const offer = await consentOffer(t.db, t.users.alice!, ["realms:read", "realms:write"]);
    const picker = await consentPicker(t.db, t.tenantId, offer);
    const flat = (ops: { value: string; checked: boolean }[]) => ops.map((o) => `${o.value}:${o.checked}`).sort();
    expect(flat(picker.flatMap((r) => r.groups.flatMap((g) => g.operations)))).toEqual(flat(offer.realms.flatMap((r) => r.operations.map((o) => ({ value: `${r.namespace} ${o.key}`, checked: o.checked })))));
    expect(picker.map((r) => r.namespace)).toEqual(offer.realms.map((r) => r.namespace));
  }, 120_000);
});
