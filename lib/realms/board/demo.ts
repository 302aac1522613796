// Demo data for the board realm: alice's "Launch plan" board (shared with bob, who has a card) with
// To do / Doing / Done and four cards. Runs on every start, so each board, column and card is found by
// its title before anything is inserted.
import { and, eq } from "drizzle-orm";
import type { DemoSeedStep } from "@/db/seed";
import { boardCards, boardColumns, boards } from "@/db/schema/board";
import { refs } from "./refs";

const BOARD = { title: "Launch plan", description: "Everything that has to happen before the public launch." };
const COLUMNS = ["To do", "Doing", "Done"] as const;
const CARDS: { title: string; description: string; column: (typeof COLUMNS)[number]; assignee?: "bob" }[] = [
  { title: "Write the press release", description: "One page, with a quote from Alice.", column: "To do", assignee: "bob" },
  { title: "Book the launch venue", description: "Around 80 people, near the office.", column: "To do" },
  { title: "Finish the pricing page", description: "Three plans; yearly billing shows the discount.", column: "Doing" },
  { title: "Pick the launch date", description: "Avoid the week of the trade fair.", column: "Done" },
];

export const seedDemo: DemoSeedStep = async (db, demo) => {
  const tenantId = demo.tenant.id;
  const alice = demo.users.alice;
  const bob = demo.users.bob;
  if (!alice || !bob) throw new Error("The board demo needs the demo users alice and bob.");
  await db.transaction(async (tx) => {
    let [board] = await tx
      .select()
      .from(boards)
      .where(and(eq(boards.tenantId, tenantId), eq(boards.ownerId, alice.user_id), eq(boards.title, BOARD.title)))
      .limit(1);
    if (!board) {
      [board] = await tx
        .insert(boards)
        .values({ id: refs.newId("board"), tenantId, ownerId: alice.user_id, sharedWith: [bob.user_id], ...BOARD })
        .returning();
    }
    const boardId = board!.id;

    const columnIds = new Map<string, string>();
    for (const [position, title] of COLUMNS.entries()) {
      const [existing] = await tx
        .select({ id: boardColumns.id })
        .from(boardColumns)
        .where(and(eq(boardColumns.tenantId, tenantId), eq(boardColumns.boardId, boardId), eq(boardColumns.title, title)))
        .limit(1);
      const id = existing?.id ?? refs.newId("column");
      if (!existing) await tx.insert(boardColumns).values({ id, tenantId, boardId, title, position });
      columnIds.set(title, id);
    }

    const nextPosition = new Map<string, number>();
    for (const card of CARDS) {
      const columnId = columnIds.get(card.column)!;
      const position = nextPosition.get(columnId) ?? 0;
      nextPosition.set(columnId, position + 1);
      const [existing] = await tx
        .select({ id: boardCards.id })
        .from(boardCards)
        .where(and(eq(boardCards.tenantId, tenantId), eq(boardCards.boardId, boardId), eq(boardCards.title, card.title)))
        .limit(1);
      if (existing) continue;
      await tx.insert(boardCards).values({
        id: refs.newId("card"),
        tenantId,
        boardId,
        columnId,
        title: card.title,
        description: card.description,
        position,
        assignees: card.assignee === "bob" ? [bob.user_id] : [],
      });
    }
  });
};
