// Discovery follows what may be granted, not what is granted, and needs no consent: a new agent with no grant
// reads the realm list, any realm's description and the capability search, imported realms included; the
// owner can close one realm's description ("agents may read this realm's description without asking"), and
// then that realm is named, marked needs_grant, and describing it asks the agent's user.
import fs from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "@/db/schema";
import { changeCeiling, changeChoices } from "@/lib/authz/policy";
import { importRealm } from "@/lib/openapi-admin/import";
import { call, codeOf, errorOf, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { dispatch } from "./dispatch";

type Json = Record<string, unknown>;
const helpdesk = fs.readFileSync(path.join(import.meta.dirname, "../realms/openapi/fixtures/helpdesk.yaml"), "utf8");

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
  await importRealm(t.db, t.users.alice!, { namespace: "helpdesk", spec: helpdesk, base_url: "https://helpdesk.example.com/api/v2" });
});

describe("an agent with no grant at all", () => {
  it("lists every realm, imported ones included, and reads any realm's description and catalog", async () => {
    const agent = await makeActor(t, t.users.alice!, "Fresh agent");
    const root = (await dispatch(call(agent), "provider_about", {})) as { realms: { namespace: string; needs_grant?: true }[]; rules: string[] };
    expect(root.realms.map((r) => r.namespace).sort()).toEqual(["board", "docs", "helpdesk", "mail", "memory", "slack"]);
    expect(root.realms.some((r) => r.needs_grant)).toBe(false);
    expect(root.rules.join(" ")).toContain("Refs are opaque");

    const about = (await dispatch(call(agent), "provider_about", { namespace: "helpdesk" })) as { actions: { allowed: unknown[]; needs_grant?: { action: string }[] } };
    // It holds no grant: every action is one to ask for, grouped, not flagged one by one.
    expect(about.actions.allowed).toEqual([]);
    expect(about.actions.needs_grant!.length).toBeGreaterThan(0);

    const node = (await dispatch(call(agent), "object_schema", { namespace: "docs" })) as Json;
    expect(node).toMatchObject({ namespace: "docs", path: "/" });

    // The cross-realm search covers the imported realm too; what it cannot use yet is marked.
    const found = (await dispatch(call(agent), "object_schema", { query: "create a ticket" })) as { matches: { namespace: string; needs_grant?: true }[] };
    expect(found.matches[0]).toMatchObject({ namespace: "helpdesk", needs_grant: true });

    // A kind's contract marks what it could be granted as provider_about does, instead of leaving it out.
    const card = (await dispatch(call(agent), "object_schema", { namespace: "board", kind: "board.card" })) as Json;
    expect(card.operations).toEqual([]);
    expect(card.needs_grant).toEqual(expect.arrayContaining(["object.list", "object.get", "object.upsert", "object.delete"]));
    expect(card.note).toContain("consent_required");
    const aboutBoard = (await dispatch(call(agent), "provider_about", { namespace: "board" })) as { kinds: Json[] };
    const cardAbout = aboutBoard.kinds.find((k) => k.kind === "board.card")!;
    expect({ operations: card.operations, needs_grant: card.needs_grant }).toEqual({ operations: cardAbout.operations, needs_grant: cardAbout.needs_grant });

    // Describing is open; using is not: reading data still asks.
    expect(await codeOf(dispatch(call(agent), "list_objects", { namespace: "docs", kind: "docs.document" }))).toBe("consent_required");
  });

  it("is audited as let in without a grant", async () => {
    const agent = await makeActor(t, t.users.alice!, "Audited agent");
    await dispatch(call(agent), "provider_about", { namespace: "docs" });
    const [row] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, agent.actorId), eq(auditEvents.operation, "provider.about")));
    expect(row).toMatchObject({ outcome: "allow", subjectId: null, namespace: "docs" });
    expect(row!.details).toMatchObject({ tool: "provider_about", via: "open_description" });
  });

  it("the grantor's choice still turns describing off for their agents", async () => {
    const u = await makeTenant({ alice: "owner", bob: "member" });
    const bobs = await makeActor(u, u.users.bob!, "Bob's agent");
    await changeChoices(u.db, u.users.bob!, { namespace: "docs", changes: [{ operation: "provider.about", enabled: false }] });
    const err = await errorOf(dispatch(call(bobs), "provider_about", { namespace: "docs" }));
    expect(err.code).toBe("operation_disabled");
    // The realm list says describing docs is off for it (not "ask", which would not work), while object_schema stays open.
    const root = (await dispatch(call(bobs), "provider_about", {})) as { realms: { namespace: string; needs_grant?: true; description_off?: true }[]; description_off_note?: string };
    expect(root.realms.find((r) => r.namespace === "docs")).toMatchObject({ description_off: true });
    expect(root.realms.find((r) => r.namespace === "docs")).not.toHaveProperty("needs_grant");
    expect(root.description_off_note).toContain("operation_disabled");
    expect(await codeOf(dispatch(call(bobs), "object_schema", { namespace: "docs" }))).toBe("ok");
  });

  it("an operation its user turned off is not described: no contract, not among a kind's actions", async () => {
    const u = await makeTenant({ alice: "owner", bob: "member" });
    const bobs = await makeActor(u, u.users.bob!, "Bob's reader");
    await changeChoices(u.db, u.users.bob!, { namespace: "docs", changes: [{ operation: "object.action.export", enabled: false }] });
    expect(await codeOf(dispatch(call(bobs), "object_schema", { namespace: "docs", operation: "object.action.export" }))).toBe("operation_disabled");
    const kind = (await dispatch(call(bobs), "object_schema", { namespace: "docs", kind: "docs.document" })) as { actions: { action: string }[] };
    expect(kind.actions.map((a) => a.action)).not.toContain("export");
    // Alice's agents still read it.
    const alices = await makeActor(u, u.users.alice!, "Alice's reader");
    expect(await codeOf(dispatch(call(alices), "object_schema", { namespace: "docs", operation: "object.action.export" }))).toBe("ok");
  });
});

describe("the owner closes a realm's description", () => {
  it("then that realm is named needs_grant, describing it asks, and reopening lets agents in again", async () => {
    const u = await makeTenant({ alice: "owner", bob: "member" });
    const agent = await makeActor(u, u.users.alice!, "Closed-door agent");
    // Only an owner may change it.
    expect(await codeOf(changeCeiling(u.db, u.users.bob!, { namespace: "docs", open_description: false }))).toBe("forbidden");
    const saved = await changeCeiling(u.db, u.users.alice!, { namespace: "docs", open_description: false });
    expect(saved.open_description).toBe(false);

    const root = (await dispatch(call(agent), "provider_about", {})) as { realms: { namespace: string; needs_grant?: true }[]; note?: string };
    expect(root.realms.find((r) => r.namespace === "docs")).toMatchObject({ needs_grant: true });
    expect(root.realms.find((r) => r.namespace === "memory")).not.toHaveProperty("needs_grant");
    expect(root.note).toContain("consent_required");

    const denied = await errorOf(dispatch(call(agent), "provider_about", { namespace: "docs" }));
    expect(denied.code).toBe("consent_required");
    expect(String(denied.details.connection_hub_url ?? denied.details.url)).toContain("/consent/");
    expect(await codeOf(dispatch(call(agent), "object_schema", { namespace: "docs" }))).toBe("consent_required");

    // The capability search does not look inside it, and says so.
    const found = (await dispatch(call(agent), "object_schema", { query: "reply to a comment" })) as { matches: { namespace: string }[]; not_searched?: { namespace: string }[] };
    expect(found.matches.every((m) => m.namespace !== "docs")).toBe(true);
    expect(found.not_searched).toEqual([{ namespace: "docs", title: "Docs", needs_grant: true }]);

    // Other tenants are untouched.
    const other = await makeTenant();
    const theirs = await makeActor(other, other.users.alice!);
    expect(await codeOf(dispatch(call(theirs), "provider_about", { namespace: "docs" }))).toBe("ok");

    await changeCeiling(u.db, u.users.alice!, { namespace: "docs", open_description: true });
    expect(await codeOf(dispatch(call(agent), "provider_about", { namespace: "docs" }))).toBe("ok");
  });

  it("a call that does not fit the closed realm does not spell out its catalog", async () => {
    const u = await makeTenant({ alice: "owner", bob: "member" });
    const agent = await makeActor(u, u.users.alice!, "Prober");
    const probes = [
      ["object_action", { namespace: "docs", action: "zzz" }, "known_actions"],
      ["list_objects", { kind: "docs.nothing" }, "known_kinds"],
      ["upsert_object", { kind: "docs.document", fields: { zz: 1 } }, "writable_fields"],
      ["object_action", { kind: "docs.document", selector: { title: "x" }, action: "export", payload: { format: 1 } }, "issues"],
    ] as const;
    // Open (the default): the refusal helps, naming what the realm offers.
    for (const [tool, input, key] of probes) expect(JSON.stringify((await errorOf(dispatch(call(agent), tool, input))).details), tool).toContain(key);
    await changeCeiling(u.db, u.users.alice!, { namespace: "docs", open_description: false });
    for (const [tool, input, key] of probes) {
      const err = await errorOf(dispatch(call(agent), tool, input));
      expect(["invalid_input", "not_found"]).toContain(err.code);
      expect(JSON.stringify(err.details), tool).not.toContain(key);
      expect(err.message).toContain("object_schema");
    }
  });

  it("refuses an unknown realm and an empty change", async () => {
    expect(await codeOf(changeCeiling(t.db, t.users.alice!, { namespace: "nope", open_description: false }))).toBe("not_found");
  });
});
