// Describing refs for a person (the consent page): names of messages, threads and labels in the caller's own
// connected accounts, and null for anything else.
import type { RealmContext, RefDescription } from "@/lib/realms/contract";
import { BASE, CONCURRENCY, headerOf, mapLimit, open, orNull, type GmailMessage } from "./gmail";
import { labelsOf } from "./label";
import { READ_CLAIMS } from "./manifest";
import { parseMailRef, type RefType } from "./refs";

/**
 * Refs as a person reads them, with the caller's own connected accounts (gate two pins each ref's account, so a
 * ref into someone else's account is null). Per account: one session, one labels call for every label ref, and
 * one metadata call per message or thread (Gmail has no multi-get), a few at a time. Anything unreadable is null.
 */
export async function describeRefs(ctx: RealmContext, input: string[]): Promise<Record<string, RefDescription | null>> {
  const out: Record<string, RefDescription | null> = {};
  const byAccount = new Map<string, Map<string, { type: RefType; id: string }>>();
  for (const ref of input) {
    out[ref] = null;
    try {
      const r = parseMailRef(ref);
      const refs = byAccount.get(r.accountId) ?? new Map<string, { type: RefType; id: string }>();
      byAccount.set(r.accountId, refs.set(ref, { type: r.type, id: r.id }));
    } catch {
      // a malformed ref names nothing
    }
  }
  for (const [accountId, wanted] of byAccount) {
    const s = await orNull(open(ctx, "object.get", READ_CLAIMS, { pinned: accountId }));
    if (!s) continue;
    const where = s.account.label;
    const of = (type: RefType) => [...wanted].filter(([, w]) => w.type === type).map(([ref, w]) => ({ ref, id: w.id }));
    const labelRefs = of("label");
    const labels = labelRefs.length ? ((await orNull(labelsOf(s))) ?? []) : [];
    for (const { ref, id } of labelRefs) {
      const l = labels.find((x) => x.id === id);
      if (l) out[ref] = { kind: "mail.label", label: l.name, summary: `${l.type === "user" ? "your label" : "system label"} in ${where}`, lineage: [] };
    }
    const messages = await mapLimit(of("message"), CONCURRENCY, async ({ ref, id }) => ({
      ref,
      m: await orNull(s.call<GmailMessage>({ path: `${BASE}/messages/${id}`, query: { format: "metadata", metadataHeaders: ["Subject", "From"] } })),
    }));
    for (const { ref, m } of messages) {
      if (m) out[ref] = { kind: "mail.message", label: headerOf(m, "Subject") || "(no subject)", summary: `message from ${headerOf(m, "From") || "an unknown sender"} in ${where}`, lineage: [] };
    }
    const threads = await mapLimit(of("thread"), CONCURRENCY, async ({ ref, id }) => ({
      ref,
      t: await orNull(s.call<{ id: string; messages?: GmailMessage[] }>({ path: `${BASE}/threads/${id}`, query: { format: "metadata", metadataHeaders: ["Subject"] } })),
    }));
    for (const { ref, t } of threads) {
      if (!t) continue;
      const n = t.messages?.length ?? 0;
      const first = t.messages?.[0];
      out[ref] = { kind: "mail.thread", label: (first && headerOf(first, "Subject")) || "(no subject)", summary: `thread of ${n} message${n === 1 ? "" : "s"} in ${where}`, lineage: [] };
    }
  }
  return out;
}
