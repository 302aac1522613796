// Positions on a board: 0-based and dense, per board (columns) and per column (active cards). Reorders on one
// board are serialized by locking the board row for the rest of the call's transaction.
import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import { boardCards, boardColumns, boards, type BoardCard } from "@/db/schema/board";
import type { RealmContext } from "@/lib/realms/contract";
import { inTenant, sqlTextArray } from "@/lib/realms/native/sql";

export async function lockBoard(ctx: RealmContext, boardId: string): Promise<void> {
  await ctx.tx
    .select({ id: boards.id })
    .from(boards)
    .where(inTenant(ctx, boards, boardId))
    .for("update");
}

export async function activeCardIds(ctx: RealmContext, columnId: string, except: string | null): Promise<string[]> {
  const rows = await ctx.tx
    .select({ id: boardCards.id })
    .from(boardCards)
    .where(and(eq(boardCards.tenantId, ctx.tenantId), eq(boardCards.columnId, columnId), eq(boardCards.archived, false), except ? ne(boardCards.id, except) : undefined))
    .orderBy(asc(boardCards.position), asc(boardCards.id));
  return rows.map((r) => r.id);
}

export async function columnIds(ctx: RealmContext, boardId: string, except: string | null): Promise<string[]> {
  const rows = await ctx.tx
    .select({ id: boardColumns.id })
    .from(boardColumns)
    .where(and(eq(boardColumns.tenantId, ctx.tenantId), eq(boardColumns.boardId, boardId), except ? ne(boardColumns.id, except) : undefined))
    .orderBy(asc(boardColumns.position), asc(boardColumns.id));
  return rows.map((r) => r.id);
}

/** Each id's position becomes its index in `ordered`, in one statement. */
export async function renumberCards(ctx: RealmContext, ordered: string[]): Promise<void> {
  if (!ordered.length) return;
  await ctx.tx
    .update(boardCards)
    .set({ position: sql`array_position(${sqlTextArray(ordered)}, ${boardCards.id}) - 1` })
    .where(and(eq(boardCards.tenantId, ctx.tenantId), inArray(boardCards.id, ordered)));
}

export async function renumberColumns(ctx: RealmContext, ordered: string[]): Promise<void> {
  if (!ordered.length) return;
  await ctx.tx
    .update(boardColumns)
    .set({ position: sql`array_position(${sqlTextArray(ordered)}, ${boardColumns.id}) - 1` })
    .where(and(eq(boardColumns.tenantId, ctx.tenantId), inArray(boardColumns.id, ordered)));
}

export const insertAt = (ids: string[], id: string, at: number | null) => {
  const out = [...ids];
  out.splice(at === null ? out.length : Math.min(at, out.length), 0, id);
  return out;
};

export async function placeColumn(ctx: RealmContext, boardId: string, columnId: string, at: number | null): Promise<void> {
  await lockBoard(ctx, boardId);
  await renumberColumns(ctx, insertAt(await columnIds(ctx, boardId, columnId), columnId, at));
}

/**
 * After a card changed (`before` → `after`): close the gap it left in an old column, and put it at `at`
 * (default: the end) among its column's active cards when it moved, came back from the archive or was
 * given a position. Archived cards hold no place.
 */
export async function settleCard(ctx: RealmContext, before: BoardCard, after: BoardCard, at: number | null): Promise<void> {
  const moved = before.columnId !== after.columnId;
  const leaves = !before.archived && (moved || after.archived);
  const enters = !after.archived && (moved || before.archived || at !== null);
  if (!leaves && !enters) return;
  await lockBoard(ctx, after.boardId);
  if (leaves) await renumberCards(ctx, await activeCardIds(ctx, before.columnId, after.id));
  if (enters) await renumberCards(ctx, insertAt(await activeCardIds(ctx, after.columnId, after.id), after.id, at));
}
