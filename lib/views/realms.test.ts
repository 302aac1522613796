import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAccounts } from "@/db/schema";
import { countingDb, makeTenant, type TestTenant } from "@/test-support";
import { newId } from "@/lib/ids";
import { changeCeiling, changeChoices } from "@/lib/authz/policy";
import { AppError } from "@/lib/errors";
import { manifestSchema, type Realm, type RealmAdapter } from "@/lib/realms/contract";
import { tenantRealmSources, type TenantRealmSource } from "@/lib/realms/registry";
import { operationWords, realmCards, realmDetail } from "./realms";

/** An imported-API-sized realm (1,200 actions), visible only to the tenants this test creates. */
function bigRealm(actions: number): Realm {
  const labels: Record<string, string> = {
    "provider.about": "About Big API",
    "object.schema": "Browse Big API's capabilities",
    "object.list": "List records",
    "object.get": "Read a record",
  };
  const list = Array.from({ length: actions }, (_, i) => {
    const name = `op_${String(i).padStart(4, "0")}`;
    labels[`object.action.${name}`] = `Operation number ${i}`;
    return {
      name,
      label: `Operation ${i}`,
      description: `Does thing ${i}.`,
      target_kind: null,
      payload_schema: { type: "object" },
      example: {},
      risk: i % 3 === 0 ? "read" : i % 3 === 1 ? "write" : "destructive",
      claims: i === 1 ? ["big:admin"] : [],
      returns: "Something.",
    };
  });
  const manifest = manifestSchema.parse({
    namespace: "bigapi",
    realm_type: "openapi",
    service_card: { title: "Big API", purpose: "A large imported service.", works_with: "Big API over HTTPS.", touches: ["Records"], operation_labels: labels },
    kinds: [{ name: "bigapi.record", label: "Record", one_liner: "One record.", ref_pattern: "bigapi:record:<id>", fields: [{ name: "id", type: "string", description: "Id." }], operations: ["object.list", "object.get"] }],
    actions: list,
    catalog: { path: "/", label: "Big API", description: "Everything.", keywords: [], kinds: ["bigapi.record"], operations: ["provider.about"], children: [] },
    claims: [{ name: "big:admin", label: "Administer Big API" }],
    delivery: { cursors: true, files: false },
  });
  const refuse = () => Promise.reject(new AppError("provider_unavailable", "not in this test"));
  const adapter: RealmAdapter = { parseRef: () => ({ kind: "bigapi.record" }), describeRefs: refuse, list: refuse, search: refuse, get: refuse, action: refuse, upsert: refuse, delete: refuse, hostFile: refuse, resolve: refuse };
  return { manifest, adapter };
}

const big = bigRealm(1200);
const bigTenants = new Set<string>();
const source: TenantRealmSource = {
  list: async (_db, tenantId) => (bigTenants.has(tenantId) ? [big] : []),
  get: async (_db, tenantId, ns) => (bigTenants.has(tenantId) && ns === "bigapi" ? big : null),
};

let t: TestTenant;
beforeAll(async () => {
  tenantRealmSources.push(source);
  t = await makeTenant();
  bigTenants.add(t.tenantId);
});
afterAll(() => {
  tenantRealmSources.splice(tenantRealmSources.indexOf(source), 1);
});

describe("realm cards (the capability picker grid)", () => {
  it("lists every realm of the workspace with its service card, kinds and counts by risk", async () => {
    const cards = await realmCards(t.db, t.users.bob!);
    const memory = cards.find((c) => c.namespace === "memory")!;
    expect(cards.map((c) => c.namespace)).toEqual(expect.arrayContaining(["memory", "docs", "board", "mail", "bigapi"]));
    expect(memory).toMatchObject({
      title: "Memory",
      realm_type: "native",
      connection: { needed: false },
      kinds: [{ name: "memory.item", label: "Memory item" }],
      operations: { total: 9, by_risk: { read: 5, write: 2, destructive: 2 }, on_for_my_agents: 9, ask_for_my_agents: 0, asking: [], off_by_owner: 0, off_by_me: 0 },
    });
    expect(memory.operation_labels).toContain("Forget an item for good, saying why");
    expect(cards.find((c) => c.namespace === "bigapi")?.operations.total).toBe(1204);
    expect(cards.map((c) => c.title)).toEqual([...cards.map((c) => c.title)].sort((a, b) => a.localeCompare(b)));
  });

  it("counts what the owner turned off and what the user turned off separately", async () => {
    const u = await makeTenant();
    await changeCeiling(u.db, u.users.alice!, { namespace: "memory", changes: [{ operation: "object.delete", enabled: false }] });
    await changeChoices(u.db, u.users.bob!, { namespace: "memory", changes: [{ operation: "object.action.pin", enabled: false }, { operation: "object.delete", enabled: false }] });
    const bob = (await realmCards(u.db, u.users.bob!)).find((c) => c.namespace === "memory")!;
    expect(bob.operations).toMatchObject({ on_for_my_agents: 7, off_by_owner: 1, off_by_me: 1 });
    const alice = (await realmCards(u.db, u.users.alice!)).find((c) => c.namespace === "memory")!;
    expect(alice.operations).toMatchObject({ on_for_my_agents: 8, off_by_owner: 1, off_by_me: 0 });
  });

  it("counts and names what asks each time: a new tenant's destructive operations ask until the owner says otherwise", async () => {
    const u = await makeTenant(undefined, { destructiveDefault: "ask" });
    const memory = async (who: "alice" | "bob") => (await realmCards(u.db, u.users[who]!)).find((c) => c.namespace === "memory")!.operations;
    expect(await memory("bob")).toMatchObject({
      on_for_my_agents: 7,
      ask_for_my_agents: 2,
      asking: ["Delete a remembered item for good", "Forget an item for good, saying why"],
      off_by_owner: 0,
      off_by_me: 0,
    });

    // The owner puts pin on ask and forget on; bob turns delete off for his own agents.
    await changeCeiling(u.db, u.users.alice!, { namespace: "memory", changes: [{ operation: "object.action.pin", mode: "ask" }, { operation: "object.action.forget", mode: "on" }] });
    await changeChoices(u.db, u.users.bob!, { namespace: "memory", changes: [{ operation: "object.delete", mode: "off" }] });
    expect(await memory("bob")).toMatchObject({ on_for_my_agents: 7, ask_for_my_agents: 1, asking: ["Pin or unpin an item"], off_by_owner: 0, off_by_me: 1 });
    expect(await memory("alice")).toMatchObject({ on_for_my_agents: 7, ask_for_my_agents: 2, asking: ["Delete a remembered item for good", "Pin or unpin an item"] });

    // A person's "on" under the owner's ask still asks; their own "ask" under the owner's "on" asks too.
    await changeChoices(u.db, u.users.bob!, { namespace: "memory", changes: [{ operation: "object.action.pin", mode: "on" }, { operation: "object.action.forget", mode: "ask" }] });
    expect(await memory("bob")).toMatchObject({ ask_for_my_agents: 2, asking: ["Pin or unpin an item", "Forget an item for good, saying why"], off_by_me: 1 });
    // The realm page's card counts the same as the grid's.
    expect((await realmDetail(u.db, u.users.bob!, "memory")).card.operations).toEqual(await memory("bob"));
  });

  it("names at most three operations that ask, and counts them all", async () => {
    const u = await makeTenant(undefined, { destructiveDefault: "ask" });
    bigTenants.add(u.tenantId);
    const card = (await realmCards(u.db, u.users.bob!)).find((c) => c.namespace === "bigapi")!;
    // One in three of the 1,200 actions is destructive, so 400 ask; the card names the first three.
    expect(card.operations.ask_for_my_agents).toBe(400);
    expect(card.operations.asking).toEqual(["Operation number 2", "Operation number 5", "Operation number 8"]);
  });

  it("an old tenant (destructive operations start on) asks for nothing until someone sets ask", async () => {
    const u = await makeTenant();
    expect((await realmCards(u.db, u.users.bob!)).every((c) => c.operations.ask_for_my_agents === 0 && c.operations.asking.length === 0)).toBe(true);
  });

  it("says, for a realm that needs an account, whether the reader has one that works", async () => {
    const u = await makeTenant();
    const mail = async (who: "bob" | "alice") => (await realmCards(u.db, u.users[who]!)).find((c) => c.namespace === "mail")?.connection;
    expect((await realmCards(u.db, u.users.bob!)).find((c) => c.namespace === "memory")?.connection).toEqual({ needed: false });
    expect(await mail("bob")).toEqual({ needed: true, status: "not_connected", accounts: 0 });
    const account = (status: "active" | "needs_reconnect" | "revoked", label: string) => ({
      id: newId("acc"),
      tenantId: u.tenantId,
      userId: u.users.bob!.userId,
      provider: "google",
      api: "gmail",
      externalId: newId("acc"),
      label,
      claims: ["gmail:read"],
      scopes: [],
      status,
    });
    await u.db.insert(connectedAccounts).values(account("revoked", "old"));
    expect(await mail("bob")).toMatchObject({ status: "not_connected", accounts: 0 });
    await u.db.insert(connectedAccounts).values(account("needs_reconnect", "work"));
    expect(await mail("bob")).toMatchObject({ status: "needs_reconnect", accounts: 1 });
    await u.db.insert(connectedAccounts).values(account("active", "home"));
    expect(await mail("bob")).toMatchObject({ status: "connected", accounts: 2 });
    expect(await mail("alice")).toMatchObject({ status: "not_connected", accounts: 0 });
    expect((await realmDetail(u.db, u.users.bob!, "mail")).card.connection).toMatchObject({ status: "connected" });
  });

  it("does not show another workspace's imported realms", async () => {
    const other = await makeTenant();
    expect((await realmCards(other.db, other.users.bob!)).map((c) => c.namespace)).not.toContain("bigapi");
  });
});

describe("realm detail (every operation with its modes)", () => {
  it("names each operation in human words with risk, kinds and claims", async () => {
    const d = await realmDetail(t.db, t.users.bob!, "memory");
    const byKey = new Map(d.operations.map((o) => [o.key, o]));
    expect(byKey.get("object.action.forget")).toMatchObject({ label: "Forget an item for good, saying why", risk: "destructive", kinds: ["Memory item"], action: "forget" });
    expect(byKey.get("object.list")).toMatchObject({ label: "List remembered items", risk: "read", kinds: ["Memory item"], action: null, claims: [] });
    expect(byKey.get("provider.about")?.kinds).toEqual([]);
    const bigDetail = await realmDetail(t.db, t.users.bob!, "bigapi");
    expect(bigDetail.operations.find((o) => o.key === "object.action.op_0001")?.claims).toEqual([{ name: "big:admin", label: "Administer Big API" }]);
  });

  it("gives ceiling, choice and effective state, and what the viewer may change", async () => {
    const u = await makeTenant();
    await changeCeiling(u.db, u.users.alice!, { namespace: "memory", changes: [{ operation: "object.upsert", enabled: false }] });
    await changeChoices(u.db, u.users.bob!, { namespace: "memory", changes: [{ operation: "object.get", enabled: false }] });
    const bob = await realmDetail(u.db, u.users.bob!, "memory");
    expect(bob.operations.find((o) => o.key === "object.upsert")).toMatchObject({ ceiling: false, choice: true, effective: false });
    expect(bob.operations.find((o) => o.key === "object.get")).toMatchObject({ ceiling: true, choice: false, effective: false });
    expect(bob.operations.find((o) => o.key === "object.list")).toMatchObject({ ceiling: true, choice: true, effective: true });
    expect(bob.can_change).toEqual({ ceiling: false, choice: true });
    expect((await realmDetail(u.db, u.users.alice!, "memory")).can_change).toEqual({ ceiling: true, choice: true });
    expect((await realmDetail(u.db, u.users.sam!, "memory")).can_change).toEqual({ ceiling: false, choice: false });
  });

  it("carries the owner's mode, the viewer's own and what their agents get, per operation", async () => {
    const u = await makeTenant(undefined, { destructiveDefault: "ask" });
    await changeCeiling(u.db, u.users.alice!, { namespace: "memory", changes: [{ operation: "object.action.pin", mode: "ask" }] });
    await changeChoices(u.db, u.users.bob!, { namespace: "memory", changes: [{ operation: "object.action.pin", mode: "on" }, { operation: "object.delete", mode: "off" }, { operation: "object.upsert", mode: "ask" }] });
    const bob = new Map((await realmDetail(u.db, u.users.bob!, "memory")).operations.map((o) => [o.key, o]));
    // The owner never set forget: a new tenant's destructive operation asks.
    expect(bob.get("object.action.forget")).toMatchObject({ ceiling_mode: "ask", choice_mode: "on", mode: "ask", effective: true });
    // Bob's "on" cannot loosen the owner's ask.
    expect(bob.get("object.action.pin")).toMatchObject({ ceiling_mode: "ask", choice_mode: "on", mode: "ask" });
    expect(bob.get("object.delete")).toMatchObject({ ceiling_mode: "ask", choice_mode: "off", mode: "off", effective: false });
    expect(bob.get("object.upsert")).toMatchObject({ ceiling_mode: "on", choice_mode: "ask", mode: "ask" });
    expect(bob.get("object.get")).toMatchObject({ ceiling_mode: "on", choice_mode: "on", mode: "on" });
    await expect(changeChoices(u.db, u.users.bob!, { namespace: "memory", changes: [{ operation: "object.get", mode: "ask" }] })).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("describes a 1,200-operation realm in as many queries as a small one (no query per operation)", async () => {
    const big = countingDb(t.db);
    const d = await realmDetail(big.db, t.users.bob!, "bigapi");
    expect(d.operations).toHaveLength(1204);
    const small = countingDb(t.db);
    expect((await realmDetail(small.db, t.users.bob!, "memory")).operations.length).toBeLessThan(20);
    expect(small.queries()).toBeGreaterThan(0);
    expect(big.queries()).toBeLessThanOrEqual(small.queries() + 2);
  });

  it("answers not_found naming the realms that exist", async () => {
    await expect(realmDetail(t.db, t.users.bob!, "nope")).rejects.toMatchObject({ code: "not_found", details: { known_namespaces: expect.arrayContaining(["memory"]) } });
  });
});

describe("operation words (agents and consent pages)", () => {
  it("labels and risks for the namespaces asked for only", async () => {
    const words = await operationWords(t.db, t.tenantId, ["memory", "missing"]);
    expect(Object.keys(words)).toEqual(["memory"]);
    expect(words.memory!.operations["object.delete"]).toEqual({ label: "Delete a remembered item for good", risk: "destructive" });
    expect(await operationWords(t.db, t.tenantId, [])).toEqual({});
    expect(Object.keys(await operationWords(t.db, t.tenantId, "all"))).toEqual(expect.arrayContaining(["memory", "bigapi"]));
  });
});
