// The board realm's side of the trust boundary: parseRef (syntax only), describeRefs (names, with the caller's
// authority, one query per kind), and gateRef on every board or column an upsert or action names by title.
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { boardCards, boardColumns } from "@/db/schema/board";
import type { RealmContext } from "@/lib/realms/contract";
import { dispatch } from "@/lib/tools/dispatch";
import { call, countingQueries, errorOf, grant, makeActor, makeTenant, type TestTenant, thrownCode, userPrincipal } from "@/test-support";
import { adapter } from "./adapter";
import { action, as, makeBoard, upsert } from "./fixtures/boards";
import { manifest } from "./manifest";

const user = userPrincipal;

let t: TestTenant;
/** What the test gateRef throws when it refuses a ref (as a scoped grant would). */
let refused: string;
beforeAll(async () => {
  t = await makeTenant();
  refused = (await as(t, user(t, "alice"), (ctx) => errorOf(ctx.gateRef("board:probe", "probe")), { refuse: ["board:probe"] })).code;
});

describe("board manifest ref declarations", () => {
  it("declares the ref-holding payload of move_card, and ref kinds on the board/column fields", () => {
    expect(action("move_card").ref_paths).toEqual(["column"]);
    expect(action("assign").ref_paths).toEqual([]);
    expect(action("archive").ref_paths).toEqual([]);
    const field = (kind: string, name: string) => manifest.kinds.find((k) => k.name === kind)!.fields.find((f) => f.name === name)!;
    expect(field("board.column", "board")).toMatchObject({ type: "ref", ref_kind: "board.board" });
    expect(field("board.card", "column")).toMatchObject({ type: "ref", ref_kind: "board.column" });
    expect(field("board.card", "board")).toMatchObject({ type: "ref", ref_kind: "board.board" });
  });
});

describe("board parseRef", () => {
  it("accepts every ref the adapter mints, naming its kind", async () => {
    const { board, cols } = await makeBoard(t, "alice", "Parse board");
    const card = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "Parse card" })).ref;
    expect(adapter.parseRef(board)).toEqual({ kind: "board.board" });
    expect(adapter.parseRef(cols["Doing"]!)).toEqual({ kind: "board.column" });
    expect(adapter.parseRef(card)).toEqual({ kind: "board.card" });
  });

  it("rejects half-typed refs, unknown kind segments, ids of another kind and other namespaces as invalid_ref", () => {
    for (const ref of [
      "board:b",
      "board:board",
      "board:board:",
      "board:board:brd_",
      "board:card:crd_aaaa",
      "board:lane:brd_aaaaaaaaaaaaaaaaaaaa",
      "board:card:col_aaaaaaaaaaaaaaaaaaaa",
      "docs:board:brd_aaaaaaaaaaaaaaaaaaaa",
      "board:board:brd_aaaaaaaaaaaaaaaaaaaa:x",
      "Launch plan",
      "",
    ]) {
      expect(thrownCode(() => adapter.parseRef(ref)), ref).toBe("invalid_ref");
    }
  });
});

describe("board describeRefs", () => {
  it("names boards, columns and cards the caller may see, one query per kind, and null for the rest", async () => {
    const launch = await makeBoard(t, "alice", "Launch");
    const cards: string[] = [];
    for (const title of ["Write copy", "Book venue", "Send invites"]) cards.push((await upsert(t, "alice", "board.card", { column: launch.cols["Doing"]!, title })).ref);
    const archived = (await upsert(t, "alice", "board.card", { column: launch.cols["Done"]!, title: "Old card", archived: true })).ref;
    const bobs = await makeBoard(t, "bob", "Bob's private board");
    const bobsCard = (await upsert(t, "bob", "board.card", { column: bobs.cols["To do"]!, title: "Bob's secret card" })).ref;
    const shared = await makeBoard(t, "bob", "Bob shares this", { shared_with: [t.users.alice!.email] });
    const unknown = ["board:board:brd_zzzzzzzzzzzzzzzzzzzz", "board:card:crd_zzzzzzzzzzzzzzzzzzzz"];
    const malformed = ["board:b", "board:board:brd_", "memory:item:mem_aaaaaaaaaaaaaaaaaaaa"];
    const asked = [launch.board, ...Object.values(launch.cols), ...cards, archived, bobs.board, bobs.cols["To do"]!, bobsCard, shared.board, shared.cols["Done"]!, ...unknown, ...malformed];

    const { got, queries } = await as(t, user(t, "alice"), async (raw) => {
      const c = countingQueries(raw);
      return { got: await adapter.describeRefs(c.ctx, asked), queries: c.queries() };
    });
    expect(queries).toBeLessThanOrEqual(3); // boards, columns, cards — not one per ref
    expect(got[launch.board]).toMatchObject({ kind: "board.board", label: "Launch", lineage: [] });
    expect(got[launch.cols["Doing"]!]).toEqual({ kind: "board.column", label: "Doing", summary: "column on “Launch”", lineage: [launch.board] });
    expect(got[cards[0]!]).toEqual({ kind: "board.card", label: "Write copy", summary: "card in “Doing” on “Launch”", lineage: [launch.cols["Doing"], launch.board] });
    expect(got[cards[2]!]).toMatchObject({ label: "Send invites" });
    expect(got[archived]?.summary).toBe("archived card in “Done” on “Launch”");
    expect(got[shared.board]).toMatchObject({ label: "Bob shares this" });
    expect(got[shared.cols["Done"]!]).toMatchObject({ label: "Done", summary: "column on “Bob shares this”" });
    for (const ref of [bobs.board, bobs.cols["To do"]!, bobsCard, ...unknown, ...malformed]) expect(got[ref], ref).toBeNull();
    expect(Object.keys(got).sort()).toEqual([...new Set(asked)].sort());

    // The lineage describeRefs reports is the adapter's own.
    const lineage = await as(t, user(t, "alice"), (ctx) => adapter.lineage!(ctx, { refs: [cards[0]!, launch.cols["Doing"]!] }));
    expect(lineage[cards[0]!]).toEqual(got[cards[0]!]!.lineage);
    expect(lineage[launch.cols["Doing"]!]).toEqual(got[launch.cols["Doing"]!]!.lineage);
  });
});

describe("board gateRef", () => {
  it("gates the board and column a card names by title, and writes nothing when the grant does not cover them", async () => {
    const { board, cols } = await makeBoard(t, "alice", "Gated board");
    const gated: string[] = [];
    const made = await as(t, user(t, "alice"), (ctx) => adapter.upsert(ctx, { kind: "board.card", ref: null, fields: { board: "Gated board", column: "Doing", title: "Gated card" } }), { gated });
    expect(made.object).toMatchObject({ column: cols["Doing"], board });
    expect(gated).toEqual([board, cols["Doing"]]);

    for (const refuse of [[cols["Doing"]!], [board]]) {
      const { err, written } = await as(
        t,
        user(t, "alice"),
        async (ctx) => {
          const err = await errorOf(adapter.upsert(ctx, { kind: "board.card", ref: null, fields: { board: "Gated board", column: "Doing", title: "Must not exist" } }));
          // Read in the same transaction: a write made before the gate would show here.
          const written = await ctx.tx.select().from(boardCards).where(and(eq(boardCards.tenantId, t.tenantId), eq(boardCards.title, "Must not exist")));
          return { err, written };
        },
        { refuse },
      );
      expect(err.code, refuse[0]).toBe(refused);
      expect(err.details).toMatchObject({ ref: refuse[0], where: refuse[0] === board ? "fields.board" : "fields.column" });
      expect(written).toEqual([]);
    }
  });

  it("gates a column's board given by title", async () => {
    const { board } = await makeBoard(t, "alice", "Columns gate");
    const gated: string[] = [];
    await as(t, user(t, "alice"), (ctx) => adapter.upsert(ctx, { kind: "board.column", ref: null, fields: { board: "Columns gate", title: "Review" } }), { gated });
    expect(gated).toEqual([board]);
    const { err, written } = await as(
      t,
      user(t, "alice"),
      async (ctx) => {
        const err = await errorOf(adapter.upsert(ctx, { kind: "board.column", ref: null, fields: { board: "Columns gate", title: "Never" } }));
        const written = await ctx.tx.select().from(boardColumns).where(and(eq(boardColumns.tenantId, t.tenantId), eq(boardColumns.title, "Never")));
        return { err, written };
      },
      { refuse: [board] },
    );
    expect(err).toMatchObject({ code: refused, details: { ref: board, where: "fields.board" } });
    expect(written).toEqual([]);
  });

  it("gates the column move_card and a card patch name by title, and leaves the card where it was when refused", async () => {
    const { cols } = await makeBoard(t, "alice", "Moving gate");
    const card = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "Mover" })).ref;
    const gated: string[] = [];
    const moved = await as(t, user(t, "alice"), (ctx) => adapter.action(ctx, { action: action("move_card"), ref: card, payload: { column: "Done" } }), { gated });
    expect(moved).toMatchObject({ column: cols["Done"] });
    expect(gated).toEqual([cols["Done"]]);

    for (const run of [
      (ctx: RealmContext) => adapter.action(ctx, { action: action("move_card"), ref: card, payload: { column: "Doing" } }),
      (ctx: RealmContext) => adapter.upsert(ctx, { kind: "board.card", ref: card, fields: { column: "Doing" } }),
    ]) {
      const { err, after } = await as(
        t,
        user(t, "alice"),
        async (ctx) => {
          const err = await errorOf(run(ctx));
          const [after] = await ctx.tx.select().from(boardCards).where(and(eq(boardCards.tenantId, t.tenantId), eq(boardCards.id, card.split(":")[2]!)));
          return { err, after };
        },
        { refuse: [cols["Doing"]!] },
      );
      expect(err).toMatchObject({ code: refused, details: { ref: cols["Doing"] } });
      expect(after!.columnId).toBe(cols["Done"]!.split(":")[2]);
    }
  });
});

describe("board names through the dispatcher", () => {
  // A payload path declared in ref_paths takes a ref or a name: names are resolved and gated by the adapter.
  it("an agent scoped to one card moves it by column title only within its grant: the title's column is gated", async () => {
    const alice = t.users.alice!;
    const { cols } = await makeBoard(t, "alice", "Dispatch gate");
    const card = (await upsert(t, "alice", "board.card", { column: cols["To do"]!, title: "Scoped card" })).ref;
    const agent = await makeActor(t, alice, "Card mover");
    // Scoped to its column and the card: "To do" by title is covered, "Done" is not.
    await grant(t, alice, agent.actorId, "board", ["object.get", "object.action.move_card"], { scope: { refs: [cols["To do"]!, card] } });
    const moved = (await dispatch(call(agent), "object_action", { ref: card, action: "move_card", payload: { column: "To do", position: 0 } })) as Record<string, unknown>;
    expect(moved).toMatchObject({ column: cols["To do"] });
    const err = await errorOf(dispatch(call(agent), "object_action", { ref: card, action: "move_card", payload: { column: "Done" } }));
    expect(err.code).toBe("consent_required");
    const after = (await dispatch(call(agent), "get_object", { ref: card })) as Record<string, unknown>;
    expect(after.column).toBe(cols["To do"]);
  });
});
