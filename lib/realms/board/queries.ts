// What the board's kinds share: visibility (a column and a card follow their board's ACL), loading one object,
// lean items, and turning a board or column named by ref or title into the object.
import { and, asc, count, eq, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { boardCards, boardColumns, boards, type Board, type BoardCard, type BoardColumn } from "@/db/schema/board";
import { AppError } from "@/lib/errors";
import type { LeanItem, RealmContext } from "@/lib/realms/contract";
import { readable, type AclFields } from "@/lib/realms/native/acl";
import { decide, MAX_CHOICES, pickOne, withinGrant } from "@/lib/realms/native/kind";
import { emailList, emailsOf } from "@/lib/realms/native/people";
import { inTenant, ownedOrShared, termsMatch } from "@/lib/realms/native/sql";
import { preview } from "@/lib/realms/native/text";
import { isRef, refs } from "./refs";

export type ColumnIn = { column: BoardColumn; board: Board };
export type CardIn = { card: BoardCard; column: BoardColumn; board: Board };

export const title = z.string().trim().min(1).max(200);
export const description = z.string().trim().max(20_000);
export const nameOrRef = z.string().trim().min(1).max(200);
export const position = z.number().int().min(0).max(10_000);

export const aclOf = (b: Board): AclFields => ({ ownerId: b.ownerId, sharedWith: b.sharedWith });
/** Boards the caller may read: in the tenant, owned by or shared with the call's authority. */
export const boardVisible = (ctx: RealmContext): SQL => ownedOrShared(ctx, boards);

/** Columns joined to their board, in the call's tenant. */
export function columnQuery(ctx: RealmContext) {
  return ctx.tx
    .select({ column: boardColumns, board: boards })
    .from(boardColumns)
    .innerJoin(boards, and(eq(boards.id, boardColumns.boardId), eq(boards.tenantId, ctx.tenantId)));
}

/** Cards joined to their column and board, all in the call's tenant. */
export function cardQuery(ctx: RealmContext) {
  return ctx.tx
    .select({ card: boardCards, column: boardColumns, board: boards })
    .from(boardCards)
    .innerJoin(boardColumns, and(eq(boardColumns.id, boardCards.columnId), eq(boardColumns.tenantId, ctx.tenantId)))
    .innerJoin(boards, and(eq(boards.id, boardCards.boardId), eq(boards.tenantId, ctx.tenantId)));
}

export const loadBoard = readable(
  (ref) => refs.idOf(ref, "board"),
  async (ctx, id) => (await ctx.tx.select().from(boards).where(inTenant(ctx, boards, id)))[0],
  aclOf,
);
export const loadColumn = readable(
  (ref) => refs.idOf(ref, "column"),
  async (ctx, id): Promise<ColumnIn | undefined> => (await columnQuery(ctx).where(inTenant(ctx, boardColumns, id)))[0],
  (row) => aclOf(row.board),
);
export const loadCard = readable(
  (ref) => refs.idOf(ref, "card"),
  async (ctx, id): Promise<CardIn | undefined> => (await cardQuery(ctx).where(inTenant(ctx, boardCards, id)))[0],
  (row) => aclOf(row.board),
);

export function leanBoard(b: Board): LeanItem {
  return { ref: refs.make("board", b.id), kind: "board.board", label: b.title, summary: preview(b.description, 120), updated_at: b.updatedAt.toISOString() };
}

export function leanColumn({ column, board }: ColumnIn): LeanItem {
  return { ref: refs.make("column", column.id), kind: "board.column", label: column.title, summary: `column ${column.position + 1} of “${board.title}”`, updated_at: column.updatedAt.toISOString() };
}

export function leanCard({ card, column, board }: CardIn): LeanItem {
  const parts = [`${board.title} › ${column.title}`];
  if (card.assignees.length) parts.push(`${card.assignees.length} assignee${card.assignees.length > 1 ? "s" : ""}`);
  if (card.archived) parts.push("archived");
  return { ref: refs.make("card", card.id), kind: "board.card", label: card.title, summary: parts.join(" · "), updated_at: card.updatedAt.toISOString() };
}

// ---------------------------------------------------------------------------------------------------
// Selectors: exact title (case-insensitive) first; only when none matches, titles containing the words.

async function byTitle<T>(title: string, column: SQL, run: (match: SQL) => Promise<T[]>): Promise<T[]> {
  const words = termsMatch(sql`${column}`, title);
  return decide(
    () => run(sql`lower(${column}) = lower(${title})`),
    async () => (words.length ? run(and(...words)!) : []),
  );
}

export async function findBoards(ctx: RealmContext, title: string): Promise<Board[]> {
  return byTitle(title, sql`${boards.title}`, (match) =>
    ctx.tx
      .select()
      .from(boards)
      .where(and(boardVisible(ctx), match))
      .orderBy(asc(boards.title), asc(boards.id))
      .limit(MAX_CHOICES + 1),
  );
}

export async function findColumns(ctx: RealmContext, title: string, boardId: string | null): Promise<ColumnIn[]> {
  return byTitle(title, sql`${boardColumns.title}`, (match) =>
    columnQuery(ctx)
      .where(and(eq(boardColumns.tenantId, ctx.tenantId), boardVisible(ctx), boardId ? eq(boardColumns.boardId, boardId) : undefined, match))
      .orderBy(asc(boardColumns.boardId), asc(boardColumns.position), asc(boardColumns.id))
      .limit(MAX_CHOICES + 1),
  );
}

export async function findCards(ctx: RealmContext, title: string, scope: { boardId?: string; columnId?: string }): Promise<CardIn[]> {
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
export async function boardFrom(ctx: RealmContext, value: string, gate?: string): Promise<Board> {
  if (isRef(value)) {
    await refs.gate(ctx, value, "board", gate);
    return loadBoard(ctx, value);
  }
  const reachable = withinGrant(ctx, await findBoards(ctx, value), (b) => refs.make("board", b.id));
  const found = pickOne(reachable, leanBoard, { one: "board", many: "boards" }, { title: value });
  if (gate) await ctx.gateRef(refs.make("board", found.id), gate);
  return found;
}

/** A column named by ref or title (within `board` when given); several titles match → ambiguous_selector. `gate` as for boardFrom. */
export async function columnFrom(ctx: RealmContext, value: string, board: Board | null, gate?: string): Promise<ColumnIn> {
  if (isRef(value)) {
    await refs.gate(ctx, value, "column", gate);
    const found = await loadColumn(ctx, value);
    if (board && found.board.id !== board.id) {
      throw new AppError("invalid_input", `Column ${value} is on board “${found.board.title}”, not “${board.title}”.`, { details: { column: value } });
    }
    return found;
  }
  const selector: Record<string, string> = board ? { title: value, board: refs.make("board", board.id) } : { title: value };
  const reachable = withinGrant(
    ctx,
    await findColumns(ctx, value, board?.id ?? null),
    (c) => refs.make("column", c.column.id),
    (c) => [refs.make("board", c.board.id)],
  );
  if (!reachable.length && board) throw await noColumnOnBoard(ctx, value, board, selector, gate);
  const found = pickOne(reachable, leanColumn, { one: "column", many: "columns" }, selector);
  if (gate) await ctx.gateRef(refs.make("column", found.column.id), gate);
  return found;
}

/**
 * No column of a board the caller reached has that title: not_found naming the field it came from and the board,
 * with the board's columns within the grant as the choices (the caller can already read that board), so the next
 * call can name one.
 */
async function noColumnOnBoard(ctx: RealmContext, value: string, board: Board, selector: Record<string, string>, where?: string): Promise<AppError> {
  const scope = ctx.grantScope?.refs;
  const columns = (
    await columnQuery(ctx)
      .where(and(eq(boardColumns.tenantId, ctx.tenantId), eq(boardColumns.boardId, board.id)))
      .orderBy(asc(boardColumns.position), asc(boardColumns.id))
      .limit(MAX_CHOICES)
  ).filter((c) => !scope || scope.includes(refs.make("column", c.column.id)) || scope.includes(refs.make("board", board.id)));
  const names = columns.map((c) => `“${c.column.title}”`).join(", ");
  return new AppError("not_found", `No column “${value.slice(0, 80)}” on board “${board.title}”${names ? `: its columns are ${names}` : ""}.`, {
    details: { selector, ...(where ? { where } : {}), choices: columns.map(leanColumn) },
  });
}

// ---------------------------------------------------------------------------------------------------
// Cards as boards and columns show them.

export async function cardCounts(ctx: RealmContext, where: SQL): Promise<Map<string, number>> {
  const rows = await ctx.tx
    .select({ columnId: boardCards.columnId, n: count() })
    .from(boardCards)
    .where(and(eq(boardCards.tenantId, ctx.tenantId), eq(boardCards.archived, false), where))
    .groupBy(boardCards.columnId);
  return new Map(rows.map((r) => [r.columnId, Number(r.n)]));
}

/** Active cards (compact) grouped by column, for `full` reads. */
export async function cardsByColumn(ctx: RealmContext, where: SQL): Promise<Map<string, Record<string, unknown>[]>> {
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
    list.push({ ref: refs.make("card", c.id), title: c.title, position: c.position, assignees: emailList(emails, c.assignees) });
    out.set(c.columnId, list);
  }
  return out;
}
