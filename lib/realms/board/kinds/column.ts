// board.column: a column of a board, in board order. Follows its board's ACL.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { boardCards, boardColumns } from "@/db/schema/board";
import { AppError } from "@/lib/errors";
import type { RealmContext } from "@/lib/realms/contract";
import { assertOwner } from "@/lib/realms/native/acl";
import { defineKind, pageOf, requiredField } from "@/lib/realms/native/kind";
import { placeColumn, lockBoard, renumberColumns, columnIds } from "../positions";
import { aclOf, boardFrom, boardVisible, cardCounts, cardsByColumn, columnQuery, findColumns, leanColumn, loadColumn, nameOrRef, position, title, type ColumnIn } from "../queries";
import { refs } from "../refs";
import { inTenant } from "@/lib/realms/native/sql";

const fields = z.strictObject({ board: nameOrRef.optional(), title: title.optional(), position: position.optional() });
const cursor = z.strictObject({ b: z.string().max(40), p: z.number().int(), id: z.string().max(40) });

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

export const columnKind = defineKind({
  noun: "column",
  schemas: {
    create: fields,
    patch: fields,
    filter: z.strictObject({ board: nameOrRef.optional() }),
    selector: z.strictObject({ title, board: nameOrRef.optional() }),
  },
  cursor,
  load: loadColumn,
  present: presentColumn,

  async page(ctx, { filter: f, after: c, limit: n }) {
    const where = [eq(boardColumns.tenantId, ctx.tenantId), boardVisible(ctx)];
    if (f.board !== undefined) where.push(eq(boardColumns.boardId, (await boardFrom(ctx, f.board)).id));
    if (c) where.push(sql`(${boardColumns.boardId}, ${boardColumns.position}, ${boardColumns.id}) > (${c.b}, ${c.p}, ${c.id})`);
    const rows = await columnQuery(ctx)
      .where(and(...where))
      .orderBy(asc(boardColumns.boardId), asc(boardColumns.position), asc(boardColumns.id))
      .limit(n + 1);
    return pageOf(rows, n, leanColumn, ({ column: last }) => ({ b: last.boardId, p: last.position, id: last.id }));
  },

  async create(ctx, f) {
    if (f.board === undefined) throw requiredField("board", "a column");
    if (f.title === undefined) throw requiredField("title", "a column");
    const board = await boardFrom(ctx, f.board, "fields.board");
    const id = refs.newId("column");
    await ctx.tx.insert(boardColumns).values({ id, tenantId: ctx.tenantId, boardId: board.id, title: f.title, position: 0, createdAt: ctx.now, updatedAt: ctx.now });
    await placeColumn(ctx, board.id, id, f.position ?? null);
    const ref = refs.make("column", id);
    return { ref, object: await presentColumn(ctx, await loadColumn(ctx, ref), false) };
  },

  async patch(ctx, ref, f) {
    const { column, board } = await loadColumn(ctx, ref);
    if (f.board !== undefined && (await boardFrom(ctx, f.board, "fields.board")).id !== board.id) {
      throw new AppError("invalid_input", "A column stays on its board; create a new column on the other board instead.", { details: { field: "board" } });
    }
    if (f.title !== undefined && f.title !== column.title) {
      await ctx.tx
        .update(boardColumns)
        .set({ title: f.title, updatedAt: ctx.now })
        .where(inTenant(ctx, boardColumns, column.id));
    }
    if (f.position !== undefined) await placeColumn(ctx, board.id, column.id, f.position);
    return presentColumn(ctx, await loadColumn(ctx, ref), false);
  },

  async delete(ctx, { column, board }, ref) {
    assertOwner(aclOf(board), ref, ctx);
    await lockBoard(ctx, board.id);
    await ctx.tx.delete(boardColumns).where(inTenant(ctx, boardColumns, column.id));
    await renumberColumns(ctx, await columnIds(ctx, board.id, null));
  },

  async resolve(ctx, s) {
    const board = s.board !== undefined ? await boardFrom(ctx, s.board) : null;
    return (await findColumns(ctx, s.title, board?.id ?? null)).map(leanColumn);
  },

  async describe(ctx, ids) {
    const rows = await columnQuery(ctx).where(and(eq(boardColumns.tenantId, ctx.tenantId), boardVisible(ctx), inArray(boardColumns.id, ids)));
    return new Map(rows.map(({ column, board }) => [column.id, { label: column.title, summary: `column on “${board.title}”`, lineage: [refs.make("board", board.id)] }]));
  },

  async lineage(ctx, ids) {
    const rows = await ctx.tx
      .select({ id: boardColumns.id, board: boardColumns.boardId })
      .from(boardColumns)
      .where(and(eq(boardColumns.tenantId, ctx.tenantId), inArray(boardColumns.id, ids)));
    return new Map(rows.map((r) => [r.id, [refs.make("board", r.board)]]));
  },
});

