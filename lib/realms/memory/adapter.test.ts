import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { memoryItems } from "@/db/schema/memory";
import { searchCapabilities } from "@/lib/catalog/search";
import { AppError } from "@/lib/errors";
import { validatePayload } from "@/lib/tools/payload";
import { manifestSchema, operationKeysOf, type CursorState, type LeanItem, type Principal } from "@/lib/realms/contract";
import { codeOf, makeTenant, seedDemoTwice, type TestTenant, userPrincipal } from "@/test-support";
import { adapter } from "./adapter";
import { as, remember } from "./fixtures/items";
import { seedDemo } from "./demo";
import { manifest } from "./manifest";

let t: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
  other = await makeTenant({ eve: "owner" });
});

const user = userPrincipal;

const action = (name: string) => manifest.actions.find((a) => a.name === name)!;

describe("memory manifest", () => {
  it("parses, labels every operation and declares strict action payloads", () => {
    expect(() => manifestSchema.parse(manifest)).not.toThrow();
    for (const key of operationKeysOf(manifest)) expect(manifest.service_card.operation_labels[key], key).toBeTruthy();
    for (const a of manifest.actions) expect(a.payload_schema).toMatchObject({ type: "object", additionalProperties: false });
    expect(manifest.actions.find((a) => a.name === "forget")?.risk).toBe("destructive");
    expect(validatePayload(action("pin").payload_schema, {}, "pin")).toEqual({ pinned: true });
    expect(() => validatePayload(action("pin").payload_schema, { pinned: "yes" }, "pin")).toThrow(AppError);
    expect(() => validatePayload(action("forget").payload_schema, { why: "x" }, "forget")).toThrow(AppError);
    expect(manifest.selectors.map((s) => s.by).sort()).toEqual(["label", "text"]);
  });
});

describe("memory capability catalog", () => {
  it.each([
    ["remember that I prefer tea", "/remember"],
    ["what do I know about X", "/recall"],
    ["tag a memory with a label", "/organize"],
    ["pin that memory", "/organize/pin"],
    ["forget what I told you", "/forget"],
  ])("sends %j to %s", (query, path) => {
    expect(searchCapabilities([manifest], query, { limit: 1 })[0]?.catalog_path).toBe(path);
  });
});

describe("memory items", () => {
  it("remembers, reads back, finds by words and labels, and edits labels with add/remove", async () => {
    const alice = user(t, "alice");
    const ref = await remember(t, "alice", { text: "Prefers oolong tea in the afternoon", kind: "Preference", labels: ["Food", "drinks"], origin: "chat" });
    expect(ref).toMatch(/^memory:item:mem_[0-9a-z]{20}$/);

    const got = await as(t, alice, (ctx) => adapter.get(ctx, { ref, full: false }));
    expect(got).toMatchObject({ ref, text: "Prefers oolong tea in the afternoon", kind: "preference", labels: ["food", "drinks"], origin: "chat", pinned: false, owner: t.users.alice!.email });

    const found = await as(t, alice, (ctx) => adapter.search(ctx, { kind: null, query: "OOLONG afternoon", filter: {}, after: null, limit: 10 }));
    expect(found.items.map((i) => i.ref)).toEqual([ref]);
    const byLabel = await as(t, alice, (ctx) => adapter.search(ctx, { kind: "memory.item", query: "drinks", filter: {}, after: null, limit: 10 }));
    expect(byLabel.items.map((i) => i.ref)).toContain(ref);
    const noMatch = await as(t, alice, (ctx) => adapter.search(ctx, { kind: null, query: "oolong coffee", filter: {}, after: null, limit: 10 }));
    expect(noMatch.items).toEqual([]);

    const patched = await as(t, alice, (ctx) => adapter.upsert(ctx, { kind: "memory.item", ref, fields: { labels: { add: ["tea"], remove: ["drinks"] } } }));
    expect(patched).toMatchObject({ ref, created: false, object: { labels: ["food", "tea"], text: "Prefers oolong tea in the afternoon" } });

    const listed = await as(t, alice, (ctx) => adapter.list(ctx, { kind: "memory.item", filter: { labels: ["tea"], kind: "preference" }, after: null, limit: 10 }));
    expect(listed.items).toEqual([expect.objectContaining({ ref, kind: "memory.item", label: "Prefers oolong tea in the afternoon" })]);
    const replaced = await as(t, alice, (ctx) => adapter.upsert(ctx, { kind: "memory.item", ref, fields: { labels: ["x"] } }));
    expect(replaced.object.labels).toEqual(["x"]);
  });

  it("rejects bad fields and filters as invalid_input", async () => {
    const alice = user(t, "alice");
    expect(await codeOf(as(t, alice, (ctx) => adapter.upsert(ctx, { kind: "memory.item", ref: null, fields: { labels: ["a"] } })))).toBe("invalid_input");
    expect(await codeOf(as(t, alice, (ctx) => adapter.upsert(ctx, { kind: "memory.item", ref: null, fields: { text: "x", colour: "red" } })))).toBe("invalid_input");
    expect(await codeOf(as(t, alice, (ctx) => adapter.list(ctx, { kind: "memory.item", filter: { owner: "me" }, after: null, limit: 10 })))).toBe("invalid_input");
    expect(await codeOf(as(t, alice, (ctx) => adapter.list(ctx, { kind: "memory.note", filter: {}, after: null, limit: 10 })))).toBe("invalid_input");
    expect(await codeOf(as(t, alice, (ctx) => adapter.hostFile(ctx, { name: "a.txt", contentType: "text/plain", bytes: new Uint8Array(1) })))).toBe("invalid_input");
  });

  it("pages through every item once, pinned first then newest, across cursors", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const alice = user(tt, "alice");
    const made: string[] = [];
    // Several items in one transaction share created_at: the id tie-break must keep them apart.
    await as(tt, alice, async (ctx) => {
      for (let i = 0; i < 5; i++) made.push((await adapter.upsert(ctx, { kind: "memory.item", ref: null, fields: { text: `batch ${i}` } })).ref);
    });
    for (let i = 0; i < 3; i++) made.push(await remember(tt, "alice", { text: `single ${i}`, pinned: i === 1 }));

    const seen: string[] = [];
    let after: CursorState | null = null;
    let pages = 0;
    do {
      const cursor: CursorState | null = after;
      const res: { items: LeanItem[]; next: CursorState | null } = await as(tt, alice, (ctx) => adapter.list(ctx, { kind: "memory.item", filter: {}, after: cursor, limit: 3 }));
      expect(res.items.length).toBeLessThanOrEqual(3);
      seen.push(...res.items.map((i) => i.ref));
      after = res.next;
      pages++;
    } while (after && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...made].sort());
    expect(seen[0]).toBe(made[6]); // the pinned one
    expect(seen[1]).toBe(made[7]); // then the newest

    const pinnedOnly = await as(tt, alice, (ctx) => adapter.list(ctx, { kind: "memory.item", filter: { pinned: "true" }, after: null, limit: 10 }));
    expect(pinnedOnly.items.map((i) => i.ref)).toEqual([made[6]]);
    expect(await codeOf(as(tt, alice, (ctx) => adapter.list(ctx, { kind: "memory.item", filter: {}, after: { k: "board" }, limit: 3 })))).toBe("invalid_cursor");
  });

  it("pins and forgets through actions", async () => {
    const alice = user(t, "alice");
    const ref = await remember(t, "alice", { text: "Pin me" });
    const pinned = await as(t, alice, (ctx) => adapter.action(ctx, { action: action("pin"), ref, payload: {} }));
    expect(pinned).toMatchObject({ ref, pinned: true });
    const unpinned = await as(t, alice, (ctx) => adapter.action(ctx, { action: action("pin"), ref, payload: { pinned: false } }));
    expect(unpinned).toMatchObject({ pinned: false });

    const forgotten = await as(t, alice, (ctx) => adapter.action(ctx, { action: action("forget"), ref, payload: { reason: "done" } }));
    expect(forgotten).toEqual({ ref, forgotten: true, reason: "done" });
    expect(await codeOf(as(t, alice, (ctx) => adapter.get(ctx, { ref, full: false })))).toBe("not_found");
  });

  it("resolves by label or text, with choices when several match and not_found when none", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const alice = user(tt, "alice");
    const tea = await remember(tt, "alice", { text: "Likes tea", labels: ["drinks"] });
    const coffee = await remember(tt, "alice", { text: "Dislikes coffee", labels: ["drinks"] });
    expect(await as(tt, alice, (ctx) => adapter.resolve(ctx, { kind: "memory.item", selector: { text: "tea" } }))).toEqual({ ref: tea });
    const several = await as(tt, alice, (ctx) => adapter.resolve(ctx, { kind: "memory.item", selector: { label: "Drinks" } }));
    expect("choices" in several && several.choices.map((c) => c.ref).sort()).toEqual([tea, coffee].sort());
    expect(await codeOf(as(tt, alice, (ctx) => adapter.resolve(ctx, { kind: "memory.item", selector: { label: "none" } })))).toBe("not_found");
    expect(await codeOf(as(tt, alice, (ctx) => adapter.resolve(ctx, { kind: "memory.item", selector: { colour: "red" } })))).toBe("invalid_input");
  });
});

describe("memory ACL", () => {
  it("hides alice's unshared item from bob, and from other tenants, as not_found", async () => {
    const ref = await remember(t, "alice", { text: "Alice's secret plan" });
    for (const [tt, who] of [[t, "bob"], [other, "eve"]] as const) {
      const p = user(tt, who);
      expect(await codeOf(as(tt, p, (ctx) => adapter.get(ctx, { ref, full: false })))).toBe("not_found");
      expect(await codeOf(as(tt, p, (ctx) => adapter.upsert(ctx, { kind: "memory.item", ref, fields: { text: "mine now" } })))).toBe("not_found");
      expect(await codeOf(as(tt, p, (ctx) => adapter.delete(ctx, { ref })))).toBe("not_found");
      const found = await as(tt, p, (ctx) => adapter.search(ctx, { kind: null, query: "secret plan", filter: {}, after: null, limit: 10 }));
      expect(found.items).toEqual([]);
    }
  });

  it("lets bob (and his agents) read and edit a shared item but not delete, forget or re-share it", async () => {
    const ref = await remember(t, "alice", { text: "Team offsite is in Lisbon", shared_with: [t.users.bob!.email.toUpperCase()] });
    const bob = user(t, "bob");
    const bobsAgent: Principal = { type: "actor", actorId: "act_test", grantorId: t.users.bob!.userId, actorKind: "hosted" };
    for (const p of [bob, bobsAgent]) {
      expect(await as(t, p, (ctx) => adapter.get(ctx, { ref, full: false }))).toMatchObject({ text: "Team offsite is in Lisbon", shared_with: [t.users.bob!.email] });
    }
    const edited = await as(t, bobsAgent, (ctx) => adapter.upsert(ctx, { kind: "memory.item", ref, fields: { labels: { add: ["travel"] } } }));
    expect(edited.object.labels).toEqual(["travel"]);
    expect(await codeOf(as(t, bob, (ctx) => adapter.delete(ctx, { ref })))).toBe("realm_denied");
    expect(await codeOf(as(t, bob, (ctx) => adapter.action(ctx, { action: action("forget"), ref, payload: {} })))).toBe("realm_denied");
    expect(await codeOf(as(t, bob, (ctx) => adapter.upsert(ctx, { kind: "memory.item", ref, fields: { shared_with: { add: [t.users.sam!.email] } } })))).toBe("realm_denied");

    const unshared = await as(t, user(t, "alice"), (ctx) => adapter.upsert(ctx, { kind: "memory.item", ref, fields: { shared_with: { remove: [t.users.bob!.userId] } } }));
    expect(unshared.object.shared_with).toEqual([]);
    expect(await codeOf(as(t, bob, (ctx) => adapter.get(ctx, { ref, full: false })))).toBe("not_found");
    expect(await as(t, user(t, "alice"), (ctx) => adapter.delete(ctx, { ref }))).toEqual({ ref, deleted: true });
  });

  it("shares only with members of the tenant", async () => {
    const code = await codeOf(remember(t, "alice", { text: "x", shared_with: [other.users.eve!.email] }));
    expect(code).toBe("invalid_input");
  });

  it("answers malformed refs with invalid_ref", async () => {
    const alice = user(t, "alice");
    for (const ref of ["memory:item:nope", "memory:note:mem_aaaaaaaaaaaaaaaaaaaa", "memory:item:brd_aaaaaaaaaaaaaaaaaaaa", "board:item:mem_aaaaaaaaaaaaaaaaaaaa", "memory:item"]) {
      expect(await codeOf(as(t, alice, (ctx) => adapter.get(ctx, { ref, full: false }))), ref).toBe("invalid_ref");
    }
  });
});

describe("memory demo", () => {
  it("seeds four items for alice and adds nothing when run again", async () => {
    const tt = await makeTenant();
    await seedDemoTwice(seedDemo, tt);
    const db = tt.db;
    const rows = await db.select().from(memoryItems).where(and(eq(memoryItems.tenantId, tt.tenantId), eq(memoryItems.ownerId, tt.users.alice!.userId)));
    expect(rows).toHaveLength(4);
    expect(rows.map((r) => r.kind).sort()).toEqual(["fact", "note", "preference", "preference"]);
    expect(rows.every((r) => r.labels.length > 0)).toBe(true);
  });
});
