// How the board realm presents a call on the consent page: which card moves to which column (named as the
// grantor reads them). Run with the grantor's authority.
import type { RealmContext } from "@/lib/realms/contract";
import { cut, nameLine, payloadOf, textOf, UNSEEN, type RequestPresenter } from "@/lib/realms/presenters";
import { adapter } from "./adapter";

export const presentRequest: RequestPresenter<RealmContext> = async (ctx, { operation, ref, input }) => {
  if (operation !== "object.action.move_card") return null;
  const payload = payloadOf(input);
  const column = textOf(payload, "column") ?? "";
  // The column is a ref or a title on the card's board.
  const columnRef = column.startsWith("board:column:") ? column : null;
  const names = await adapter.describeRefs(ctx, [...(ref ? [ref] : []), ...(columnRef ? [columnRef] : [])]);
  const lines = [
    { label: "Card", value: ref ? nameLine(names[ref], UNSEEN) : UNSEEN },
    { label: "To column", value: columnRef ? nameLine(names[columnRef], UNSEEN) : `“${cut(column)}” (by its title)` },
  ];
  if (typeof payload.position === "number") lines.push({ label: "Place", value: payload.position === 0 ? "at the top" : `position ${payload.position + 1}` });
  return { title: "Move a card to another column", lines };
};
