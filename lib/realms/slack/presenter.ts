// How the Slack realm presents a call on the consent and approval pages: where it would post, what it would
// say, which emoji, which file. Names come from describeRefs, with the grantor's own workspace.
import type { RealmContext } from "@/lib/realms/contract";
import { cut, nameLine, payloadOf, textOf, UNSEEN, type PresentedLine, type RequestPresenter } from "@/lib/realms/presenters";
import { describeRefs } from "./describe";

/** How much of a message the page shows. */
const EXCERPT_CHARS = 600;

export const presentRequest: RequestPresenter<RealmContext> = async (ctx, { operation, ref, input }) => {
  const p = payloadOf(input);
  const lines: PresentedLine[] = [];
  const add = (label: string, value: string | null) => {
    if (value) lines.push({ label, value });
  };
  const known = ["object.action.post_message", "object.action.reply_in_thread", "object.action.add_reaction", "object.action.request_upload"];
  if (!known.includes(operation)) return null;
  const names = ref ? await describeRefs(ctx, [ref]) : {};
  const target = ref ? nameLine(names[ref], UNSEEN) : UNSEEN;
  switch (operation) {
    case "object.action.post_message":
      add("Channel", target);
      add("Message", cut(textOf(p, "text") ?? "", EXCERPT_CHARS));
      return { title: "Post a message in Slack as you", lines };
    case "object.action.reply_in_thread":
      add("In reply to", target);
      add("Reply", cut(textOf(p, "text") ?? "", EXCERPT_CHARS));
      if (p.also_send_to_channel === true) add("Also", "shown in the channel, not only in the thread");
      return { title: "Reply in a Slack thread as you", lines };
    case "object.action.add_reaction":
      add("Message", target);
      add("Reaction", textOf(p, "name") ? `:${textOf(p, "name")!.replace(/^:|:$/g, "")}:` : null);
      return { title: "React to a Slack message as you", lines };
    default:
      add("Channel", target);
      add("File name", cut(textOf(p, "filename") ?? ""));
      add("Title", textOf(p, "title") ? cut(textOf(p, "title")!) : null);
      add("Comment", textOf(p, "comment") ? cut(textOf(p, "comment")!, EXCERPT_CHARS) : null);
      add("In thread", textOf(p, "thread_ts") ? "yes, as a reply" : null);
      return { title: "Upload a file to Slack as you", lines };
  }
};
