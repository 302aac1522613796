// The working set's rules as pure functions: planMaterialize (slots evict the least recently used of the slot;
// over the budget, the same slot's least recently used first, then any; a tool that alone would not fit is
// refused and nothing goes), fitting (what a listing holds after the budget was lowered or a slot is over its
// limit) and the catalog proof's numbers.
import { describe, expect, it } from "vitest";
import type { WorkingSetSlot } from "@/db/schema";
import { catalogProof, DEFAULT_CATALOG_BUDGET_BYTES, fitting, planMaterialize, WORKING_SET_LIMITS, type HeldTool } from "./budget";

const T0 = new Date("2026-12-01T10:00:00Z").getTime();
const at = (s: number) => new Date(T0 + s * 1000);
const tool = (name: string, slot: WorkingSetSlot, bytes: number, usedAt: number): HeldTool => ({ name, namespace: "ns", operation: `object.action.${name}`, slot, bytes, lastUsedAt: at(usedAt) });
const incoming = (name: string, slot: WorkingSetSlot, bytes: number) => ({ name, namespace: "ns", operation: `object.action.${name}`, slot, bytes });
const names = (ts: { name: string }[]) => ts.map((t) => t.name);

describe("planMaterialize", () => {
  it("has the limits the issue names: 3 reads, 1 write-or-destructive, 16 KB by default", () => {
    expect(WORKING_SET_LIMITS).toEqual({ read: 3, write: 1 });
    expect(DEFAULT_CATALOG_BUDGET_BYTES).toBe(16384);
  });

  it("adds to a set with room, evicting nothing", () => {
    const held = [tool("r1", "read", 100, 1), tool("w1", "write", 100, 2)];
    const plan = planMaterialize(held, incoming("r2", "read", 100), 1000, 16384);
    expect(plan).toEqual({ outcome: "added", evicted: [], kept: expect.any(Array) });
    if (plan.outcome !== "added") throw new Error("expected added");
    expect(names(plan.kept).sort()).toEqual(["r1", "w1"]);
  });

  it("a fourth read evicts the least recently used read (slot_full), whatever order the set is given in, and leaves the write", () => {
    const held = [tool("r_new", "read", 100, 30), tool("w_old", "write", 100, 0), tool("r_old", "read", 100, 10), tool("r_mid", "read", 100, 20)];
    const plan = planMaterialize(held, incoming("r4", "read", 100), 1000, 16384);
    if (plan.outcome !== "added") throw new Error("expected added");
    expect(plan.evicted).toEqual([{ name: "r_old", namespace: "ns", operation: "object.action.r_old", reason: "slot_full" }]);
    expect(names(plan.kept).sort()).toEqual(["r_mid", "r_new", "w_old"]);
  });

  it("a second write replaces the first (slot_full), leaving the reads", () => {
    const held = [tool("r1", "read", 100, 0), tool("w1", "write", 100, 50)];
    const plan = planMaterialize(held, incoming("w2", "write", 100), 1000, 16384);
    if (plan.outcome !== "added") throw new Error("expected added");
    expect(plan.evicted).toEqual([expect.objectContaining({ name: "w1", reason: "slot_full" })]);
    expect(names(plan.kept)).toEqual(["r1"]);
  });

  it("breaks a tie in last use by name, so the plan is deterministic", () => {
    const held = [tool("rb", "read", 100, 5), tool("ra", "read", 100, 5), tool("rc", "read", 100, 5)];
    const plan = planMaterialize(held, incoming("rd", "read", 100), 1000, 16384);
    if (plan.outcome !== "added") throw new Error("expected added");
    expect(names(plan.evicted)).toEqual(["ra"]);
  });

  it("over the budget evicts the same slot's least recently used first, even when a tool of the other slot is older", () => {
    // generic 1000 + held 1000 + incoming 500 = 2500 > 2000: both reads go (oldest first); the older write stays.
    const held = [tool("w_oldest", "write", 400, 0), tool("r1", "read", 300, 10), tool("r2", "read", 300, 20)];
    const plan = planMaterialize(held, incoming("r3", "read", 500), 1000, 2000);
    if (plan.outcome !== "added") throw new Error("expected added");
    expect(plan.evicted).toEqual([expect.objectContaining({ name: "r1", reason: "over_budget" }), expect.objectContaining({ name: "r2", reason: "over_budget" })]);
    expect(names(plan.kept)).toEqual(["w_oldest"]);
  });

  it("stops evicting as soon as it fits", () => {
    const held = [tool("r1", "read", 300, 10), tool("r2", "read", 300, 20)];
    // 1000 + 600 + 200 = 1800 > 1700: r1 goes, 1500 fits.
    const plan = planMaterialize(held, incoming("r3", "read", 200), 1000, 1700);
    if (plan.outcome !== "added") throw new Error("expected added");
    expect(names(plan.evicted)).toEqual(["r1"]);
    expect(names(plan.kept)).toEqual(["r2"]);
  });

  it("over the budget with no tool of the same slot left, evicts the least recently used of any slot", () => {
    const held = [tool("r2", "read", 400, 20), tool("r1", "read", 400, 10), tool("r3", "read", 400, 30)];
    // 1000 + 1200 + 600 = 2800 > 2000: no write held, so reads go oldest first until 2000 fits (r1, r2).
    const plan = planMaterialize(held, incoming("w", "write", 600), 1000, 2000);
    if (plan.outcome !== "added") throw new Error("expected added");
    expect(plan.evicted).toEqual([expect.objectContaining({ name: "r1", reason: "over_budget" }), expect.objectContaining({ name: "r2", reason: "over_budget" })]);
    expect(names(plan.kept)).toEqual(["r3"]);
  });

  it("evicts for the slot first, then for the budget: a new write replaces the write, then reads go", () => {
    const held = [tool("w1", "write", 100, 50), tool("r1", "read", 500, 10), tool("r2", "read", 500, 20)];
    // Slot: w1 goes. Then 1000 + 1000 + 900 = 2900 > 2500: r1 goes (no write left), 2400 fits.
    const plan = planMaterialize(held, incoming("w2", "write", 900), 1000, 2500);
    if (plan.outcome !== "added") throw new Error("expected added");
    expect(plan.evicted.map((e) => [e.name, e.reason])).toEqual([
      ["w1", "slot_full"],
      ["r1", "over_budget"],
    ]);
    expect(names(plan.kept)).toEqual(["r2"]);
  });

  it("fits a tool that brings the catalog to exactly the budget", () => {
    const plan = planMaterialize([tool("r1", "read", 500, 1)], incoming("r2", "read", 500), 1000, 2000);
    expect(plan).toMatchObject({ outcome: "added", evicted: [] });
  });

  it("refuses a tool that alone would exceed the budget, evicting nothing and leaving the set as given", () => {
    const held = [tool("w1", "write", 100, 0), tool("r1", "read", 100, 10), tool("r2", "read", 100, 20), tool("r3", "read", 100, 30)];
    const copy = structuredClone(held);
    const plan = planMaterialize(held, incoming("big", "read", 1001), 1000, 2000);
    expect(plan).toEqual({ outcome: "refused", reason: "exceeds_budget", catalogBytesWithIt: 2001 });
    expect("evicted" in plan).toBe(false);
    expect(held).toEqual(copy);
  });

  it("refuses even into an empty set, and a set over its limits is only read, never changed in place", () => {
    expect(planMaterialize([], incoming("big", "write", 20_000), 1000, 16384)).toEqual({ outcome: "refused", reason: "exceeds_budget", catalogBytesWithIt: 21_000 });
    const held = [tool("r1", "read", 100, 1), tool("r2", "read", 100, 2), tool("r3", "read", 100, 3)];
    const before = [...held];
    const plan = planMaterialize(held, incoming("r4", "read", 100), 1000, 16384);
    if (plan.outcome !== "added") throw new Error("expected added");
    expect(held).toEqual(before);
    expect(names(plan.kept)).toEqual(["r2", "r3"]);
  });
});

describe("fitting", () => {
  it("lists everything that fits, most recently used first", () => {
    const held = [tool("r1", "read", 100, 10), tool("w1", "write", 100, 30), tool("r2", "read", 100, 20)];
    const { fits, left } = fitting(held, 1000, 16384);
    expect(names(fits)).toEqual(["w1", "r2", "r1"]);
    expect(left).toEqual([]);
  });

  it("a budget lowered since leaves out the least recently used", () => {
    const held = [tool("r1", "read", 500, 10), tool("r2", "read", 500, 20), tool("r3", "read", 500, 30)];
    // 1000 + 500 + 500 = 2000 fits 2100; the third does not.
    const { fits, left } = fitting(held, 1000, 2100);
    expect(names(fits)).toEqual(["r3", "r2"]);
    expect(names(left)).toEqual(["r1"]);
  });

  it("a budget below the generic tools leaves out every exact tool", () => {
    const held = [tool("r1", "read", 1, 10), tool("w1", "write", 1, 20)];
    const { fits, left } = fitting(held, 9000, 8192);
    expect(fits).toEqual([]);
    expect(names(left)).toEqual(["w1", "r1"]);
  });

  it("a tool too big for what is left is left out; older smaller ones that still fit are listed", () => {
    const held = [tool("r_big", "read", 900, 30), tool("r1", "read", 300, 20), tool("w1", "write", 300, 10)];
    const { fits, left } = fitting(held, 1000, 1700);
    expect(names(fits)).toEqual(["r1", "w1"]);
    expect(names(left)).toEqual(["r_big"]);
  });

  it("slots over their limit keep the 3 most recent reads and the most recent write", () => {
    const held = [
      tool("r1", "read", 100, 1),
      tool("r2", "read", 100, 2),
      tool("r3", "read", 100, 3),
      tool("r4", "read", 100, 4),
      tool("r5", "read", 100, 5),
      tool("w1", "write", 100, 6),
      tool("w2", "write", 100, 0),
    ];
    const { fits, left } = fitting(held, 1000, 16384);
    expect(names(fits)).toEqual(["w1", "r5", "r4", "r3"]);
    expect(names(left)).toEqual(["r2", "r1", "w2"]);
  });

  it("keeps the rows' own objects (it is generic over what the caller holds)", () => {
    const held = [{ ...tool("r1", "read", 100, 1), extra: 1 }];
    expect(fitting(held, 0, 16384).fits[0]).toBe(held[0]);
  });
});

describe("catalogProof", () => {
  const generic = [
    { name: "provider_about", bytes: 900 },
    { name: "object_schema", bytes: 1500 },
    { name: "get_object", bytes: 700 },
    { name: "list_objects", bytes: 700 },
  ];

  it("sums the generic tools and the working set, counts reads and writes, and lists the tools in order", () => {
    const exact = [incoming("r1", "read", 400), incoming("r2", "read", 1200), incoming("w1", "write", 650)];
    const p = catalogProof(generic, exact, 16384);
    expect(p).toMatchObject({ budget_bytes: 16384, generic_bytes: 3800, working_set_bytes: 2250, catalog_bytes: 6050, reads: 2, writes: 1, limits: { reads: 3, writes: 1 } });
    expect(p.tools).toEqual([
      { name: "provider_about", bytes: 900 },
      { name: "object_schema", bytes: 1500 },
      { name: "get_object", bytes: 700 },
      { name: "list_objects", bytes: 700 },
      { name: "r1", bytes: 400, exact: { namespace: "ns", operation: "object.action.r1", slot: "read" } },
      { name: "r2", bytes: 1200, exact: { namespace: "ns", operation: "object.action.r2", slot: "read" } },
      { name: "w1", bytes: 650, exact: { namespace: "ns", operation: "object.action.w1", slot: "write" } },
    ]);
    expect(p.catalog_bytes).toBe(p.tools.reduce((n, t) => n + t.bytes, 0));
  });

  it("names the three largest tools of either kind, largest first, ties by name", () => {
    const exact = [incoming("r2", "read", 1500), incoming("w1", "write", 2000)];
    const p = catalogProof(generic, exact, 16384);
    expect(p.largest).toEqual([
      { name: "w1", bytes: 2000 },
      { name: "object_schema", bytes: 1500 },
      { name: "r2", bytes: 1500 },
    ]);
    // Ties among the rest: by name.
    expect(catalogProof(generic, [], 16384).largest).toEqual([
      { name: "object_schema", bytes: 1500 },
      { name: "provider_about", bytes: 900 },
      { name: "get_object", bytes: 700 },
    ]);
  });

  it("with no working set, is the generic tools alone", () => {
    const p = catalogProof(generic, [], 8192);
    expect(p).toMatchObject({ budget_bytes: 8192, catalog_bytes: 3800, generic_bytes: 3800, working_set_bytes: 0, reads: 0, writes: 0 });
    expect(p.tools.every((t) => !("exact" in t))).toBe(true);
  });

  it("with fewer than three tools, names them all", () => {
    expect(catalogProof([{ name: "a", bytes: 1 }], [], 16384).largest).toEqual([{ name: "a", bytes: 1 }]);
  });
});
