// The board realm's refs: `board:board:<brd_id>`, `board:column:<col_id>`, `board:card:<crd_id>`.
import { nativeRefs } from "@/lib/realms/native/refs";

export const refs = nativeRefs("board", {
  board: { kind: "board.board", idPrefix: "brd" },
  column: { kind: "board.column", idPrefix: "col" },
  card: { kind: "board.card", idPrefix: "crd" },
});

export const isRef = (value: string) => value.startsWith("board:");
