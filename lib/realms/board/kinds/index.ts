// The board realm's kinds, by ref segment.
import { boardKind } from "./board";
import { cardKind } from "./card";
import { columnKind } from "./column";

export const kinds = { board: boardKind, column: columnKind, card: cardKind };
