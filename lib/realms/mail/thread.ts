// The mail.thread kind: a conversation as a list item (subject, size, latest sender) and as an object (its
// participants and messages).
import type { AccountSession } from "@/lib/connections/session";
import type { LeanItem } from "@/lib/realms/contract";
import { BASE, CONCURRENCY, dateOf, headerOf, mapLimit, splitAddresses, type GmailMessage } from "./gmail";
import { mailRef } from "./refs";

export async function threadItems(s: AccountSession, ids: string[]): Promise<LeanItem[]> {
  const threads = await mapLimit(ids, CONCURRENCY, (id) =>
    s.call<{ id: string; messages?: GmailMessage[] }>({ path: `${BASE}/threads/${id}`, query: { format: "metadata", metadataHeaders: ["Subject", "From"] } }),
  );
  return threads.map((t) => {
    const msgs = t.messages ?? [];
    const first = msgs[0];
    const last = msgs[msgs.length - 1];
    return {
      ref: mailRef(s.account.id, "thread", t.id),
      kind: "mail.thread",
      label: (first && headerOf(first, "Subject")) || "(no subject)",
      summary: `${msgs.length} message${msgs.length === 1 ? "" : "s"}${last ? ` · latest from ${headerOf(last, "From")}` : ""}`,
      updated_at: last ? dateOf(last) : undefined,
    };
  });
}

export async function getThread(s: AccountSession, id: string) {
  const t = await s.call<{ id: string; messages?: GmailMessage[] }>({ path: `${BASE}/threads/${id}`, query: { format: "metadata", metadataHeaders: ["Subject", "From", "To", "Cc"] } });
  const msgs = t.messages ?? [];
  const people = new Set<string>();
  for (const m of msgs) for (const h of ["From", "To", "Cc"]) for (const a of splitAddresses(headerOf(m, h))) people.add(a);
  return {
    ref: mailRef(s.account.id, "thread", t.id),
    kind: "mail.thread",
    account: s.account.label,
    subject: (msgs[0] && headerOf(msgs[0], "Subject")) || "(no subject)",
    participants: [...people].slice(0, 50),
    message_count: msgs.length,
    messages: msgs.slice(0, 100).map((m) => ({ ref: mailRef(s.account.id, "message", m.id), from: headerOf(m, "From"), date: dateOf(m) ?? null, snippet: m.snippet ?? "", unread: (m.labelIds ?? []).includes("UNREAD") })),
  };
}
