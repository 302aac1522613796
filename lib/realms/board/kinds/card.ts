// board.card: a piece of work in a column; archived cards leave the column but stay readable.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { boardCards, boardColumns, type BoardCard } from "@/db/schema/board";
import { AppError } from "@/lib/errors";
import type { RealmContext } from "@/lib/realms/contract";
import { assertOwner } from "@/lib/realms/native/acl";
import { defineKind, pageOf, requiredField } from "@/lib/realms/native/kind";
import { emailList, emailsOf, memberIds, peopleAfter, peoplePatch, person } from "@/lib/realms/native/people";
import { inTenant, termsMatch } from "@/lib/realms/native/sql";
import { activeCardIds, insertAt, lockBoard, renumberCards, settleCard } from "../positions";
import { aclOf, boardFrom, boardVisible, cardQuery, columnFrom, description, findCards, leanCard, loadCard, nameOrRef, position, title, type CardIn } from "../queries";
import { refs } from "../refs";

const fields = z.strictObject({
  title: title.optional(),
  description: description.optional(),
  column: nameOrRef.optional(),
  board: nameOrRef.optional(),
  position: position.optional(),
  assignees: peoplePatch().optional(),
  archived: z.boolean().optional(),
});
export type CardChanges = z.infer<typeof fields>;

const boolFilter = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
const filter = z.strictObject({ board: nameOrRef.optional(), column: nameOrRef.optional(), assignee: person.optional(), archived: boolFilter.optional() });
const cursor = z.strictObject({ b: z.string().max(40), cp: z.number().int(), c: z.string().max(40), p: z.number().int(), id: z.string().max(40) });

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
    assignees: emailList(emails, card.assignees),
    archived: card.archived,
    created_at: card.createdAt.toISOString(),
    updated_at: card.updatedAt.toISOString(),
  };
}

/**
 * Patch a card the caller may read (and so edit): fields, column (within its board), position, archive. `from`
 * names where the changes came from (`fields` for upsert, `payload` for actions) for gateRef.
 */
export async function patchCard(ctx: RealmContext, ref: string, fields: CardChanges, from: "fields" | "payload" = "fields"): Promise<Record<string, unknown>> {
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
      .where(inTenant(ctx, boardCards, card.id))
      .returning();
    await settleCard(ctx, card, after!, fields.position ?? null);
  }
  return presentCard(ctx, await loadCard(ctx, ref));
}

export const cardKind = defineKind({
  noun: "card",
  schemas: { create: fields, patch: fields, filter, selector: z.strictObject({ title, board: nameOrRef.optional(), column: nameOrRef.optional() }) },
  cursor,
  load: loadCard,
  present: presentCard,
  searchable: true,

  async page(ctx, { filter: f, query, after: c, limit: n }) {
    const where = [eq(boardCards.tenantId, ctx.tenantId), boardVisible(ctx), eq(boardCards.archived, f.archived ?? false)];
    const board = f.board !== undefined ? await boardFrom(ctx, f.board) : null;
    if (board) where.push(eq(boardCards.boardId, board.id));
    if (f.column !== undefined) where.push(eq(boardCards.columnId, (await columnFrom(ctx, f.column, board)).column.id));
    if (f.assignee !== undefined) {
      const [userId] = await memberIds(ctx, [f.assignee], "assignee");
      where.push(sql`${userId} = any(${boardCards.assignees})`);
    }
    if (query !== null) where.push(...termsMatch(sql`(${boardCards.title} || ' ' || ${boardCards.description})`, query));
    if (c) {
      where.push(sql`(${boardCards.boardId}, ${boardColumns.position}, ${boardColumns.id}, ${boardCards.position}, ${boardCards.id}) > (${c.b}, ${c.cp}, ${c.c}, ${c.p}, ${c.id})`);
    }
    const rows = await cardQuery(ctx)
      .where(and(...where))
      .orderBy(asc(boardCards.boardId), asc(boardColumns.position), asc(boardColumns.id), asc(boardCards.position), asc(boardCards.id))
      .limit(n + 1);
    return pageOf(rows, n, leanCard, ({ card, column }) => ({ b: card.boardId, cp: column.position, c: column.id, p: card.position, id: card.id }));
  },

  async create(ctx, f) {
    if (f.title === undefined) throw requiredField("title", "a card");
    if (f.column === undefined) throw requiredField("column", "a card");
    const scope = f.board !== undefined ? await boardFrom(ctx, f.board, "fields.board") : null;
    const { column, board } = await columnFrom(ctx, f.column, scope, "fields.column");
    const id = refs.newId("card");
    const assignees = f.assignees ? await peopleAfter(ctx, [], f.assignees, "assignees") : [];
    const [created] = await ctx.tx
      .insert(boardCards)
      .values({
        id,
        tenantId: ctx.tenantId,
        boardId: board.id,
        columnId: column.id,
        title: f.title,
        description: f.description ?? "",
        position: 0,
        assignees,
        archived: f.archived ?? false,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    if (!created!.archived) {
      await lockBoard(ctx, board.id);
      await renumberCards(ctx, insertAt(await activeCardIds(ctx, column.id, id), id, f.position ?? null));
    }
    const ref = refs.make("card", id);
    return { ref, object: await presentCard(ctx, await loadCard(ctx, ref)) };
  },

  patch: (ctx, ref, f) => patchCard(ctx, ref, f),

  async delete(ctx, { card, board }, ref) {
    assertOwner(aclOf(board), ref, ctx);
    await lockBoard(ctx, board.id);
    await ctx.tx.delete(boardCards).where(inTenant(ctx, boardCards, card.id));
    if (!card.archived) await renumberCards(ctx, await activeCardIds(ctx, card.columnId, null));
  },

  async resolve(ctx, s) {
    const board = s.board !== undefined ? await boardFrom(ctx, s.board) : null;
    const column = s.column !== undefined ? (await columnFrom(ctx, s.column, board)).column : null;
    return (await findCards(ctx, s.title, { boardId: board?.id, columnId: column?.id })).map(leanCard);
  },

  async describe(ctx, ids) {
    const rows = await cardQuery(ctx).where(and(eq(boardCards.tenantId, ctx.tenantId), boardVisible(ctx), inArray(boardCards.id, ids)));
    return new Map(
      rows.map(({ card, column, board }) => [
        card.id,
        {
          label: card.title,
          summary: `${card.archived ? "archived " : ""}card in “${column.title}” on “${board.title}”`,
          lineage: [refs.make("column", column.id), refs.make("board", board.id)],
        },
      ]),
    );
  },

  async lineage(ctx, ids) {
    const rows = await ctx.tx
      .select({ id: boardCards.id, column: boardCards.columnId, board: boardCards.boardId })
      .from(boardCards)
      .where(and(eq(boardCards.tenantId, ctx.tenantId), inArray(boardCards.id, ids)));
    return new Map(rows.map((r) => [r.id, [refs.make("column", r.column), refs.make("board", r.board)]]));
  },
});
