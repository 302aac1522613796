// The board realm's adapter: boards, columns and cards in Realmgate's database, per tenant. Gate two is
// the board's owner / shared-with ACL, which its columns and cards inherit; invisible objects answer
// not_found. Positions are 0-based and kept dense per board (columns) and per column (active cards).
import { and, asc, count, eq, inArray, ne, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { boardCards, boardColumns, boards, users, type Board, type BoardCard, type BoardColumn } from "@/db/schema";
import { AppError, parseWith } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { assertDestroyable, assertReadable, type AclFields } from "@/lib/realms/acl";
import {
  authorityOf,
  type CursorState,
  type Filter,
  type LeanItem,
  type RealmAdapter,
  type RealmContext,
  type RefDescription,
  type ResolveResult,
} from "@/lib/realms/contract";
import { invalidRef, refCodec } from "@/lib/realms/refs";
import { archivePayload, assignPayload, manifest, moveCardPayload } from "./manifest";
import { emailsOf, likePattern, memberIds, peopleAfter, sqlTextArray } from "@/lib/realms/native";

const refs = refCodec("board", {
  board: { kind: "board.board", idPrefix: "brd" },
  column: { kind: "board.column", idPrefix: "col" },
  card: { kind: "board.card", idPrefix: "crd" },
});
type Segment = "board" | "column" | "card";
const segmentOfKind: Record<string, Segment> = { "board.board": "board", "board.column": "column", "board.card": "card" };
const MAX_CHOICES = 20;

type ColumnIn = { column: BoardColumn; board: Board };
type CardIn = { card: BoardCard; column: BoardColumn; board: Board };

// ---------------------------------------------------------------------------------------------------
// Input schemas (the dispatcher checks the manifest; these check the fields themselves).

const title = z.string().trim().min(1).max(200);
const description = z.string().trim().max(20_000);
const nameOrRef = z.string().trim().min(1).max(200);
const position = z.number().int().min(0).max(10_000);
const person = z.string().trim().min(1).max(320);
/** A collection field: a list replaces, {add, remove} edits. */
const people = z.union([
  z.array(person).max(50),
  z.strictObject({ add: z.array(person).max(50).optional(), remove: z.array(person).max(50).optional() }),
]);

const boardFields = z.strictObject({ title: title.optional(), description: description.optional(), shared_with: people.optional() });
const columnFields = z.strictObject({ board: nameOrRef.optional(), title: title.optional(), position: position.optional() });
const cardFields = z.strictObject({
  title: title.optional(),
  description: description.optional(),
  column: nameOrRef.optional(),
  board: nameOrRef.optional(),
  position: position.optional(),
  assignees: people.optional(),
  archived: z.boolean().optional(),
});

const boolFilter = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
const boardFilter = z.strictObject({});
const columnFilter = z.strictObject({ board: nameOrRef.optional() });
const cardFilter = z.strictObject({ board: nameOrRef.optional(), column: nameOrRef.optional(), assignee: person.optional(), archived: boolFilter.optional() });

const boardSelector = z.strictObject({ title });
const columnSelector = z.strictObject({ title, board: nameOrRef.optional() });
const cardSelector = z.strictObject({ title, board: nameOrRef.optional(), column: nameOrRef.optional() });

/** Keysets over each list order; `k` keeps a cursor from being replayed on another kind's listing. */
const boardCursor = z.strictObject({ k: z.literal("board"), t: z.string().max(200), id: z.string().max(40) });
const columnCursor = z.strictObject({ k: z.literal("column"), b: z.string().max(40), p: z.number().int(), id: z.string().max(40) });
const cardCursor = z.strictObject({
  k: z.literal("card"),
  b: z.string().max(40),
  cp: z.number().int(),
  c: z.string().max(40),
  p: z.number().int(),
  id: z.string().max(40),
});

function parseCursor<S extends z.ZodType>(schema: S, after: CursorState): z.infer<S> {
  const parsed = schema.safeParse(after);
  if (!parsed.success) throw new AppError("invalid_cursor", "This cursor does not belong to this listing.");
  return parsed.data;
}

// ---------------------------------------------------------------------------------------------------
// Small helpers.

function segmentOf(kind: string | null): Segment {
  const seg = kind === null ? "card" : Object.hasOwn(segmentOfKind, kind) ? segmentOfKind[kind] : undefined;
  if (!seg) throw new AppError("invalid_input", `board has no kind ${kind}; its kinds are ${Object.keys(segmentOfKind).join(", ")}.`, { details: { kind } });
  return seg;
}

function unsupported(kind: string, operation: string): never {
  throw new AppError("invalid_input", `${kind} does not support ${operation}`);
}

/** The id in a ref of the expected segment; a ref of another kind where this one is needed is invalid_ref. */
function idOf(ref: string, segment: Segment): string {
  const parsed = refs.parse(ref);
  if (parsed.segment !== segment) throw invalidRef(ref, `expected a ${segment} ref (board:${segment}:<id>)`);
  return parsed.id;
}

const isRef = (value: string) => value.startsWith("board:");
const clampLimit = (limit: number) => Math.min(Math.max(1, Math.trunc(limit) || 1), manifest.delivery.max_page_size);
const aclOf = (b: Board): AclFields => ({ ownerId: b.ownerId, sharedWith: b.sharedWith });

/** Boards the caller may read: in the tenant, owned by or shared with the call's authority. */
function boardVisible(ctx: RealmContext): SQL {
  const who = authorityOf(ctx.principal);
  return and(eq(boards.tenantId, ctx.tenantId), or(eq(boards.ownerId, who), sql`${who} = any(${boards.sharedWith})`))!;
}

function termsMatch(haystack: SQL, query: string): SQL[] {
  const terms = query.trim().split(/\s+/).filter(Boolean).slice(0, 10);
  return terms.map((t) => sql`${haystack} ilike ${likePattern(t)}`);
}

function preview(text: string, max: number): string | undefined {
  const line = text.replace(/\s+/g, " ").trim();
  if (!line) return undefined;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function leanBoard(b: Board): LeanItem {
  return { ref: refs.make("board", b.id), kind: "board.board", label: b.title, summary: preview(b.description, 120), updated_at: b.updatedAt.toISOString() };
}

function leanColumn({ column, board }: ColumnIn): LeanItem {
  return { ref: refs.make("column", column.id), kind: "board.column", label: column.title, summary: `column ${column.position + 1} of “${board.title}”`, updated_at: column.updatedAt.toISOString() };
}

function leanCard({ card, column, board }: CardIn): LeanItem {
  const parts = [`${board.title} › ${column.title}`];
  if (card.assignees.length) parts.push(`${card.assignees.length} assignee${card.assignees.length > 1 ? "s" : ""}`);
  if (card.archived) parts.push("archived");
  return { ref: refs.make("card", card.id), kind: "board.card", label: card.title, summary: parts.join(" · "), updated_at: card.updatedAt.toISOString() };
}

function ambiguous(what: string, selector: Record<string, string>, choices: LeanItem[]): AppError {
  return new AppError("ambiguous_selector", `Several ${what} match ${JSON.stringify(selector)}; name one by its ref.`, {
    details: { selector, choices: choices.slice(0, MAX_CHOICES) },
  });
}

function noMatch(what: string, selector: Record<string, string>): AppError {
  return new AppError("not_found", `No ${what} matches ${JSON.stringify(selector)} (or you may not see it).`, { details: { selector } });
}

// ---------------------------------------------------------------------------------------------------
// Loading one object (tenant + ACL; anything invisible is not_found).

async function loadBoard(ctx: RealmContext, ref: string): Promise<Board> {
  const id = idOf(ref, "board");
  const [row] = await ctx.tx
    .select()
    .from(boards)
    .where(and(eq(boards.tenantId, ctx.tenantId), eq(boards.id, id)));
  assertReadable(row && aclOf(row), ref, ctx.principal);
  return row!;
}

async function loadColumn(ctx: RealmContext, ref: string): Promise<ColumnIn> {
  const id = idOf(ref, "column");
  const [row] = await ctx.tx
    .select({ column: boardColumns, board: boards })
    .from(boardColumns)
    .innerJoin(boards, and(eq(boards.id, boardColumns.boardId), eq(boards.tenantId, ctx.tenantId)))
    .where(and(eq(boardColumns.tenantId, ctx.tenantId), eq(boardColumns.id, id)));
  assertReadable(row && aclOf(row.board), ref, ctx.principal);
  return row!;
}

async function loadCard(ctx: RealmContext, ref: string): Promise<CardIn> {
  const id = idOf(ref, "card");
  const [row] = await cardQuery(ctx).where(and(eq(boardCards.tenantId, ctx.tenantId), eq(boardCards.id, id)));
  assertReadable(row && aclOf(row.board), ref, ctx.principal);
  return row!;
}

/** Cards joined to their column and board, all in the call's tenant. */
function cardQuery(ctx: RealmContext) {
  return ctx.tx
    .select({ card: boardCards, column: boardColumns, board: boards })
    .from(boardCards)
    .innerJoin(boardColumns, and(eq(boardColumns.id, boardCards.columnId), eq(boardColumns.tenantId, ctx.tenantId)))
    .innerJoin(boards, and(eq(boards.id, boardCards.boardId), eq(boards.tenantId, ctx.tenantId)));
}

function columnQuery(ctx: RealmContext) {
  return ctx.tx
    .select({ column: boardColumns, board: boards })
    .from(boardColumns)
    .innerJoin(boards, and(eq(boards.id, boardColumns.boardId), eq(boards.tenantId, ctx.tenantId)));
}

// ---------------------------------------------------------------------------------------------------
// Selectors: exact title (case-insensitive) first; only when none matches, titles containing the words.

async function byTitle<T>(title: string, column: SQL, run: (match: SQL) => Promise<T[]>): Promise<T[]> {
  const exact = await run(sql`lower(${column}) = lower(${title})`);
  if (exact.length) return exact;
  const words = termsMatch(sql`${column}`, title);
  return words.length ? run(and(...words)!) : [];
}

async function findBoards(ctx: RealmContext, title: string): Promise<Board[]> {
  return byTitle(title, sql`${boards.title}`, (match) =>
    ctx.tx
      .select()
      .from(boards)
      .where(and(boardVisible(ctx), match))
      .orderBy(asc(boards.title), asc(boards.id))
      .limit(MAX_CHOICES + 1),
  );
}

async function findColumns(ctx: RealmContext, title: string, boardId: string | null): Promise<ColumnIn[]> {
  return byTitle(title, sql`${boardColumns.title}`, (match) =>
    columnQuery(ctx)
      .where(and(eq(boardColumns.tenantId, ctx.tenantId), boardVisible(ctx), boardId ? eq(boardColumns.boardId, boardId) : undefined, match))
      .orderBy(asc(boardColumns.boardId), asc(boardColumns.position), asc(boardColumns.id))
      .limit(MAX_CHOICES + 1),
  );
}

async function findCards(ctx: RealmContext, title: string, scope: { boardId?: string; columnId?: string }): Promise<CardIn[]> {
  return byTitle(title, sql`${boardCards.title}`, (match) =>
    cardQuery(ctx)
      .where(
        and(
          eq(boardCards.tenantId, ctx.tenantId),
          boardVisible(ctx),
          scope.boardId ? eq(boardCards.boardId, scope.boardId) : undefined,
          scope.columnId ? eq(boardCards.columnId, scope.columnId) : undefined,
          match,
        ),
      )
      .orderBy(asc(boardCards.archived), asc(boardCards.boardId), asc(boardColumns.position), asc(boardCards.position), asc(boardCards.id))
      .limit(MAX_CHOICES + 1),
  );
}

/**
 * A board named by ref or title; several titles match → ambiguous_selector with choices. With `gate` (the field
 * it came from, inside an upsert or action), the board's ref must pass ctx.gateRef before it is used: a title
 * must not reach further than the grant that let the call in.
 */
async function boardFrom(ctx: RealmContext, value: string, gate?: string): Promise<Board> {
  if (isRef(value)) {
    idOf(value, "board");
    if (gate) await ctx.gateRef(value, gate);
    return loadBoard(ctx, value);
  }
  const found = await findBoards(ctx, value);
  if (found.length === 0) throw noMatch("board", { title: value });
  if (found.length > 1) throw ambiguous("boards", { title: value }, found.map(leanBoard));
  if (gate) await ctx.gateRef(refs.make("board", found[0]!.id), gate);
  return found[0]!;
}

/** A column named by ref or title (within `board` when given); several titles match → ambiguous_selector. `gate` as for boardFrom. */
async function columnFrom(ctx: RealmContext, value: string, board: Board | null, gate?: string): Promise<ColumnIn> {
  if (isRef(value)) {
    idOf(value, "column");
    if (gate) await ctx.gateRef(value, gate);
    const found = await loadColumn(ctx, value);
    if (board && found.board.id !== board.id) {
      throw new AppError("invalid_input", `Column ${value} is on board “${found.board.title}”, not “${board.title}”.`, { details: { column: value } });
    }
    return found;
  }
  const selector: Record<string, string> = board ? { title: value, board: refs.make("board", board.id) } : { title: value };
  const found = await findColumns(ctx, value, board?.id ?? null);
  if (found.length === 0) throw noMatch("column", selector);
  if (found.length > 1) throw ambiguous("columns", selector, found.map(leanColumn));
  if (gate) await ctx.gateRef(refs.make("column", found[0]!.column.id), gate);
  return found[0]!;
}

// ---------------------------------------------------------------------------------------------------
// People: assignees and shared_with name tenant members by email or user id; rows store user ids.

// ---------------------------------------------------------------------------------------------------
// Positions.

/** Reorders on one board are serialized by locking the board row for the rest of the call's transaction. */
async function lockBoard(ctx: RealmContext, boardId: string): Promise<void> {
  await ctx.tx
    .select({ id: boards.id })
    .from(boards)
    .where(and(eq(boards.tenantId, ctx.tenantId), eq(boards.id, boardId)))
    .for("update");
}

async function activeCardIds(ctx: RealmContext, columnId: string, except: string | null): Promise<string[]> {
  const rows = await ctx.tx
    .select({ id: boardCards.id })
    .from(boardCards)
    .where(and(eq(boardCards.tenantId, ctx.tenantId), eq(boardCards.columnId, columnId), eq(boardCards.archived, false), except ? ne(boardCards.id, except) : undefined))
    .orderBy(asc(boardCards.position), asc(boardCards.id));
  return rows.map((r) => r.id);
}

async function columnIds(ctx: RealmContext, boardId: string, except: string | null): Promise<string[]> {
  const rows = await ctx.tx
    .select({ id: boardColumns.id })
    .from(boardColumns)
    .where(and(eq(boardColumns.tenantId, ctx.tenantId), eq(boardColumns.boardId, boardId), except ? ne(boardColumns.id, except) : undefined))
    .orderBy(asc(boardColumns.position), asc(boardColumns.id));
  return rows.map((r) => r.id);
}

/** Each id's position becomes its index in `ordered`, in one statement. */
async function renumberCards(ctx: RealmContext, ordered: string[]): Promise<void> {
  if (!ordered.length) return;
  await ctx.tx
    .update(boardCards)
    .set({ position: sql`array_position(${sqlTextArray(ordered)}, ${boardCards.id}) - 1` })
    .where(and(eq(boardCards.tenantId, ctx.tenantId), inArray(boardCards.id, ordered)));
}

async function renumberColumns(ctx: RealmContext, ordered: string[]): Promise<void> {
  if (!ordered.length) return;
  await ctx.tx
    .update(boardColumns)
    .set({ position: sql`array_position(${sqlTextArray(ordered)}, ${boardColumns.id}) - 1` })
    .where(and(eq(boardColumns.tenantId, ctx.tenantId), inArray(boardColumns.id, ordered)));
}

const insertAt = (ids: string[], id: string, at: number | null) => {
  const out = [...ids];
  out.splice(at === null ? out.length : Math.min(at, out.length), 0, id);
  return out;
};

async function placeColumn(ctx: RealmContext, boardId: string, columnId: string, at: number | null): Promise<void> {
  await lockBoard(ctx, boardId);
  await renumberColumns(ctx, insertAt(await columnIds(ctx, boardId, columnId), columnId, at));
}

/**
 * After a card changed (`before` → `after`): close the gap it left in an old column, and put it at `at`
 * (default: the end) among its column's active cards when it moved, came back from the archive or was
 * given a position. Archived cards hold no place.
 */
async function settleCard(ctx: RealmContext, before: BoardCard, after: BoardCard, at: number | null): Promise<void> {
  const moved = before.columnId !== after.columnId;
  const leaves = !before.archived && (moved || after.archived);
  const enters = !after.archived && (moved || before.archived || at !== null);
  if (!leaves && !enters) return;
  await lockBoard(ctx, after.boardId);
  if (leaves) await renumberCards(ctx, await activeCardIds(ctx, before.columnId, after.id));
  if (enters) await renumberCards(ctx, insertAt(await activeCardIds(ctx, after.columnId, after.id), after.id, at));
}

// ---------------------------------------------------------------------------------------------------
// Presenting objects.

async function cardCounts(ctx: RealmContext, where: SQL): Promise<Map<string, number>> {
  const rows = await ctx.tx
    .select({ columnId: boardCards.columnId, n: count() })
    .from(boardCards)
    .where(and(eq(boardCards.tenantId, ctx.tenantId), eq(boardCards.archived, false), where))
    .groupBy(boardCards.columnId);
  return new Map(rows.map((r) => [r.columnId, Number(r.n)]));
}

/** Active cards (compact) grouped by column, for `full` reads. */
async function cardsByColumn(ctx: RealmContext, where: SQL): Promise<Map<string, Record<string, unknown>[]>> {
  const rows = await ctx.tx
    .select()
    .from(boardCards)
    .where(and(eq(boardCards.tenantId, ctx.tenantId), eq(boardCards.archived, false), where))
    .orderBy(asc(boardCards.columnId), asc(boardCards.position), asc(boardCards.id))
    .limit(500);
  const emails = await emailsOf(ctx, rows.flatMap((r) => r.assignees));
  const out = new Map<string, Record<string, unknown>[]>();
  for (const c of rows) {
    const list = out.get(c.columnId) ?? [];
    list.push({ ref: refs.make("card", c.id), title: c.title, position: c.position, assignees: c.assignees.map((id) => emails.get(id) ?? id) });
    out.set(c.columnId, list);
  }
  return out;
}

async function presentBoard(ctx: RealmContext, b: Board, full: boolean): Promise<Record<string, unknown>> {
  const cols = await ctx.tx
    .select()
    .from(boardColumns)
    .where(and(eq(boardColumns.tenantId, ctx.tenantId), eq(boardColumns.boardId, b.id)))
    .orderBy(asc(boardColumns.position), asc(boardColumns.id));
  const counts = await cardCounts(ctx, eq(boardCards.boardId, b.id));
  const cards = full ? await cardsByColumn(ctx, eq(boardCards.boardId, b.id)) : null;
  const emails = await emailsOf(ctx, [b.ownerId, ...b.sharedWith]);
  return {
    ref: refs.make("board", b.id),
    title: b.title,
    description: b.description,
    owner: emails.get(b.ownerId) ?? b.ownerId,
    shared_with: b.sharedWith.map((id) => emails.get(id) ?? id),
    columns: cols.map((c) => ({
      ref: refs.make("column", c.id),
      title: c.title,
      position: c.position,
      card_count: counts.get(c.id) ?? 0,
      ...(cards ? { cards: cards.get(c.id) ?? [] } : {}),
    })),
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
}

async function presentColumn(ctx: RealmContext, { column, board }: ColumnIn, full: boolean): Promise<Record<string, unknown>> {
  const counts = await cardCounts(ctx, eq(boardCards.columnId, column.id));
  const cards = full ? await cardsByColumn(ctx, eq(boardCards.columnId, column.id)) : null;
  return {
    ref: refs.make("column", column.id),
    board: refs.make("board", board.id),
    board_title: board.title,
    title: column.title,
    position: column.position,
    card_count: counts.get(column.id) ?? 0,
    ...(cards ? { cards: cards.get(column.id) ?? [] } : {}),
    created_at: column.createdAt.toISOString(),
    updated_at: column.updatedAt.toISOString(),
  };
}

async function presentCard(ctx: RealmContext, { card, column, board }: CardIn): Promise<Record<string, unknown>> {
  const emails = await emailsOf(ctx, card.assignees);
  return {
    ref: refs.make("card", card.id),
    title: card.title,
    description: card.description,
    board: refs.make("board", board.id),
    board_title: board.title,
    column: refs.make("column", column.id),
    column_title: column.title,
    position: card.position,
    assignees: card.assignees.map((id) => emails.get(id) ?? id),
    archived: card.archived,
    created_at: card.createdAt.toISOString(),
    updated_at: card.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Listing.

type PageOut = { items: LeanItem[]; next: CursorState | null };

async function pageBoards(ctx: RealmContext, conditions: SQL[], after: CursorState | null, limit: number): Promise<PageOut> {
  const n = clampLimit(limit);
  const where = [boardVisible(ctx), ...conditions];
  if (after) {
    const c = parseCursor(boardCursor, after);
    where.push(sql`(${boards.title}, ${boards.id}) > (${c.t}, ${c.id})`);
  }
  const rows = await ctx.tx
    .select()
    .from(boards)
    .where(and(...where))
    .orderBy(asc(boards.title), asc(boards.id))
    .limit(n + 1);
  const shown = rows.slice(0, n);
  const last = shown.at(-1);
  return { items: shown.map(leanBoard), next: rows.length > n && last ? { k: "board", t: last.title, id: last.id } : null };
}

async function pageColumns(ctx: RealmContext, filter: Filter, after: CursorState | null, limit: number): Promise<PageOut> {
  const f = parseWith(columnFilter, filter, "filter");
  const n = clampLimit(limit);
  const where: (SQL | undefined)[] = [eq(boardColumns.tenantId, ctx.tenantId), boardVisible(ctx)];
  if (f.board !== undefined) where.push(eq(boardColumns.boardId, (await boardFrom(ctx, f.board)).id));
  if (after) {
    const c = parseCursor(columnCursor, after);
    where.push(sql`(${boardColumns.boardId}, ${boardColumns.position}, ${boardColumns.id}) > (${c.b}, ${c.p}, ${c.id})`);
  }
  const rows = await columnQuery(ctx)
    .where(and(...where))
    .orderBy(asc(boardColumns.boardId), asc(boardColumns.position), asc(boardColumns.id))
    .limit(n + 1);
  const shown = rows.slice(0, n);
  const last = shown.at(-1)?.column;
  return { items: shown.map(leanColumn), next: rows.length > n && last ? { k: "column", b: last.boardId, p: last.position, id: last.id } : null };
}

async function pageCards(ctx: RealmContext, filter: Filter, query: string | null, after: CursorState | null, limit: number): Promise<PageOut> {
  const f = parseWith(cardFilter, filter, "filter");
  const n = clampLimit(limit);
  const where: (SQL | undefined)[] = [eq(boardCards.tenantId, ctx.tenantId), boardVisible(ctx), eq(boardCards.archived, f.archived ?? false)];
  const board = f.board !== undefined ? await boardFrom(ctx, f.board) : null;
  if (board) where.push(eq(boardCards.boardId, board.id));
  if (f.column !== undefined) where.push(eq(boardCards.columnId, (await columnFrom(ctx, f.column, board)).column.id));
  if (f.assignee !== undefined) {
    const [userId] = await memberIds(ctx, [f.assignee], "assignee");
    where.push(sql`${userId} = any(${boardCards.assignees})`);
  }
  if (query !== null) where.push(...termsMatch(sql`(${boardCards.title} || ' ' || ${boardCards.description})`, query));
  if (after) {
    const c = parseCursor(cardCursor, after);
    where.push(
      sql`(${boardCards.boardId}, ${boardColumns.position}, ${boardColumns.id}, ${boardCards.position}, ${boardCards.id}) > (${c.b}, ${c.cp}, ${c.c}, ${c.p}, ${c.id})`,
    );
  }
  const rows = await cardQuery(ctx)
    .where(and(...where))
    .orderBy(asc(boardCards.boardId), asc(boardColumns.position), asc(boardColumns.id), asc(boardCards.position), asc(boardCards.id))
    .limit(n + 1);
  const shown = rows.slice(0, n);
  const last = shown.at(-1);
  return {
    items: shown.map(leanCard),
    next:
      rows.length > n && last
        ? { k: "card", b: last.card.boardId, cp: last.column.position, c: last.column.id, p: last.card.position, id: last.card.id }
        : null,
  };
}

// ---------------------------------------------------------------------------------------------------
// Writing.

const required = (field: string, kind: string) =>
  new AppError("invalid_input", `Invalid fields: ${field}: required to create a ${kind}.`, { details: { issues: [{ path: field, message: "required" }] } });

async function upsertBoard(ctx: RealmContext, ref: string | null, raw: Record<string, unknown>) {
  const fields = parseWith(boardFields, raw, "fields");
  if (ref === null) {
    if (fields.title === undefined) throw required("title", "board");
    const ownerId = authorityOf(ctx.principal);
    const sharedWith = fields.shared_with ? (await peopleAfter(ctx, [], fields.shared_with, "shared_with")).filter((id) => id !== ownerId) : [];
    const [created] = await ctx.tx
      .insert(boards)
      .values({ id: newId("brd"), tenantId: ctx.tenantId, ownerId, sharedWith, title: fields.title, description: fields.description ?? "", createdAt: ctx.now, updatedAt: ctx.now })
      .returning();
    return { ref: refs.make("board", created!.id), created: true, object: await presentBoard(ctx, created!, false) };
  }
  const b = await loadBoard(ctx, ref);
  const changes: Partial<Board> = {};
  if (fields.title !== undefined) changes.title = fields.title;
  if (fields.description !== undefined) changes.description = fields.description;
  if (fields.shared_with !== undefined) {
    // Re-sharing widens who sees the board and everything on it: the owner's decision alone.
    assertDestroyable(aclOf(b), ref, ctx.principal);
    changes.sharedWith = (await peopleAfter(ctx, b.sharedWith, fields.shared_with, "shared_with")).filter((id) => id !== b.ownerId);
  }
  if (!Object.keys(changes).length) return { ref, created: false, object: await presentBoard(ctx, b, false) };
  const [updated] = await ctx.tx
    .update(boards)
    .set({ ...changes, updatedAt: ctx.now })
    .where(and(eq(boards.tenantId, ctx.tenantId), eq(boards.id, b.id)))
    .returning();
  return { ref, created: false, object: await presentBoard(ctx, updated!, false) };
}

async function upsertColumn(ctx: RealmContext, ref: string | null, raw: Record<string, unknown>) {
  const fields = parseWith(columnFields, raw, "fields");
  if (ref === null) {
    if (fields.board === undefined) throw required("board", "column");
    if (fields.title === undefined) throw required("title", "column");
    const board = await boardFrom(ctx, fields.board, "fields.board");
    const id = newId("col");
    await ctx.tx.insert(boardColumns).values({ id, tenantId: ctx.tenantId, boardId: board.id, title: fields.title, position: 0, createdAt: ctx.now, updatedAt: ctx.now });
    await placeColumn(ctx, board.id, id, fields.position ?? null);
    const newRef = refs.make("column", id);
    return { ref: newRef, created: true, object: await presentColumn(ctx, await loadColumn(ctx, newRef), false) };
  }
  const { column, board } = await loadColumn(ctx, ref);
  if (fields.board !== undefined && (await boardFrom(ctx, fields.board, "fields.board")).id !== board.id) {
    throw new AppError("invalid_input", "A column stays on its board; create a new column on the other board instead.", { details: { field: "board" } });
  }
  if (fields.title !== undefined && fields.title !== column.title) {
    await ctx.tx
      .update(boardColumns)
      .set({ title: fields.title, updatedAt: ctx.now })
      .where(and(eq(boardColumns.tenantId, ctx.tenantId), eq(boardColumns.id, column.id)));
  }
  if (fields.position !== undefined) await placeColumn(ctx, board.id, column.id, fields.position);
  return { ref, created: false, object: await presentColumn(ctx, await loadColumn(ctx, ref), false) };
}

type CardChanges = z.infer<typeof cardFields>;

async function createCard(ctx: RealmContext, fields: CardChanges) {
  if (fields.title === undefined) throw required("title", "card");
  if (fields.column === undefined) throw required("column", "card");
  const scope = fields.board !== undefined ? await boardFrom(ctx, fields.board, "fields.board") : null;
  const { column, board } = await columnFrom(ctx, fields.column, scope, "fields.column");
  const id = newId("crd");
  const assignees = fields.assignees ? await peopleAfter(ctx, [], fields.assignees, "assignees") : [];
  const [created] = await ctx.tx
    .insert(boardCards)
    .values({
      id,
      tenantId: ctx.tenantId,
      boardId: board.id,
      columnId: column.id,
      title: fields.title,
      description: fields.description ?? "",
      position: 0,
      assignees,
      archived: fields.archived ?? false,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning();
  if (!created!.archived) {
    await lockBoard(ctx, board.id);
    await renumberCards(ctx, insertAt(await activeCardIds(ctx, column.id, id), id, fields.position ?? null));
  }
  const newRef = refs.make("card", id);
  return { ref: newRef, created: true, object: await presentCard(ctx, await loadCard(ctx, newRef)) };
}

/**
 * Patch a card the caller may read (and so edit): fields, column (within its board), position, archive. `from`
 * names where the changes came from (`fields` for upsert, `payload` for actions) for gateRef.
 */
async function patchCard(ctx: RealmContext, ref: string, fields: CardChanges, from: "fields" | "payload" = "fields"): Promise<Record<string, unknown>> {
  const { card, board } = await loadCard(ctx, ref);
  if (fields.board !== undefined && (await boardFrom(ctx, fields.board, `${from}.board`)).id !== board.id) {
    throw new AppError("invalid_input", "Cards move only within their board.", { details: { field: "board" } });
  }
  const changes: Partial<BoardCard> = {};
  if (fields.title !== undefined) changes.title = fields.title;
  if (fields.description !== undefined) changes.description = fields.description;
  if (fields.column !== undefined) changes.columnId = (await columnFrom(ctx, fields.column, board, `${from}.column`)).column.id;
  if (fields.assignees !== undefined) changes.assignees = await peopleAfter(ctx, card.assignees, fields.assignees, "assignees");
  if (fields.archived !== undefined) changes.archived = fields.archived;
  if (Object.keys(changes).length || fields.position !== undefined) {
    const [after] = await ctx.tx
      .update(boardCards)
      .set({ ...changes, updatedAt: ctx.now })
      .where(and(eq(boardCards.tenantId, ctx.tenantId), eq(boardCards.id, card.id)))
      .returning();
    await settleCard(ctx, card, after!, fields.position ?? null);
  }
  return presentCard(ctx, await loadCard(ctx, ref));
}

// ---------------------------------------------------------------------------------------------------

/** What contains each ref (for scoped grants): column → board; card → column, board. */
async function lineage(ctx: RealmContext, input: { refs: string[] }): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const columns = new Map<string, string>();
  const cards = new Map<string, string>();
  for (const ref of input.refs) {
    out[ref] = [];
    try {
      const { segment, id } = refs.parse(ref);
      if (segment === "column") columns.set(id, ref);
      if (segment === "card") cards.set(id, ref);
    } catch {
      // a malformed ref is contained by nothing
    }
  }
  if (columns.size) {
    for (const r of await ctx.tx.select({ id: boardColumns.id, board: boardColumns.boardId }).from(boardColumns).where(and(eq(boardColumns.tenantId, ctx.tenantId), inArray(boardColumns.id, [...columns.keys()])))) {
      out[columns.get(r.id)!] = [refs.make("board", r.board)];
    }
  }
  if (cards.size) {
    const rows = await ctx.tx
      .select({ id: boardCards.id, column: boardCards.columnId, board: boardCards.boardId })
      .from(boardCards)
      .where(and(eq(boardCards.tenantId, ctx.tenantId), inArray(boardCards.id, [...cards.keys()])));
    for (const r of rows) out[cards.get(r.id)!] = [refs.make("column", r.column), refs.make("board", r.board)];
  }
  return out;
}

/**
 * Refs as a person reads them, with the caller's authority: a column and a card are visible when their board is.
 * One query per kind named, whatever the number of refs; invisible, missing or malformed refs are null.
 */
async function describeRefs(ctx: RealmContext, input: string[]): Promise<Record<string, RefDescription | null>> {
  const out: Record<string, RefDescription | null> = {};
  const ids: Record<Segment, Map<string, string>> = { board: new Map(), column: new Map(), card: new Map() };
  for (const ref of input) {
    out[ref] = null;
    try {
      const { segment, id } = refs.parse(ref);
      ids[segment].set(id, ref);
    } catch {
      // a malformed ref names nothing
    }
  }
  if (ids.board.size) {
    const rows = await ctx.tx
      .select({ board: boards, ownerName: users.name })
      .from(boards)
      .innerJoin(users, eq(users.id, boards.ownerId))
      .where(and(boardVisible(ctx), inArray(boards.id, [...ids.board.keys()])));
    for (const { board, ownerName } of rows) out[ids.board.get(board.id)!] = { kind: "board.board", label: board.title, summary: `board of ${ownerName}`, lineage: [] };
  }
  if (ids.column.size) {
    const rows = await columnQuery(ctx).where(and(eq(boardColumns.tenantId, ctx.tenantId), boardVisible(ctx), inArray(boardColumns.id, [...ids.column.keys()])));
    for (const { column, board } of rows) {
      out[ids.column.get(column.id)!] = { kind: "board.column", label: column.title, summary: `column on “${board.title}”`, lineage: [refs.make("board", board.id)] };
    }
  }
  if (ids.card.size) {
    const rows = await cardQuery(ctx).where(and(eq(boardCards.tenantId, ctx.tenantId), boardVisible(ctx), inArray(boardCards.id, [...ids.card.keys()])));
    for (const { card, column, board } of rows) {
      out[ids.card.get(card.id)!] = {
        kind: "board.card",
        label: card.title,
        summary: `${card.archived ? "archived " : ""}card in “${column.title}” on “${board.title}”`,
        lineage: [refs.make("column", column.id), refs.make("board", board.id)],
      };
    }
  }
  return out;
}

export const adapter: RealmAdapter = {
  lineage,
  parseRef(ref) {
    return { kind: refs.parse(ref).kind };
  },
  describeRefs,
  async list(ctx, input) {
    switch (segmentOf(input.kind)) {
      case "board":
        parseWith(boardFilter, input.filter, "filter");
        return pageBoards(ctx, [], input.after, input.limit);
      case "column":
        return pageColumns(ctx, input.filter, input.after, input.limit);
      case "card":
        return pageCards(ctx, input.filter, null, input.after, input.limit);
    }
  },

  async search(ctx, input) {
    switch (segmentOf(input.kind)) {
      case "board":
        parseWith(boardFilter, input.filter, "filter");
        return pageBoards(ctx, termsMatch(sql`(${boards.title} || ' ' || ${boards.description})`, input.query), input.after, input.limit);
      case "column":
        return unsupported("board.column", "object.search");
      case "card":
        return pageCards(ctx, input.filter, input.query, input.after, input.limit);
    }
  },

  async get(ctx, input) {
    switch (refs.parse(input.ref).segment) {
      case "board":
        return presentBoard(ctx, await loadBoard(ctx, input.ref), input.full);
      case "column":
        return presentColumn(ctx, await loadColumn(ctx, input.ref), input.full);
      case "card":
        return presentCard(ctx, await loadCard(ctx, input.ref));
    }
  },

  async action(ctx, input) {
    if (input.ref === null) throw new AppError("invalid_input", `${input.action.name} needs the ref of a board.card.`);
    idOf(input.ref, "card");
    switch (input.action.name) {
      case "move_card": {
        const { column, position } = parseWith(moveCardPayload, input.payload, "payload");
        return patchCard(ctx, input.ref, { column, position }, "payload");
      }
      case "assign": {
        const { add, remove } = parseWith(assignPayload, input.payload, "payload");
        return patchCard(ctx, input.ref, { assignees: { add, remove } }, "payload");
      }
      case "archive": {
        const { archived } = parseWith(archivePayload, input.payload, "payload");
        return patchCard(ctx, input.ref, { archived }, "payload");
      }
      default:
        return unsupported("board.card", `the action ${input.action.name}`);
    }
  },

  async upsert(ctx, input) {
    const segment = segmentOf(input.kind);
    if (input.ref !== null) idOf(input.ref, segment);
    switch (segment) {
      case "board":
        return upsertBoard(ctx, input.ref, input.fields);
      case "column":
        return upsertColumn(ctx, input.ref, input.fields);
      case "card": {
        const fields = parseWith(cardFields, input.fields, "fields");
        if (input.ref === null) return createCard(ctx, fields);
        return { ref: input.ref, created: false, object: await patchCard(ctx, input.ref, fields) };
      }
    }
  },

  async delete(ctx, input) {
    switch (refs.parse(input.ref).segment) {
      case "board": {
        const b = await loadBoard(ctx, input.ref);
        assertDestroyable(aclOf(b), input.ref, ctx.principal);
        // Its columns and cards go with it (foreign keys cascade).
        await ctx.tx.delete(boards).where(and(eq(boards.tenantId, ctx.tenantId), eq(boards.id, b.id)));
        break;
      }
      case "column": {
        const { column, board } = await loadColumn(ctx, input.ref);
        assertDestroyable(aclOf(board), input.ref, ctx.principal);
        await lockBoard(ctx, board.id);
        await ctx.tx.delete(boardColumns).where(and(eq(boardColumns.tenantId, ctx.tenantId), eq(boardColumns.id, column.id)));
        await renumberColumns(ctx, await columnIds(ctx, board.id, null));
        break;
      }
      case "card": {
        const { card, board } = await loadCard(ctx, input.ref);
        assertDestroyable(aclOf(board), input.ref, ctx.principal);
        await lockBoard(ctx, board.id);
        await ctx.tx.delete(boardCards).where(and(eq(boardCards.tenantId, ctx.tenantId), eq(boardCards.id, card.id)));
        if (!card.archived) await renumberCards(ctx, await activeCardIds(ctx, card.columnId, null));
        break;
      }
    }
    return { ref: input.ref, deleted: true };
  },

  async hostFile() {
    throw new AppError("invalid_input", "board does not support file.host");
  },

  async resolve(ctx, input): Promise<ResolveResult> {
    const answer = (items: LeanItem[], what: string, selector: Record<string, string>): ResolveResult => {
      if (items.length === 0) throw noMatch(what, selector);
      return items.length === 1 ? { ref: items[0]!.ref } : { choices: items.slice(0, MAX_CHOICES) };
    };
    switch (segmentOf(input.kind)) {
      case "board": {
        const s = parseWith(boardSelector, input.selector, "selector");
        return answer((await findBoards(ctx, s.title)).map(leanBoard), "board", input.selector);
      }
      case "column": {
        const s = parseWith(columnSelector, input.selector, "selector");
        const board = s.board !== undefined ? await boardFrom(ctx, s.board) : null;
        return answer((await findColumns(ctx, s.title, board?.id ?? null)).map(leanColumn), "column", input.selector);
      }
      case "card": {
        const s = parseWith(cardSelector, input.selector, "selector");
        const board = s.board !== undefined ? await boardFrom(ctx, s.board) : null;
        const column = s.column !== undefined ? (await columnFrom(ctx, s.column, board)).column : null;
        const found = await findCards(ctx, s.title, { boardId: board?.id, columnId: column?.id });
        return answer(found.map(leanCard), "card", input.selector);
      }
    }
  },
};
