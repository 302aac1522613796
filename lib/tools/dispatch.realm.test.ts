// The dispatcher against a small test realm. A kind's declared schemas (create, patch, filter, selector) are
// checked before gate one and before the adapter runs: a call that does not fit is `invalid_input` naming the
// field path, as a payload is. A large result becomes a link that follows the grant it was minted under.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consentRequests } from "@/db/schema";
import { revokeGrant } from "@/lib/authz/grants";
import { AppError } from "@/lib/errors";
import { manifestSchema, type Realm, type RealmAdapter } from "@/lib/realms/contract";
import { call, codeOf, errorOf, grant, makeActor, makeTenant, tenantRealm, type TestTenant } from "@/test-support";
import { dispatch } from "./dispatch";
import { redeemSignedUrl } from "./files";
import { validatorFor } from "./payload";

const ops = ["provider.about", "object.schema", "object.list", "object.search", "object.get", "object.upsert", "object.action.touch"];
const manifest = manifestSchema.parse({
  namespace: "kc",
  realm_type: "native",
  service_card: { title: "Kind checks", purpose: "A realm whose kind declares schemas.", works_with: "Nothing.", touches: ["Items"], operation_labels: Object.fromEntries(ops.map((o) => [o, `Do ${o}`])) },
  kinds: [
    {
      name: "kc.item",
      label: "Item",
      one_liner: "One item.",
      ref_pattern: "kc:item:<id>",
      fields: [
        { name: "title", type: "text", description: "Title.", writable: true },
        { name: "status", type: "text", description: "Status.", writable: true },
      ],
      operations: ["object.list", "object.search", "object.get", "object.upsert"],
      filters: ["status"],
      schemas: {
        create: { type: "object", required: ["title"], properties: { title: { type: "string", maxLength: 20 }, status: { enum: ["open", "done"] } } },
        patch: { type: "object", properties: { title: { type: "string", maxLength: 20 }, status: { enum: ["open", "done"] } } },
        filter: { type: "object", additionalProperties: false, properties: { status: { enum: ["open", "done"] } } },
        selector: { type: "object", properties: { title: { type: "string", minLength: 3 } } },
      },
    },
  ],
  selectors: [{ kind: "kc.item", by: "title", description: "The item's title." }],
  actions: [{ name: "touch", label: "Touch", description: "Answers nothing.", target_kind: null, payload_schema: { type: "object" }, example: {}, risk: "write", returns: "Nothing." }],
  catalog: { path: "/", label: "Kind checks", description: "Everything.", keywords: [], kinds: ["kc.item"], operations: ["provider.about"], children: [] },
  delivery: { cursors: true, files: false },
});

/** Every adapter call, by method: the checks must stop a bad call before any. */
const calls: string[] = [];
const refuse = () => Promise.reject(new AppError("provider_unavailable", "not in this test"));
const adapter: RealmAdapter = {
  parseRef: (ref) => {
    if (!/^kc:item:[a-z0-9]+$/.test(ref)) throw new AppError("invalid_ref", "not an item ref", { details: { ref } });
    return { kind: "kc.item" };
  },
  describeRefs: async (_ctx, refs) => Object.fromEntries(refs.map((r) => [r, { kind: "kc.item", label: r, lineage: [] }])),
  list: async () => (calls.push("list"), { items: [], next: null }),
  search: async () => (calls.push("search"), { items: [], next: null }),
  get: async (_ctx, { ref }) => (calls.push("get"), ref === "kc:item:big" ? { ref, body: "x".repeat(300 * 1024) } : { ref }),
  upsert: async (_ctx, { ref, fields }) => (calls.push("upsert"), { ref: ref ?? "kc:item:one", created: !ref, object: fields }),
  resolve: async () => (calls.push("resolve"), { ref: "kc:item:one" }),
  // Breaking the contract on purpose: an action that answers nothing is still stored, and replayed, as nothing.
  action: async () => (calls.push("action"), null as never),
  delete: refuse,
  hostFile: refuse,
};
const realm: Realm = { manifest, adapter };

const kc = tenantRealm(realm);
let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
  kc.showTo(t.tenantId);
});
afterAll(() => kc.remove());

/** The invalid_input a call ends with, and whether the adapter was reached. */
async function refused(p: Promise<unknown>) {
  calls.length = 0;
  const e = await errorOf(p);
  expect(e.code).toBe("invalid_input");
  expect(calls).toEqual([]);
  return { message: e.message, paths: (e.details.issues as { path: string }[]).map((i) => i.path) };
}

describe("upsert_object fields against the kind's create and patch schemas", () => {
  it("creating checks the create schema, naming the field", async () => {
    const alice = t.users.alice!;
    expect(await refused(dispatch(call(alice), "upsert_object", { namespace: "kc", kind: "kc.item", fields: { status: "open" } }))).toMatchObject({ paths: ["fields.title"] });
    const long = await refused(dispatch(call(alice), "upsert_object", { namespace: "kc", kind: "kc.item", fields: { title: "x".repeat(21) } }));
    expect(long.paths).toEqual(["fields.title"]);
    expect(long.message).toContain("fields.title");
    expect(await refused(dispatch(call(alice), "upsert_object", { namespace: "kc", kind: "kc.item", fields: { title: "ok", status: "lost" } }))).toMatchObject({ paths: ["fields.status"] });
    calls.length = 0;
    expect(await dispatch(call(alice), "upsert_object", { namespace: "kc", kind: "kc.item", fields: { title: "ok", status: "open" } })).toMatchObject({ created: true });
    expect(calls).toEqual(["upsert"]);
  });

  it("patching (a ref) checks the patch schema: a field may be left out, not set out of bounds", async () => {
    const alice = t.users.alice!;
    calls.length = 0;
    expect(await dispatch(call(alice), "upsert_object", { namespace: "kc", kind: "kc.item", ref: "kc:item:one", fields: { status: "done" } })).toMatchObject({ created: false });
    expect(calls).toEqual(["upsert"]);
    expect(await refused(dispatch(call(alice), "upsert_object", { namespace: "kc", kind: "kc.item", ref: "kc:item:one", fields: { status: "lost" } }))).toMatchObject({ paths: ["fields.status"] });
  });

  it("is checked before gate one: an agent with no grant gets the field, and no consent request is made", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    expect(await refused(dispatch(call(agent), "upsert_object", { namespace: "kc", kind: "kc.item", fields: {} }))).toMatchObject({ paths: ["fields.title"] });
    expect(await t.db.select().from(consentRequests).where(and(eq(consentRequests.tenantId, t.tenantId), eq(consentRequests.actorId, agent.actorId)))).toEqual([]);
  });
});

describe("filters and selectors against the kind's schemas", () => {
  it("list_objects and search_objects check the filter", async () => {
    const alice = t.users.alice!;
    expect(await refused(dispatch(call(alice), "list_objects", { namespace: "kc", kind: "kc.item", filter: { status: "lost" } }))).toMatchObject({ paths: ["filter.status"] });
    expect(await refused(dispatch(call(alice), "list_objects", { namespace: "kc", kind: "kc.item", filter: { colour: "red" } }))).toMatchObject({ paths: ["filter.colour"] });
    expect(await refused(dispatch(call(alice), "search_objects", { namespace: "kc", kind: "kc.item", query: "x", filter: { status: 3 } }))).toMatchObject({ paths: ["filter.status"] });
    calls.length = 0;
    await dispatch(call(alice), "list_objects", { namespace: "kc", kind: "kc.item", filter: { status: "open" } });
    await dispatch(call(alice), "search_objects", { namespace: "kc", query: "x", filter: { anything: "goes without a kind" } });
    expect(calls).toEqual(["list", "search"]);
  });

  it("get_object checks the selector", async () => {
    const alice = t.users.alice!;
    expect(await refused(dispatch(call(alice), "get_object", { namespace: "kc", kind: "kc.item", selector: { title: "ab" } }))).toMatchObject({ paths: ["selector.title"] });
    calls.length = 0;
    expect(await dispatch(call(alice), "get_object", { namespace: "kc", kind: "kc.item", selector: { title: "abc" } })).toEqual({ ref: "kc:item:one" });
    expect(calls).toEqual(["resolve", "get"]);
  });
});

describe("validators and replays", () => {
  it("compiles a schema object once", () => {
    const schema = manifest.kinds[0]!.schemas!.filter!;
    expect(validatorFor(schema)).toBe(validatorFor(schema));
    expect(validatorFor({ ...schema })).not.toBe(validatorFor(schema));
  });

  it("an idempotent call that answered nothing replays nothing, once", async () => {
    const alice = t.users.alice!;
    calls.length = 0;
    const ask = { namespace: "kc", action: "touch", payload: {}, idempotency_key: "touch-once-0001" };
    expect(await dispatch(call(alice), "object_action", ask)).toBeNull();
    expect(await dispatch(call(alice), "object_action", ask)).toBeNull();
    expect(calls).toEqual(["action"]);
    expect((await errorOf(dispatch(call(alice), "object_action", { ...ask, payload: { other: 1 } }))).code).toBe("idempotency_conflict");
  });
});

describe("a large result under a ref-scoped grant", () => {
  it("comes as a link (naming no object) that the agent redeems until its grant is revoked", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const g = await grant(t, alice, agent.actorId, "kc", ["object.get"], { scope: { refs: ["kc:item:big"] } });
    const got = (await dispatch(call(agent), "get_object", { ref: "kc:item:big" })) as { truncated: boolean; result: { url: string } };
    expect(got.truncated).toBe(true);
    expect(new URL(got.result.url).searchParams.has("ref")).toBe(false);
    expect((await redeemSignedUrl(t.db, got.result.url)).bytes.byteLength).toBeGreaterThan(300 * 1024);
    await revokeGrant(t.db, call(alice), g.id, "done");
    expect(await codeOf(redeemSignedUrl(t.db, got.result.url))).toBe("forbidden");
  });
});
