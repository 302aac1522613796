// The mail.message kind: one message as a list item (metadata) and as an object (headers, labels, the body
// when asked, attachments stored and answered as signed file URLs).
import { MAX_FILE_BYTES } from "@/lib/delivery/port";
import type { AccountSession } from "@/lib/connections/session";
import { authorityOf, type LeanItem, type RealmContext } from "@/lib/realms/contract";
import { attachmentsOf, BASE, CONCURRENCY, dateOf, headerOf, mapLimit, splitAddresses, textOf, type GmailMessage } from "./gmail";
import { labelNames, labelsOf } from "./label";
import { manifest } from "./manifest";
import { mailRef } from "./refs";

const MAX_ATTACHMENTS = 10;

export async function messageItems(s: AccountSession, ids: string[]): Promise<LeanItem[]> {
  const msgs = await mapLimit(ids, CONCURRENCY, (id) =>
    s.call<GmailMessage>({ path: `${BASE}/messages/${id}`, query: { format: "metadata", metadataHeaders: ["Subject", "From", "Date"] } }),
  );
  return msgs.map((m) => ({
    ref: mailRef(s.account.id, "message", m.id),
    kind: "mail.message",
    label: headerOf(m, "Subject") || "(no subject)",
    summary: `${headerOf(m, "From")}${m.labelIds?.includes("UNREAD") ? " · unread" : ""} — ${(m.snippet ?? "").slice(0, 140)}`,
    updated_at: dateOf(m),
  }));
}

export async function getMessage(ctx: RealmContext, s: AccountSession, id: string, full: boolean) {
  const [m, labels] = await Promise.all([s.call<GmailMessage>({ path: `${BASE}/messages/${id}`, query: { format: "full" } }), labelsOf(s)]);
  const parts = attachmentsOf(m.payload).slice(0, MAX_ATTACHMENTS);
  const owner = authorityOf(ctx.principal);
  const attachments = [];
  for (const p of parts) {
    const size = p.body?.size ?? 0;
    const base = { name: p.filename!, content_type: p.mimeType ?? "application/octet-stream", size };
    if (size > MAX_FILE_BYTES) {
      attachments.push({ ...base, file: null, note: `larger than ${MAX_FILE_BYTES} bytes; open it in the mail app` });
      continue;
    }
    const a = await s.call<{ data?: string }>({ path: `${BASE}/messages/${id}/attachments/${p.body!.attachmentId}` });
    const bytes = new Uint8Array(Buffer.from(a.data ?? "", "base64url"));
    const stored = await ctx.delivery.storeFile({ namespace: manifest.namespace, name: base.name, contentType: base.content_type, bytes, ownerUserId: owner });
    attachments.push({ ...base, file: await ctx.delivery.fileUrl(stored.fileId, { name: base.name }) });
  }
  const labelIdsOf = m.labelIds ?? [];
  const text = textOf(m.payload);
  return {
    ref: mailRef(s.account.id, "message", m.id),
    kind: "mail.message",
    account: s.account.label,
    from: headerOf(m, "From"),
    to: splitAddresses(headerOf(m, "To")),
    cc: splitAddresses(headerOf(m, "Cc")),
    subject: headerOf(m, "Subject"),
    date: dateOf(m) ?? null,
    snippet: m.snippet ?? "",
    labels: labelNames(labelIdsOf, labels),
    unread: labelIdsOf.includes("UNREAD"),
    thread: mailRef(s.account.id, "thread", m.threadId),
    attachments,
    ...(full ? { body: text.slice(0, 100_000), body_truncated: text.length > 100_000 } : {}),
  };
}
