// The memory realm's side of the trust boundary: parseRef (syntax only) and describeRefs (names, with the
// caller's authority, in one query).
import { beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/realms/contract";
import { countingQueries, makeTenant, type TestTenant, thrownCode, userPrincipal } from "@/test-support";
import { adapter } from "./adapter";
import { as, remember } from "./fixtures/items";

let t: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
  other = await makeTenant({ eve: "owner" });
});

describe("memory parseRef", () => {
  it("accepts every ref the adapter mints, naming its kind", async () => {
    const ref = await remember(t, "alice", { text: "Parse me" });
    expect(adapter.parseRef(ref)).toEqual({ kind: "memory.item" });
  });

  it("rejects half-typed refs, unknown kind segments, wrong id prefixes and other namespaces as invalid_ref", () => {
    const id = "mem_aaaaaaaaaaaaaaaaaaaa";
    for (const ref of [
      "memory:i",
      "memory:item",
      "memory:item:",
      "memory:item:mem_",
      "memory:item:mem_aaaaaaaaaaaaaaaaaaa", // one character short
      "memory:item:mem_aaaaaaaaaaaaaaaaaaaaa", // one too many
      `memory:note:${id}`,
      "memory:item:brd_aaaaaaaaaaaaaaaaaaaa",
      `board:item:${id}`,
      `memory:item:${id}:extra`,
      "memory",
      "",
    ]) {
      expect(thrownCode(() => adapter.parseRef(ref)), ref).toBe("invalid_ref");
    }
  });
});

describe("memory describeRefs", () => {
  it("names what the caller may see in one query, and answers null for others' unshared, unknown and malformed refs", async () => {
    const mine = [
      await remember(t, "alice", { text: "Prefers window seats on long flights", kind: "preference", labels: ["travel"] }),
      await remember(t, "alice", { text: "Office closes at 6pm on Fridays" }),
      await remember(t, "alice", { text: "Pinned fact", kind: "fact", pinned: true }),
    ];
    const shared = await remember(t, "bob", { text: "Bob shares this with alice", shared_with: [t.users.alice!.email] });
    const bobsSecret = await remember(t, "bob", { text: "Bob keeps this to himself" });
    const elsewhere = await remember(other, "eve", { text: "Another tenant's item" });
    const unknown = "memory:item:mem_zzzzzzzzzzzzzzzzzzzz";
    const malformed = ["memory:item:mem_", "memory:i", "board:item:mem_aaaaaaaaaaaaaaaaaaaa", "not a ref"];

    const { got, queries } = await as(t, userPrincipal(t, "alice"), async (raw) => {
      const c = countingQueries(raw);
      const got = await adapter.describeRefs(c.ctx, [...mine, shared, bobsSecret, elsewhere, unknown, ...malformed]);
      return { got, queries: c.queries() };
    });
    expect(queries).toBe(1);
    expect(got[mine[0]!]).toEqual({ kind: "memory.item", label: "Prefers window seats on long flights", summary: "memory item · preference · #travel", lineage: [] });
    expect(got[mine[1]!]).toMatchObject({ kind: "memory.item", label: "Office closes at 6pm on Fridays", lineage: [] });
    expect(got[mine[2]!]?.summary).toContain("pinned");
    expect(got[shared]).toMatchObject({ label: "Bob shares this with alice" });
    for (const ref of [bobsSecret, elsewhere, unknown, ...malformed]) expect(got[ref], ref).toBeNull();
    expect(Object.keys(got).sort()).toEqual([...mine, shared, bobsSecret, elsewhere, unknown, ...malformed].sort());
  });

  it("uses the authority of a delegated actor (its grantor), and runs no query for nothing", async () => {
    const ref = await remember(t, "alice", { text: "Alice's agent may name this" });
    const agent: Principal = { type: "actor", actorId: "act_test", grantorId: t.users.alice!.userId, actorKind: "hosted" };
    expect((await as(t, agent, (ctx) => adapter.describeRefs(ctx, [ref])))[ref]).toMatchObject({ label: "Alice's agent may name this" });
    const bobsAgent: Principal = { type: "actor", actorId: "act_test", grantorId: t.users.bob!.userId, actorKind: "hosted" };
    expect((await as(t, bobsAgent, (ctx) => adapter.describeRefs(ctx, [ref])))[ref]).toBeNull();

    const none = await as(t, userPrincipal(t, "alice"), async (raw) => {
      const c = countingQueries(raw);
      return { got: await adapter.describeRefs(c.ctx, ["memory:oops"]), queries: c.queries() };
    });
    expect(none).toEqual({ got: { "memory:oops": null }, queries: 0 });
  });
});
