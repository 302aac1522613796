// What a caller could be granted (ceiling ∩ the grantor's choices), read fresh on every call even though each
// realm's operation set is built once per manifest.
import { describe, expect, it } from "vitest";
import { countingDb, grant, makeActor, makeTenant } from "@/test-support";
import { listRealms } from "@/lib/realms/registry";
import { allowedOperations, callerOperations, grantableOperations } from "./allowed";
import { changeCeiling, changeChoices } from "./policy";

describe("grantableOperations", () => {
  it("follows the ceiling and the grantor's choices from one call to the next, and never lets one caller's answer into another's", async () => {
    const t = await makeTenant();
    const agent = await makeActor(t, t.users.alice!);
    const bobsAgent = await makeActor(t, t.users.bob!);
    const realms = (await listRealms(t.db, t.tenantId)).filter((r) => r.manifest.namespace === "docs");
    const grantable = async (who: typeof agent) => (await grantableOperations(t.db, who, realms)).get("docs")!;

    expect((await grantable(agent)).has("object.delete")).toBe(true);
    await changeCeiling(t.db, t.users.alice!, { namespace: "docs", changes: [{ operation: "object.delete", enabled: false }] });
    expect((await grantable(agent)).has("object.delete")).toBe(false);
    expect((await grantable(agent)).has("object.get")).toBe(true);
    await changeCeiling(t.db, t.users.alice!, { namespace: "docs", changes: [{ operation: "object.delete", enabled: true }] });
    expect((await grantable(agent)).has("object.delete")).toBe(true);

    // Bob turns an operation off for his own agents: alice's agent still could be granted it.
    await changeChoices(t.db, t.users.bob!, { namespace: "docs", changes: [{ operation: "object.upsert", enabled: false }] });
    expect((await grantable(bobsAgent)).has("object.upsert")).toBe(false);
    expect((await grantable(agent)).has("object.upsert")).toBe(true);
    // A person could be granted everything the realm offers.
    expect((await grantableOperations(t.db, t.users.bob!, realms)).get("docs")!.has("object.upsert")).toBe(true);
  });
});

describe("callerOperations", () => {
  it("answers what allowedOperations and grantableOperations answer, reading the switches once", async () => {
    const t = await makeTenant();
    const agent = await makeActor(t, t.users.alice!);
    await grant(t, t.users.alice!, agent.actorId, "docs", ["provider.about", "object.get"]);
    await changeCeiling(t.db, t.users.alice!, { namespace: "docs", changes: [{ operation: "object.delete", enabled: false }] });
    const realms = (await listRealms(t.db, t.tenantId)).filter((r) => r.manifest.namespace === "docs");
    const counted = countingDb(t.db);
    const both = await callerOperations(counted.db, agent, realms);
    expect(counted.queries()).toBe(2); // the switches (ceiling, choices, closed descriptions) in one, then grants
    expect(both.allowed).toEqual(await allowedOperations(t.db, agent, realms));
    expect(both.grantable).toEqual(await grantableOperations(t.db, agent, realms));
    // object.schema without a grant: describing a realm is open unless its owner closed it.
    expect([...both.allowed.get("docs")!].sort()).toEqual(["object.get", "object.schema", "provider.about"]);
  });
});
