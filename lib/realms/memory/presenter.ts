// How the memory realm presents a call on the consent page: the text to remember (and, for a change, what it
// says now). Run with the grantor's authority.
import { isAppError } from "@/lib/errors";
import type { RealmContext } from "@/lib/realms/contract";
import { changeLines, cut, fieldsOf, MAX_TEXT_CHARS, nameLine, textOf, UNSEEN, type RequestPresenter } from "@/lib/realms/presenters";
import { adapter } from "./adapter";

export const presentRequest: RequestPresenter<RealmContext> = async (ctx, { operation, ref, input }) => {
  if (operation !== "object.upsert" || input.kind !== "memory.item") return null;
  const fields = fieldsOf(input);
  const { text, ...rest } = fields;
  const newText = textOf(fields, "text");
  if (!ref) {
    return { title: "Remember something new", lines: [...(newText !== null ? [{ label: "Text", value: cut(newText, MAX_TEXT_CHARS) }] : []), ...changeLines(rest, null)] };
  }
  let before: Record<string, unknown> | null = null;
  try {
    before = await adapter.get(ctx, { ref, full: true });
  } catch (err) {
    if (!isAppError(err)) throw err;
  }
  const names = await adapter.describeRefs(ctx, [ref]);
  const lines = [{ label: "Memory", value: nameLine(names[ref], UNSEEN) }];
  if (text !== undefined) lines.push({ label: "Text", value: cut(newText ?? "", MAX_TEXT_CHARS) });
  return { title: "Change something remembered", lines: [...lines, ...changeLines(rest, before)] };
};
