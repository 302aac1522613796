// The board realm's storage: boards, their ordered columns, and cards in those columns.
// Columns and cards carry no ACL of their own: they inherit their board's owner and shared-with list.
import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";
import { tenants, users } from "./tenancy";

export const boards = pgTable(
  "boards",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    ownerId: text("owner_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** User ids who may read and edit the board, its columns and cards (never destroy or re-share). */
    sharedWith: text("shared_with").array().notNull().default(sql`'{}'::text[]`),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [index("boards_tenant_title").on(t.tenantId, t.title, t.id)],
);
export type Board = typeof boards.$inferSelect;

export const boardColumns = pgTable(
  "board_columns",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    boardId: text("board_id").notNull().references(() => boards.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    /** 0-based order within the board; kept dense by the adapter. */
    position: integer("position").notNull(),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [index("board_columns_board").on(t.boardId, t.position, t.id), index("board_columns_tenant").on(t.tenantId)],
);
export type BoardColumn = typeof boardColumns.$inferSelect;

export const boardCards = pgTable(
  "board_cards",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    boardId: text("board_id").notNull().references(() => boards.id, { onDelete: "cascade" }),
    columnId: text("column_id").notNull().references(() => boardColumns.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    /** 0-based order among the column's active (not archived) cards; kept dense by the adapter. */
    position: integer("position").notNull(),
    /** User ids of tenant members. */
    assignees: text("assignees").array().notNull().default(sql`'{}'::text[]`),
    archived: boolean("archived").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("board_cards_column").on(t.columnId, t.position, t.id),
    index("board_cards_board").on(t.boardId),
    index("board_cards_tenant").on(t.tenantId),
    index("board_cards_assignees").using("gin", t.assignees),
  ],
);
export type BoardCard = typeof boardCards.$inferSelect;
