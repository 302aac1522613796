// The mail actions (send, reply, forward, archive, label), and writing mail: a minimal RFC 5322 message,
// plain text, UTF-8. A send is never resent: when its answer is lost, the error says it may have been sent.
import { AppError, parseWith } from "@/lib/errors";
import type { AccountSession } from "@/lib/connections/session";
import type { ActionDef, RealmContext } from "@/lib/realms/contract";
import { bareAddress, BASE, dateOf, headerOf, open, splitAddresses, textOf, type GmailMessage } from "./gmail";
import { labelIds, labelNames, labelsOf } from "./label";
import { forwardPayload, labelPayload, replyPayload, sendPayload } from "./manifest";
import { mailRef, parseMailRef } from "./refs";

const SEND_UNCERTAIN = "The message may or may not have been sent: search in:sent before sending it again.";

/** Header values never carry line breaks (no header injection); non-ASCII is RFC 2047 encoded. */
function headerValue(v: string): string {
  const flat = v.replace(/[\r\n]+/g, " ").trim();
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, "utf8").toString("base64")}?=`;
}

function rawMessage(h: { to: string[]; cc?: string[]; bcc?: string[]; subject: string; inReplyTo?: string; references?: string }, body: string): string {
  const lines = [`To: ${h.to.map(headerValue).join(", ")}`];
  if (h.cc?.length) lines.push(`Cc: ${h.cc.map(headerValue).join(", ")}`);
  if (h.bcc?.length) lines.push(`Bcc: ${h.bcc.map(headerValue).join(", ")}`);
  lines.push(`Subject: ${headerValue(h.subject)}`);
  if (h.inReplyTo) lines.push(`In-Reply-To: ${headerValue(h.inReplyTo)}`);
  if (h.references) lines.push(`References: ${headerValue(h.references)}`);
  lines.push("MIME-Version: 1.0", "Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: 8bit");
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n${body.replace(/\r?\n/g, "\r\n")}`, "utf8").toString("base64url");
}

const quote = (m: GmailMessage, text: string) => `On ${headerOf(m, "Date") || dateOf(m)}, ${headerOf(m, "From")} wrote:\n${text.split("\n").map((l) => `> ${l}`).join("\n")}`;

async function send(s: AccountSession, raw: string, threadId?: string) {
  const sent = await s.call<{ id: string; threadId: string }>({ method: "POST", path: `${BASE}/messages/send`, body: threadId ? { raw, threadId } : { raw }, once: SEND_UNCERTAIN });
  return { sent: true, ref: mailRef(s.account.id, "message", sent.id), thread_ref: mailRef(s.account.id, "thread", sent.threadId), account: s.account.label };
}

export async function runAction(ctx: RealmContext, action: ActionDef, ref: string | null, payload: Record<string, unknown>) {
  const operation = `object.action.${action.name}`;
  if (action.name === "send") {
    const p = parseWith(sendPayload, payload, "send payload");
    const s = await open(ctx, operation, action.claims, { selector: p.account ?? null });
    return send(s, rawMessage({ to: p.to, cc: p.cc, bcc: p.bcc, subject: p.subject }, p.body));
  }
  const target = parseMailRef(ref!);
  if (target.type !== "message") throw new AppError("invalid_input", `${action.name} runs on a mail.message ref.`, { details: { ref } });
  const s = await open(ctx, operation, action.claims, { pinned: target.accountId });
  const path = `${BASE}/messages/${target.id}`;
  switch (action.name) {
    case "reply": {
      const p = parseWith(replyPayload, payload, "reply payload");
      const m = await s.call<GmailMessage>({ path, query: { format: "full" } });
      const me = (s.account.email ?? "").toLowerCase();
      const primary = headerOf(m, "Reply-To") || headerOf(m, "From");
      const fromMe = bareAddress(headerOf(m, "From")) === me;
      // Replying to one's own message goes to its recipients, as mail apps do.
      const to = fromMe ? splitAddresses(headerOf(m, "To")) : splitAddresses(primary);
      const others = p.reply_all ? [...splitAddresses(headerOf(m, "To")), ...splitAddresses(headerOf(m, "Cc"))].filter((a) => bareAddress(a) !== me && !to.some((t) => bareAddress(t) === bareAddress(a))) : [];
      const subject = headerOf(m, "Subject");
      const msgId = headerOf(m, "Message-ID");
      const result = await send(
        s,
        rawMessage(
          { to, cc: others, subject: /^re:/i.test(subject) ? subject : `Re: ${subject}`, inReplyTo: msgId || undefined, references: [headerOf(m, "References"), msgId].filter(Boolean).join(" ") || undefined },
          `${p.body}\n\n${quote(m, textOf(m.payload))}`,
        ),
        m.threadId,
      );
      return { ...result, to };
    }
    case "forward": {
      const p = parseWith(forwardPayload, payload, "forward payload");
      const m = await s.call<GmailMessage>({ path, query: { format: "full" } });
      const subject = headerOf(m, "Subject");
      const header = ["---------- Forwarded message ---------", `From: ${headerOf(m, "From")}`, `Date: ${headerOf(m, "Date") || dateOf(m)}`, `Subject: ${subject}`, `To: ${headerOf(m, "To")}`].join("\n");
      return send(s, rawMessage({ to: p.to, subject: /^fwd?:/i.test(subject) ? subject : `Fwd: ${subject}` }, `${p.note ? `${p.note}\n\n` : ""}${header}\n\n${textOf(m.payload)}`));
    }
    case "archive": {
      const m = await s.call<GmailMessage>({ method: "POST", path: `${path}/modify`, body: { addLabelIds: [], removeLabelIds: ["INBOX"] } });
      return { ref: mailRef(s.account.id, "message", m.id), archived: true, labels: labelNames(m.labelIds ?? [], await labelsOf(s)) };
    }
    case "label": {
      const p = parseWith(labelPayload, payload, "label payload");
      const add = await labelIds(s, p.add ?? []);
      const remove = await labelIds(s, p.remove ?? []);
      const m = await s.call<GmailMessage>({ method: "POST", path: `${path}/modify`, body: { addLabelIds: add, removeLabelIds: remove } });
      return { ref: mailRef(s.account.id, "message", m.id), labels: labelNames(m.labelIds ?? [], await labelsOf(s)) };
    }
    default:
      throw new AppError("invalid_input", `mail has no action ${action.name}.`);
  }
}
