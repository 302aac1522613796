import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { boardCards, boardColumns, boards } from "@/db/schema/board";
import { searchCapabilities } from "@/lib/catalog/search";
import { AppError } from "@/lib/errors";
import { validatePayload } from "@/lib/tools/payload";
import { manifestSchema, operationKeysOf, type CursorState, type LeanItem, type Principal } from "@/lib/realms/contract";
import { codeOf, errorOf, makeTenant, seedDemoTwice, type TestTenant, userPrincipal } from "@/test-support";
import { adapter } from "./adapter";
import { seedDemo } from "./demo";
import { action, as, makeBoard, upsert } from "./fixtures/boards";
import { manifest } from "./manifest";

let t: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
  other = await makeTenant({ eve: "owner" });
});

const user = userPrincipal;

async function listAll(tt: TestTenant, who: string, kind: string, filter: Record<string, string | boolean>, limit: number): Promise<{ refs: string[]; pages: number }> {
  const refs: string[] = [];
  let after: CursorState | null = null;
  let pages = 0;
  do {
    const cursor: CursorState | null = after;
    const res: { items: LeanItem[]; next: CursorState | null } = await as(tt, user(tt, who), (ctx) => adapter.list(ctx, { kind, filter, after: cursor, limit }));
    expect(res.items.length).toBeLessThanOrEqual(limit);
    refs.push(...res.items.map((i) => i.ref));
    after = res.next;
    pages++;
  } while (after && pages < 20);
  return { refs, pages };
}

const cardOrder = async (tt: TestTenant, column: string) =>
  (await as(tt, user(tt, "alice"), (ctx) => adapter.get(ctx, { ref: column, full: true }))).cards as { ref: string; position: number }[];

describe("board manifest", () => {
  it("parses, labels every operation and declares strict action payloads", () => {
    expect(() => manifestSchema.parse(manifest)).not.toThrow();
    for (const key of operationKeysOf(manifest)) expect(manifest.service_card.operation_labels[key], key).toBeTruthy();
    for (const a of manifest.actions) expect(a.payload_schema).toMatchObject({ type: "object", additionalProperties: false });
    const move = action("move_card").payload_schema;
    expect(validatePayload(move, { column: "Done", position: 0 }, "move_card")).toEqual({ column: "Done", position: 0 });
    for (const bad of [{}, { column: "Done", colour: "red" }, { column: "Done", position: -1 }, { column: "Done", position: 1.5 }]) {
      expect(() => validatePayload(move, bad, "move_card"), JSON.stringify(bad)).toThrow(AppError);
    }
    expect(validatePayload(action("archive").payload_schema, {}, "archive")).toEqual({ archived: true });
  });
});

describe("board capability catalog", () => {
  it.each([
    ["move a card to done", "/cards/move"],
    ["assign the card to bob", "/cards/assign"],
    ["archive a finished card", "/cards/archive"],
    ["add a task to the launch board", "/cards/edit"],
    ["find cards assigned to me", "/cards"],
    ["add a column", "/boards/columns/edit"],
    ["share board with a colleague", "/boards/edit"],
    ["delete a card", "/delete"],
  ])("sends %j to %s", (query, path) => {
    expect(searchCapabilities([manifest], query, { limit: 1 })[0]?.catalog_path).toBe(path);
  });
});

describe("boards, columns and cards", () => {
  it("creates a board with ordered columns and cards, and reads them back", async () => {
    const { board, cols } = await makeBoard(t, "alice", "Website relaunch");
    const backlog = (await upsert(t, "alice", "board.column", { board: "Website relaunch", title: "Backlog", position: 0 })).ref;
    const a = await upsert(t, "alice", "board.card", { board, column: "to do", title: "Draft copy", description: "Hero and pricing", assignees: [t.users.bob!.email] });
    expect(a).toMatchObject({ created: true, object: { title: "Draft copy", column: cols["To do"], column_title: "To do", board, position: 0, assignees: [t.users.bob!.email], archived: false } });
    await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "Pick photos", position: 0 });

    const got = await as(t, user(t, "alice"), (ctx) => adapter.get(ctx, { ref: board, full: true }));
    expect(got).toMatchObject({ title: "Website relaunch", owner: t.users.alice!.email });
    const columns = got.columns as { ref: string; title: string; position: number; card_count: number; cards: { title: string }[] }[];
    expect(columns.map((c) => [c.title, c.position, c.card_count])).toEqual([["Backlog", 0, 0], ["To do", 1, 2], ["Doing", 2, 0], ["Done", 3, 0]]);
    expect(columns[1]!.cards.map((c) => c.title)).toEqual(["Pick photos", "Draft copy"]);
    expect(columns[0]!.ref).toBe(backlog);

    const compact = await as(t, user(t, "alice"), (ctx) => adapter.get(ctx, { ref: board, full: false }));
    expect((compact.columns as Record<string, unknown>[])[1]).not.toHaveProperty("cards");
  });

  it("lists cards by board, column, assignee and archive state, and searches them by words", async () => {
    const { board, cols } = await makeBoard(t, "alice", "Filters board");
    const mine = (await upsert(t, "alice", "board.card", { column: cols["Doing"]!, title: "Refactor billing", assignees: [t.users.bob!.userId] })).ref;
    const theirs = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "Billing emails", description: "Invoice reminders" })).ref;
    const alice = user(t, "alice");
    const list = (filter: Record<string, string | boolean>) =>
      as(t, alice, (ctx) => adapter.list(ctx, { kind: "board.card", filter, after: null, limit: 50 })).then((r) => r.items.map((i) => i.ref));
    expect(await list({ board })).toEqual([theirs, mine]); // board order: To do before Doing
    expect(await list({ board, column: "Doing" })).toEqual([mine]);
    expect(await list({ board, assignee: t.users.bob!.email })).toEqual([mine]);
    expect(await codeOf(list({ board, assignee: other.users.eve!.email }))).toBe("invalid_input");
    expect(await codeOf(list({ board, colour: "red" }))).toBe("invalid_input");

    const found = await as(t, alice, (ctx) => adapter.search(ctx, { kind: null, query: "invoice", filter: { board }, after: null, limit: 10 }));
    expect(found.items).toEqual([expect.objectContaining({ ref: theirs, kind: "board.card", label: "Billing emails", summary: "Filters board › To do" })]);
    const both = await as(t, alice, (ctx) => adapter.search(ctx, { kind: "board.card", query: "BILLING", filter: { board }, after: null, limit: 10 }));
    expect(both.items.map((i) => i.ref).sort()).toEqual([mine, theirs].sort());
    const boardsFound = await as(t, alice, (ctx) => adapter.search(ctx, { kind: "board.board", query: "filters", filter: {}, after: null, limit: 10 }));
    expect(boardsFound.items.map((i) => i.ref)).toEqual([board]);
  });

  it("edits assignees with a list or {add, remove}, and only with tenant members", async () => {
    const { cols } = await makeBoard(t, "alice", "Assignees board");
    const card = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "Plan party" })).ref;
    const added = await upsert(t, "alice", "board.card", { assignees: { add: [t.users.bob!.email, t.users.sam!.email] } }, card);
    expect(added.object.assignees).toEqual([t.users.bob!.email, t.users.sam!.email]);
    const removed = await upsert(t, "alice", "board.card", { assignees: { remove: [t.users.bob!.email.toUpperCase()] } }, card);
    expect(removed.object.assignees).toEqual([t.users.sam!.email]);
    const viaAction = await as(t, user(t, "alice"), (ctx) => adapter.action(ctx, { action: action("assign"), ref: card, payload: { add: [t.users.alice!.email], remove: [t.users.sam!.email] } }));
    expect(viaAction.assignees).toEqual([t.users.alice!.email]);
    const err = await errorOf(upsert(t, "alice", "board.card", { assignees: ["stranger@example.test"] }, card));
    expect(err.code).toBe("invalid_input");
    expect(err.details).toMatchObject({ field: "assignees", unknown: ["stranger@example.test"] });
  });

  it("pages through cards across columns with cursors: every card once, in board order", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const { board, cols } = await makeBoard(tt, "alice", "Paging");
    const expected: string[] = [];
    for (const col of ["To do", "Doing", "Done"]) {
      for (let i = 0; i < 3; i++) expected.push((await upsert(tt, "alice", "board.card", { column: cols[col]!, title: `${col} ${i}` })).ref);
    }
    const { refs, pages } = await listAll(tt, "alice", "board.card", { board }, 2);
    expect(pages).toBe(5);
    expect(refs).toEqual(expected);
    const columns = await listAll(tt, "alice", "board.column", { board }, 2);
    expect(columns.refs).toEqual([cols["To do"], cols["Doing"], cols["Done"]]);
    expect(await codeOf(as(tt, user(tt, "alice"), (ctx) => adapter.list(ctx, { kind: "board.card", filter: {}, after: { k: "board", t: "x", id: "y" }, limit: 2 })))).toBe(
      "invalid_cursor",
    );
  });
});

describe("card actions", () => {
  it("moves a card by column title or ref, keeping both columns' positions dense", async () => {
    const { cols } = await makeBoard(t, "alice", "Moves");
    const c: string[] = [];
    for (const title of ["one", "two", "three"]) c.push((await upsert(t, "alice", "board.card", { column: cols["To do"]!, title })).ref);
    const done = (await upsert(t, "alice", "board.card", { column: cols["Done"]!, title: "shipped" })).ref;

    const moved = await as(t, user(t, "alice"), (ctx) => adapter.action(ctx, { action: action("move_card"), ref: c[0]!, payload: { column: "done", position: 0 } }));
    expect(moved).toMatchObject({ column: cols["Done"], column_title: "Done", position: 0 });
    expect((await cardOrder(t, cols["Done"]!)).map((x) => [x.ref, x.position])).toEqual([[c[0], 0], [done, 1]]);
    expect((await cardOrder(t, cols["To do"]!)).map((x) => [x.ref, x.position])).toEqual([[c[1], 0], [c[2], 1]]);

    await as(t, user(t, "alice"), (ctx) => adapter.action(ctx, { action: action("move_card"), ref: c[2]!, payload: { column: cols["To do"]!, position: 0 } }));
    expect((await cardOrder(t, cols["To do"]!)).map((x) => x.ref)).toEqual([c[2], c[1]]);
    await as(t, user(t, "alice"), (ctx) => adapter.action(ctx, { action: action("move_card"), ref: c[2]!, payload: { column: "Doing" } }));
    expect((await cardOrder(t, cols["Doing"]!)).map((x) => x.ref)).toEqual([c[2]]);
  });

  it("answers an ambiguous column title with choices, and refuses a column of another board", async () => {
    const { board, cols } = await makeBoard(t, "alice", "Twin columns");
    const second = (await upsert(t, "alice", "board.column", { board, title: "Done" })).ref;
    const card = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "Where do I go" })).ref;
    const err = await errorOf(as(t, user(t, "alice"), (ctx) => adapter.action(ctx, { action: action("move_card"), ref: card, payload: { column: "Done" } })));
    expect(err.code).toBe("ambiguous_selector");
    expect((err.details.choices as LeanItem[]).map((ch) => ch.ref).sort()).toEqual([cols["Done"], second].sort());

    const resolved = await as(t, user(t, "alice"), (ctx) => adapter.resolve(ctx, { kind: "board.column", selector: { title: "done", board } }));
    expect("choices" in resolved && resolved.choices).toHaveLength(2);

    const elsewhere = await makeBoard(t, "alice", "Other board");
    expect(await codeOf(as(t, user(t, "alice"), (ctx) => adapter.action(ctx, { action: action("move_card"), ref: card, payload: { column: elsewhere.cols["Done"]! } })))).toBe("invalid_input");
    const nowhere = await errorOf(as(t, user(t, "alice"), (ctx) => adapter.action(ctx, { action: action("move_card"), ref: card, payload: { column: "Nowhere" } })));
    // Not "the card is gone": which field, which board, and the board's columns to pick from.
    expect(nowhere.code).toBe("not_found");
    expect(nowhere.message).toBe("No column “Nowhere” on board “Twin columns”: its columns are “To do”, “Doing”, “Done”, “Done”.");
    expect(nowhere.details).toMatchObject({ where: "payload.column" });
    expect((nowhere.details.choices as LeanItem[]).map((ch) => ch.ref)).toEqual([cols["To do"], cols["Doing"], cols["Done"], second]);
  });

  it("archives a card out of its column, keeps it readable, and restores it at the end", async () => {
    const { board, cols } = await makeBoard(t, "alice", "Archive");
    const a = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "a" })).ref;
    const b = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "b" })).ref;
    const alice = user(t, "alice");
    expect(await as(t, alice, (ctx) => adapter.action(ctx, { action: action("archive"), ref: a, payload: {} }))).toMatchObject({ archived: true });
    expect((await cardOrder(t, cols["To do"]!)).map((x) => [x.ref, x.position])).toEqual([[b, 0]]);
    const active = await as(t, alice, (ctx) => adapter.list(ctx, { kind: "board.card", filter: { board }, after: null, limit: 10 }));
    expect(active.items.map((i) => i.ref)).toEqual([b]);
    const archived = await as(t, alice, (ctx) => adapter.list(ctx, { kind: "board.card", filter: { board, archived: true }, after: null, limit: 10 }));
    expect(archived.items.map((i) => i.ref)).toEqual([a]);
    expect(await as(t, alice, (ctx) => adapter.get(ctx, { ref: a, full: false }))).toMatchObject({ title: "a", archived: true });

    await as(t, alice, (ctx) => adapter.action(ctx, { action: action("archive"), ref: a, payload: { archived: false } }));
    expect((await cardOrder(t, cols["To do"]!)).map((x) => [x.ref, x.position])).toEqual([[b, 0], [a, 1]]);
  });
});

describe("board ACL", () => {
  it("hides an unshared board, its columns and cards from bob and other tenants (not_found)", async () => {
    const { board, cols } = await makeBoard(t, "alice", "Private plans");
    const card = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "Secret card" })).ref;
    for (const [tt, who] of [[t, "bob"], [other, "eve"]] as const) {
      const p = user(tt, who);
      for (const ref of [board, cols["To do"]!, card]) {
        expect(await codeOf(as(tt, p, (ctx) => adapter.get(ctx, { ref, full: false }))), `${who} ${ref}`).toBe("not_found");
        expect(await codeOf(as(tt, p, (ctx) => adapter.delete(ctx, { ref })))).toBe("not_found");
      }
      expect(await codeOf(as(tt, p, (ctx) => adapter.action(ctx, { action: action("move_card"), ref: card, payload: { column: "Done" } })))).toBe("not_found");
      expect(await codeOf(as(tt, p, (ctx) => adapter.upsert(ctx, { kind: "board.card", ref: null, fields: { column: cols["To do"]!, title: "sneaky" } })))).toBe("not_found");
      const found = await as(tt, p, (ctx) => adapter.search(ctx, { kind: null, query: "secret", filter: {}, after: null, limit: 10 }));
      expect(found.items).toEqual([]);
      expect(await codeOf(as(tt, p, (ctx) => adapter.resolve(ctx, { kind: "board.board", selector: { title: "Private plans" } })))).toBe("not_found");
    }
  });

  it("lets bob (and his agents) work on a shared board but not delete or re-share anything", async () => {
    const { board, cols } = await makeBoard(t, "alice", "Shared plans", { shared_with: [t.users.bob!.email] });
    const card = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "Team card" })).ref;
    const bob = user(t, "bob");
    const bobsAgent: Principal = { type: "actor", actorId: "act_test", grantorId: t.users.bob!.userId, actorKind: "mcp_client" };
    expect(await as(t, bobsAgent, (ctx) => adapter.get(ctx, { ref: card, full: false }))).toMatchObject({ title: "Team card" });
    expect(await as(t, bobsAgent, (ctx) => adapter.action(ctx, { action: action("move_card"), ref: card, payload: { column: "Doing" } }))).toMatchObject({ column_title: "Doing" });
    const bobsCard = await upsert(t, "bob", "board.card", { board: "Shared plans", column: "Done", title: "Bob's card" });
    expect(bobsCard.object).toMatchObject({ column: cols["Done"] });

    for (const ref of [card, bobsCard.ref, cols["Done"]!, board]) {
      const err = await errorOf(as(t, bob, (ctx) => adapter.delete(ctx, { ref })));
      expect(err.code, ref).toBe("realm_denied");
    }
    expect(await codeOf(upsert(t, "bob", "board.board", { shared_with: { add: [t.users.sam!.email] } }, board))).toBe("realm_denied");
    expect(await as(t, user(t, "alice"), (ctx) => adapter.delete(ctx, { ref: cols["Done"]! }))).toEqual({ ref: cols["Done"], deleted: true });
    expect(await codeOf(as(t, user(t, "alice"), (ctx) => adapter.get(ctx, { ref: bobsCard.ref, full: false })))).toBe("not_found");
    const left = (await as(t, user(t, "alice"), (ctx) => adapter.get(ctx, { ref: board, full: false }))).columns as { title: string; position: number }[];
    expect(left.map((c) => [c.title, c.position])).toEqual([["To do", 0], ["Doing", 1]]);
    expect(await as(t, user(t, "alice"), (ctx) => adapter.delete(ctx, { ref: board }))).toEqual({ ref: board, deleted: true });
    expect(await codeOf(as(t, user(t, "alice"), (ctx) => adapter.get(ctx, { ref: card, full: false })))).toBe("not_found");
  });

  it("answers malformed refs with invalid_ref", async () => {
    const alice = user(t, "alice");
    for (const ref of ["board:card:nope", "board:lane:crd_aaaaaaaaaaaaaaaaaaaa", "board:card:col_aaaaaaaaaaaaaaaaaaaa", "memory:item:mem_aaaaaaaaaaaaaaaaaaaa", "board"]) {
      expect(await codeOf(as(t, alice, (ctx) => adapter.get(ctx, { ref, full: false }))), ref).toBe("invalid_ref");
    }
    // A ref of the wrong kind where a column is expected.
    const { board } = await makeBoard(t, "alice", "Ref kinds");
    expect(await codeOf(upsert(t, "alice", "board.card", { column: board, title: "x" }))).toBe("invalid_ref");
  });
});

describe("board selectors", () => {
  it("resolves boards and cards by title, with choices when several match", async () => {
    // The dispatcher refuses selector keys a realm did not declare.
    const declared = (kind: string) => manifest.selectors.filter((s) => s.kind === kind).map((s) => s.by).sort();
    expect([declared("board.board"), declared("board.column"), declared("board.card")]).toEqual([["title"], ["board", "title"], ["board", "column", "title"]]);
    const tt = await makeTenant({ alice: "owner" });
    const { board, cols } = await makeBoard(tt, "alice", "Roadmap");
    await makeBoard(tt, "alice", "Roadmap 2027");
    const alice = user(tt, "alice");
    expect(await as(tt, alice, (ctx) => adapter.resolve(ctx, { kind: "board.board", selector: { title: "roadmap" } }))).toEqual({ ref: board });
    const partial = await as(tt, alice, (ctx) => adapter.resolve(ctx, { kind: "board.board", selector: { title: "road" } }));
    expect("choices" in partial && partial.choices.map((c) => c.label)).toEqual(["Roadmap", "Roadmap 2027"]);
    const card = (await upsert(tt, "alice", "board.card", { column: cols["Doing"]!, title: "Ship search" })).ref;
    expect(await as(tt, alice, (ctx) => adapter.resolve(ctx, { kind: "board.card", selector: { title: "search", board: "Roadmap" } }))).toEqual({ ref: card });
  });
});

describe("board demo", () => {
  it("seeds Launch plan with three columns and four cards, once", async () => {
    const tt = await makeTenant();
    await seedDemoTwice(seedDemo, tt);
    const db = tt.db;
    const rows = await db.select().from(boards).where(eq(boards.tenantId, tt.tenantId));
    expect(rows.map((b) => [b.title, b.ownerId])).toEqual([["Launch plan", tt.users.alice!.userId]]);
    const cols = await db.select().from(boardColumns).where(eq(boardColumns.boardId, rows[0]!.id));
    expect(cols.sort((a, b) => a.position - b.position).map((c) => c.title)).toEqual(["To do", "Doing", "Done"]);
    const cards = await db.select().from(boardCards).where(and(eq(boardCards.tenantId, tt.tenantId), eq(boardCards.boardId, rows[0]!.id)));
    expect(cards).toHaveLength(4);
    expect(cards.filter((c) => c.assignees.includes(tt.users.bob!.userId))).toHaveLength(1);

    // Bob sees the card assigned to him through the realm.
    const mine = await as(tt, user(tt, "bob"), (ctx) => adapter.list(ctx, { kind: "board.card", filter: { assignee: tt.users.bob!.email }, after: null, limit: 10 }));
    expect(mine.items.map((i) => i.label)).toEqual(["Write the press release"]);
  });
});
