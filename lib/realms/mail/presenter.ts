// How the mail realm presents a call on the consent page: recipients, subject and the start of the body. Nothing
// is fetched from the provider beyond what describeRefs reads (the message's subject and sender), with the
// grantor's own account.
import type { RealmContext } from "@/lib/realms/contract";
import { cut, nameLine, payloadOf, textOf, UNSEEN, type PresentedLine, type RequestPresenter } from "@/lib/realms/presenters";
import { adapter } from "./adapter";

/** How much of a body the page shows. */
const EXCERPT_CHARS = 600;

const list = (v: unknown): string | null => (Array.isArray(v) && v.length ? cut(v.filter((x): x is string => typeof x === "string").map((x) => x.trim()).join(", ")) : null);

export const presentRequest: RequestPresenter<RealmContext> = async (ctx, { operation, ref, input }) => {
  const p = payloadOf(input);
  const lines: PresentedLine[] = [];
  const add = (label: string, value: string | null) => {
    if (value) lines.push({ label, value });
  };
  if (operation === "object.action.send") {
    add("To", list(p.to));
    add("Cc", list(p.cc));
    add("Bcc", list(p.bcc));
    add("Subject", cut(textOf(p, "subject") ?? ""));
    add("Message", cut(textOf(p, "body") ?? "", EXCERPT_CHARS));
    add("From account", textOf(p, "account"));
    return { title: "Send an email", lines };
  }
  if (operation !== "object.action.reply" && operation !== "object.action.forward") return null;
  const names = ref ? await adapter.describeRefs(ctx, [ref]) : {};
  const original = ref ? names[ref] : null;
  add("Message", ref ? nameLine(original, UNSEEN) : UNSEEN);
  if (operation === "object.action.reply") {
    add("To", p.reply_all === true ? "the sender and everyone else on the message" : "the sender of the message");
    add("Subject", original ? cut(/^re:/i.test(original.label) ? original.label : `Re: ${original.label}`) : null);
    add("Reply", cut(textOf(p, "body") ?? "", EXCERPT_CHARS));
    return { title: p.reply_all === true ? "Reply to everyone on an email" : "Reply to an email", lines };
  }
  add("To", list(p.to));
  add("Subject", original ? cut(/^fwd?:/i.test(original.label) ? original.label : `Fwd: ${original.label}`) : null);
  add("Note", textOf(p, "note") ? cut(textOf(p, "note")!, EXCERPT_CHARS) : null);
  return { title: "Forward an email", lines };
};
