// The board realm's declaration: boards, their columns and cards; card actions; selectors and catalog.
import { z } from "zod";
import { payloadSchema, type RealmManifest } from "@/lib/realms/contract";
import { nativeManifest } from "@/lib/realms/native/declare";
import { person } from "@/lib/realms/native/people";
import { kinds } from "./kinds";
import { refs } from "./refs";

/** Action payloads, parsed by the adapter; their JSON Schemas below are derived from them so the two never drift. */
export const moveCardPayload = z.strictObject({
  column: z.string().trim().min(1).max(200).describe("the target column: its ref (board:column:<col_id>) or its title on the card's board"),
  position: z.number().int().min(0).max(10_000).optional().describe("0-based place in the column; default: the end"),
});
export const assignPayload = z.strictObject({
  add: z.array(person).max(50).optional().describe("emails (or user ids) of tenant members to assign"),
  remove: z.array(person).max(50).optional().describe("emails (or user ids) to unassign"),
});
export const archivePayload = z.strictObject({
  archived: z.boolean().default(true).describe("true archives the card, false brings it back to the end of its column"),
});


const timestamps = [
  { name: "created_at", type: "datetime", description: "When it was created." },
  { name: "updated_at", type: "datetime", description: "When it last changed." },
] as const;

export const manifest: RealmManifest = nativeManifest(
  {
    namespace: "board",
    realm_type: "native",
    service_card: {
      title: "Boards",
      purpose: "Plans work on boards of columns and cards: create cards, move them between columns, assign teammates, archive what is done.",
      works_with: "Realmgate's own storage; no outside account needed.",
      touches: [
        "Boards you own or that were shared with you: their title, description and sharing",
        "Their columns and cards: titles, descriptions, order, assignees, archive state",
        "Nothing outside Realmgate",
      ],
      operation_labels: {
        "provider.about": "About Boards",
        "object.schema": "Browse Boards' capabilities",
        "object.list": "List boards, columns or cards",
        "object.search": "Search boards and cards",
        "object.get": "Read a board, column or card",
        "object.upsert": "Create or change a board, column or card",
        "object.delete": "Delete a board, column or card",
        "object.action.move_card": "Move a card to another column or place",
        "object.action.assign": "Put people on a card or take them off",
        "object.action.archive": "Archive or restore a card",
      },
    },
    kinds: [
      {
        name: "board.board",
        label: "Board",
        one_liner: "A board of ordered columns holding cards, owned by one person and shared with others.",
        ref_pattern: "board:board:<brd_id>",
        fields: [
          { name: "title", type: "string", description: "The board's name.", required: true, writable: true },
          { name: "description", type: "text", description: "What the board is for.", writable: true },
          {
            name: "shared_with",
            type: "string[]",
            description: "Emails of tenant members who may read and edit the board; only the owner may change it. A list or {add, remove}.",
            writable: true,
          },
          { name: "owner", type: "string", description: "Email of the owner." },
          { name: "columns", type: "object", description: "The columns in order, with card counts; with full: true, each column's active cards." },
          ...timestamps,
        ],
        operations: ["object.list", "object.search", "object.get", "object.upsert", "object.delete"],
        filters: [],
      },
      {
        name: "board.column",
        label: "Column",
        one_liner: "A column of a board (To do, Doing, Done…), in board order.",
        ref_pattern: "board:column:<col_id>",
        fields: [
          { name: "board", type: "ref", ref_kind: "board.board", description: "The board (ref or title); set on create only.", required: true, writable: true },
          { name: "title", type: "string", description: "The column's name.", required: true, writable: true },
          { name: "position", type: "integer", description: "0-based place among the board's columns; default: the end.", writable: true },
          { name: "board_title", type: "string", description: "The board's title." },
          { name: "card_count", type: "integer", description: "How many active cards it holds." },
          { name: "cards", type: "object", description: "With full: true, its active cards in order." },
          ...timestamps,
        ],
        operations: ["object.list", "object.get", "object.upsert", "object.delete"],
        filters: ["board"],
      },
      {
        name: "board.card",
        label: "Card",
        one_liner: "A piece of work in a column: title, description, assignees; archived cards stay readable.",
        ref_pattern: "board:card:<crd_id>",
        fields: [
          { name: "title", type: "string", description: "What the card is about.", required: true, writable: true },
          { name: "description", type: "text", description: "Details.", writable: true },
          {
            name: "column",
            type: "ref",
            ref_kind: "board.column",
            description: "Its column: a ref, or a title (on `board` when given). Changing it moves the card within its board.",
            required: true,
            writable: true,
          },
          { name: "board", type: "ref", ref_kind: "board.board", description: "Its board (ref or title); on create, narrows a column title.", writable: true },
          { name: "position", type: "integer", description: "0-based place among the column's active cards; default: the end.", writable: true },
          {
            name: "assignees",
            type: "string[]",
            description: "Emails of the tenant members working on it. Upsert takes a list (replaces) or {add, remove}; emails or user ids.",
            writable: true,
          },
          { name: "archived", type: "boolean", description: "Archived cards leave the column but stay readable.", writable: true },
          { name: "board_title", type: "string", description: "Its board's title." },
          { name: "column_title", type: "string", description: "Its column's title." },
          ...timestamps,
        ],
        operations: ["object.list", "object.search", "object.get", "object.upsert", "object.delete"],
        filters: ["board", "column", "assignee", "archived"],
      },
    ],
    selectors: [
      { kind: "board.board", by: "title", description: "A board by its title, e.g. {title: \"Launch plan\"}." },
      { kind: "board.column", by: "title", description: "A column by its title, narrowed by {board: <ref or title>}, e.g. {title: \"Done\", board: \"Launch plan\"}." },
      { kind: "board.column", by: "board", description: "Narrows a column title to one board (its ref or title)." },
      { kind: "board.card", by: "title", description: "A card by its title (exact, else words it contains), narrowed by {board} or {column}." },
      { kind: "board.card", by: "board", description: "Narrows a card title to one board (its ref or title)." },
      { kind: "board.card", by: "column", description: "Narrows a card title to one column (its ref, or its title within {board})." },
    ],
    actions: [
      {
        name: "move_card",
        label: "Move card",
        description: "Move a card to a column of its board (by ref or title), at a position or at the end.",
        target_kind: "board.card",
        payload_schema: payloadSchema(moveCardPayload),
        example: { column: "Done", position: 0 },
        risk: "write",
        // `column` holds a column ref (or a title, which the adapter resolves and gates itself).
        ref_paths: ["column"],
        returns: "The card, with its new column and position.",
      },
      {
        name: "assign",
        label: "Assign",
        description: "Add or remove assignees on a card, by email of tenant members.",
        target_kind: "board.card",
        payload_schema: payloadSchema(assignPayload),
        example: { add: ["bob@acme.test"] },
        risk: "write",
        returns: "The card, with its assignees.",
      },
      {
        name: "archive",
        label: "Archive",
        description: "Archive a card (it leaves its column but stays readable), or restore it with {archived: false}.",
        target_kind: "board.card",
        payload_schema: payloadSchema(archivePayload),
        example: { archived: true },
        risk: "write",
        returns: "The card, with its archive state.",
      },
    ],
    catalog: {
      path: "/",
      label: "Boards",
      description: "Boards of columns and cards to organize work: find cards, move them, assign people.",
      keywords: ["kanban", "project"],
      kinds: ["board.board", "board.column", "board.card"],
      operations: ["provider.about", "object.schema"],
      children: [
        {
          path: "/boards",
          label: "Boards",
          description: "Find boards and see their columns and cards.",
          keywords: ["boards", "projects", "kanban", "list boards", "find board", "show board", "open board", "view board"],
          kinds: ["board.board"],
          operations: ["object.list", "object.search", "object.get"],
          children: [
            {
              path: "/boards/edit",
              label: "Create or share a board",
              description: "Create a board, rename it, describe it, or share it with colleagues (sharing: the owner only).",
              keywords: ["new board", "create board", "rename board", "share", "share board", "colleague", "invite"],
              kinds: ["board.board"],
              operations: ["object.upsert"],
              children: [],
            },
            {
              path: "/boards/columns",
              label: "Columns",
              description: "A board's columns (To do, Doing, Done…) in order.",
              keywords: ["columns", "lanes", "stages", "statuses", "list columns"],
              kinds: ["board.column"],
              operations: ["object.list", "object.get"],
              children: [
                {
                  path: "/boards/columns/edit",
                  label: "Add or rename a column",
                  description: "Add a column to a board, rename it, or move it to another place.",
                  keywords: ["add column", "new column", "rename column", "reorder columns", "lane", "stage"],
                  kinds: ["board.column"],
                  operations: ["object.upsert"],
                  children: [],
                },
              ],
            },
          ],
        },
        {
          path: "/cards",
          label: "Cards",
          description: "Find cards by words, board, column or assignee, and read them.",
          keywords: ["cards", "tasks", "tickets", "find cards", "search cards", "my tasks", "assigned to me", "who works on", "in progress", "what is on", "to do"],
          kinds: ["board.card"],
          operations: ["object.list", "object.search", "object.get"],
          children: [
            {
              path: "/cards/edit",
              label: "Add or edit a card",
              description: "Add a card to a column, or change its title, description or assignees.",
              keywords: ["new card", "add card", "add task", "create task", "new task", "edit card", "rename card", "describe"],
              kinds: ["board.card"],
              operations: ["object.upsert"],
              children: [],
            },
            {
              path: "/cards/move",
              label: "Move a card",
              description: "Move a card to another column (e.g. to Done) or another place in its column.",
              keywords: ["move", "move card", "drag", "to done", "mark done", "mark as doing", "reorder", "column"],
              kinds: ["board.card", "board.column"],
              operations: ["object.action.move_card"],
              children: [],
            },
            {
              path: "/cards/assign",
              label: "Assign people",
              description: "Put teammates on a card, or take them off it.",
              keywords: ["assign", "unassign", "give to", "teammate", "delegate", "hand over"],
              kinds: ["board.card"],
              operations: ["object.action.assign"],
              children: [],
            },
            {
              path: "/cards/archive",
              label: "Archive a card",
              description: "Archive a finished or dropped card (it stays readable), or restore it.",
              keywords: ["archive", "unarchive", "restore", "close", "hide", "clean up"],
              kinds: ["board.card"],
              operations: ["object.action.archive"],
              children: [],
            },
          ],
        },
        {
          path: "/delete",
          label: "Delete",
          description: "Delete a card, a column (with its cards) or a whole board; only the board's owner can.",
          keywords: ["delete", "remove", "destroy", "delete card", "delete column", "delete board"],
          kinds: ["board.card", "board.column", "board.board"],
          operations: ["object.delete"],
          children: [],
        },
      ],
    },
    rules: [
      "Refs look like board:board:<brd_id>, board:column:<col_id>, board:card:<crd_id>; only this realm reads them.",
      "Where a board or column is expected you may give its ref or its title; a title that matches several answers ambiguous_selector with details.choices, never a guess.",
      "Positions are 0-based; cards move only within their board.",
      "Cards lists show active cards unless filter {archived: true}.",
      "Columns and cards follow their board's sharing. Boards you neither own nor were shared answer not_found, like missing ones. Shared users may read and edit; only the board's owner may delete or re-share (realm_denied).",
      "assignees and shared_with take emails of tenant members, as a list (replaces) or {add: [...], remove: [...]}.",
      "No files.",
    ],
    delivery: { cursors: true, files: false, max_page_size: 100 },
  },
  { refs, kinds },
);
