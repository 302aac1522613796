// The memory realm's kinds, by ref segment.
import { itemKind } from "./item";

export const kinds = { item: itemKind };
