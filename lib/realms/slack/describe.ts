// Describing refs for a person (the consent page): channel names, message excerpts, file names and people in the
// caller's own connected workspaces, and null for anything else (another person's workspace, a missing claim).
import type { AccountSession } from "@/lib/connections/session";
import type { RealmContext, RefDescription } from "@/lib/realms/contract";
import { FILE_READ_CLAIMS, READ_CLAIMS } from "./manifest";
import { fileInfo, findMessage } from "./read";
import { parseSlackRef, type SlackRef } from "./refs";
import { CONCURRENCY, mapLimit, open, orNull, personName, slack, type SlackChannel, type SlackUser } from "./wire";

const excerpt = (t: string, n = 80) => (t.length > n ? `${t.slice(0, n - 1)}…` : t) || "(no text)";

async function describeOne(s: AccountSession, files: AccountSession | null, r: SlackRef, names: Map<string, string>): Promise<RefDescription | null> {
  const where = s.account.label;
  const channelName = async (id: string) => {
    if (!names.has(id)) {
      const c = await orNull(slack<{ channel: SlackChannel }>(s, "conversations.info", { channel: id }));
      names.set(id, c ? (c.channel.is_im ? "a direct message" : `#${c.channel.name ?? id}`) : "");
    }
    return names.get(id) || null;
  };
  if (r.type === "channel") {
    const name = await channelName(r.channel);
    if (!name) return null;
    return { kind: "slack.channel", label: name, summary: `${r.at ? "messages up to one message in" : "channel in"} ${where}`, lineage: [] };
  }
  if (r.type === "message") {
    const [name, m] = [await channelName(r.channel), await orNull(findMessage(s, r.channel, r.ts))];
    if (!name || !m) return null;
    return { kind: "slack.message", label: excerpt(m.text ?? ""), summary: `message in ${name} · ${where}`, lineage: [] };
  }
  if (r.type === "user") {
    const u = await orNull(slack<{ user: SlackUser }>(s, "users.info", { user: r.user }));
    return u ? { kind: "slack.user", label: personName(u.user), summary: `@${u.user.name ?? r.user} in ${where}`, lineage: [] } : null;
  }
  if (!files) return null;
  const f = await orNull(fileInfo(files, r.file));
  return f ? { kind: "slack.file", label: f.name ?? f.title ?? r.file, summary: `file in ${where}`, lineage: [] } : null;
}

/** Refs as a person reads them, with the caller's own workspaces (gate two pins each ref's account). Anything unreadable is null. */
export async function describeRefs(ctx: RealmContext, input: string[]): Promise<Record<string, RefDescription | null>> {
  const out: Record<string, RefDescription | null> = {};
  const byAccount = new Map<string, Map<string, SlackRef>>();
  for (const ref of input) {
    out[ref] = null;
    try {
      const r = parseSlackRef(ref);
      byAccount.set(r.accountId, (byAccount.get(r.accountId) ?? new Map<string, SlackRef>()).set(ref, r));
    } catch {
      // a malformed ref names nothing
    }
  }
  for (const [accountId, wanted] of byAccount) {
    const s = await orNull(open(ctx, "object.get", READ_CLAIMS, { pinned: accountId }));
    if (!s) continue;
    const files = [...wanted.values()].some((r) => r.type === "file") ? await orNull(open(ctx, "object.get", FILE_READ_CLAIMS, { pinned: accountId })) : null;
    const names = new Map<string, string>();
    const entries = [...wanted];
    const described = await mapLimit(entries, CONCURRENCY, ([, r]) => describeOne(s, files, r, names));
    entries.forEach(([ref], i) => (out[ref] = described[i] ?? null));
  }
  return out;
}
