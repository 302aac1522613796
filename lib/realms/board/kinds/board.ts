// board.board: a board of ordered columns, owned by one person and shared with others. Listed by title.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { users } from "@/db/schema";
import { boardColumns, boardCards, boards, type Board } from "@/db/schema/board";
import { authorityOf, type RealmContext } from "@/lib/realms/contract";
import { assertOwner } from "@/lib/realms/native/acl";
import { defineKind, pageOf, requiredField } from "@/lib/realms/native/kind";
import { emailList, emailsOf, peoplePatch, sharedWithAfter } from "@/lib/realms/native/people";
import { inTenant, termsMatch } from "@/lib/realms/native/sql";
import { aclOf, boardVisible, cardCounts, cardsByColumn, description, findBoards, leanBoard, loadBoard, title } from "../queries";
import { refs } from "../refs";

const fields = z.strictObject({ title: title.optional(), description: description.optional(), shared_with: peoplePatch().optional() });
const cursor = z.strictObject({ t: z.string().max(200), id: z.string().max(40) });

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
    shared_with: emailList(emails, b.sharedWith),
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

export const boardKind = defineKind({
  noun: "board",
  schemas: { create: fields, patch: fields, filter: z.strictObject({}), selector: z.strictObject({ title }) },
  cursor,
  load: loadBoard,
  present: presentBoard,
  searchable: true,

  async page(ctx, { query, after: c, limit: n }) {
    const where = [boardVisible(ctx), ...(query === null ? [] : termsMatch(sql`(${boards.title} || ' ' || ${boards.description})`, query))];
    if (c) where.push(sql`(${boards.title}, ${boards.id}) > (${c.t}, ${c.id})`);
    const rows = await ctx.tx
      .select()
      .from(boards)
      .where(and(...where))
      .orderBy(asc(boards.title), asc(boards.id))
      .limit(n + 1);
    return pageOf(rows, n, leanBoard, (last) => ({ t: last.title, id: last.id }));
  },

  async create(ctx, f) {
    if (f.title === undefined) throw requiredField("title", "a board");
    const ownerId = authorityOf(ctx.principal);
    const sharedWith = f.shared_with ? await sharedWithAfter(ctx, [], ownerId, f.shared_with) : [];
    const [created] = await ctx.tx
      .insert(boards)
      .values({ id: refs.newId("board"), tenantId: ctx.tenantId, ownerId, sharedWith, title: f.title, description: f.description ?? "", createdAt: ctx.now, updatedAt: ctx.now })
      .returning();
    return { ref: refs.make("board", created!.id), object: await presentBoard(ctx, created!, false) };
  },

  async patch(ctx, ref, f) {
    const b = await loadBoard(ctx, ref);
    const changes: Partial<Board> = {};
    if (f.title !== undefined) changes.title = f.title;
    if (f.description !== undefined) changes.description = f.description;
    if (f.shared_with !== undefined) {
      // Re-sharing widens who sees the board and everything on it: the owner's decision alone.
      assertOwner(aclOf(b), ref, ctx);
      changes.sharedWith = await sharedWithAfter(ctx, b.sharedWith, b.ownerId, f.shared_with);
    }
    if (!Object.keys(changes).length) return presentBoard(ctx, b, false);
    const [updated] = await ctx.tx
      .update(boards)
      .set({ ...changes, updatedAt: ctx.now })
      .where(inTenant(ctx, boards, b.id))
      .returning();
    return presentBoard(ctx, updated!, false);
  },

  async delete(ctx, b, ref) {
    assertOwner(aclOf(b), ref, ctx);
    // Its columns and cards go with it (foreign keys cascade).
    await ctx.tx.delete(boards).where(inTenant(ctx, boards, b.id));
  },

  resolve: async (ctx, s) => (await findBoards(ctx, s.title)).map(leanBoard),

  async describe(ctx, ids) {
    const rows = await ctx.tx
      .select({ board: boards, ownerName: users.name })
      .from(boards)
      .innerJoin(users, eq(users.id, boards.ownerId))
      .where(and(boardVisible(ctx), inArray(boards.id, ids)));
    return new Map(rows.map(({ board, ownerName }) => [board.id, { label: board.title, summary: `board of ${ownerName}`, lineage: [] }]));
  },
});
