// How the docs realm presents a call on the consent page: the reply and its thread, the document an export
// renders, a document's changes (before → after, as the grantor reads it now). Run with the grantor's authority.
import { isAppError } from "@/lib/errors";
import type { RealmContext } from "@/lib/realms/contract";
import { changeLines, cut, fieldsOf, MAX_TEXT_CHARS, nameLine, payloadOf, textOf, UNSEEN, type RequestPresenter } from "@/lib/realms/presenters";
import { adapter } from "./adapter";

/** The object as the grantor reads it now; null when it is not there for them. */
async function current(ctx: RealmContext, ref: string): Promise<Record<string, unknown> | null> {
  try {
    return await adapter.get(ctx, { ref, full: false });
  } catch (err) {
    if (isAppError(err)) return null;
    throw err;
  }
}

export const presentRequest: RequestPresenter<RealmContext> = async (ctx, { operation, ref, input }) => {
  const names = ref ? await adapter.describeRefs(ctx, [ref]) : {};
  const target = ref ? nameLine(names[ref], UNSEEN) : UNSEEN;
  if (operation === "object.action.reply_comment") {
    // A thread's label already says which document it is on.
    const thread = ref && names[ref] ? cut(names[ref].label) : UNSEEN;
    return { title: "Reply in a comment thread", lines: [{ label: "Thread", value: thread }, { label: "Reply", value: cut(textOf(payloadOf(input), "body") ?? "", MAX_TEXT_CHARS) }] };
  }
  if (operation === "object.action.export") {
    return { title: "Export a document to a file", lines: [{ label: "Document", value: target }, { label: "Format", value: textOf(payloadOf(input), "format") ?? "the default" }] };
  }
  if (operation === "object.upsert" && input.kind === "docs.document") {
    const fields = fieldsOf(input);
    if (!ref) return { title: "Create a document", lines: changeLines(fields, null) };
    const before = await current(ctx, ref);
    return {
      title: "Change a document",
      // A document the grantor cannot read now: only what the call would set.
      lines: [{ label: "Document", value: target }, ...changeLines(fields, before)],
    };
  }
  return null;
};
