// Reading Slack: channels (a window of messages), messages (text, author, thread, files), files (metadata and a
// live download link), people; list and search (one page with an opaque cursor bound to the workspace); resolve
// (a channel by name, a person by handle or email).
import { z } from "zod";
import type { AccountSession } from "@/lib/connections/session";
import { AppError, parseWith } from "@/lib/errors";
import type { CursorState, Filter, LeanItem, RealmContext, ResolveResult } from "@/lib/realms/contract";
import { manifest, READ_CLAIMS } from "./manifest";
import { channelRef, fileRef, messageRef, parseSlackRef, userRef, type RefType, type SlackRef } from "./refs";
import { CONCURRENCY, dateOfTs, mapLimit, nextCursor, open, orNull, personName, slack, tsBefore, type SlackChannel, type SlackFile, type SlackMessage, type SlackUser } from "./wire";

/** Messages in one channel window. */
export const WINDOW = 20;
const REPLIES = 20;

const filterSchema = z.strictObject({
  account: z.string().trim().min(1).max(320).optional(),
  types: z.string().regex(/^(public_channel|private_channel|mpim|im)(,(public_channel|private_channel|mpim|im))*$/, "a comma-separated list of public_channel, private_channel, mpim, im").optional(),
});
const selectorSchema = z.strictObject({
  account: z.string().trim().min(1).max(320).optional(),
  name: z.string().trim().min(1).max(100).optional(),
  handle: z.string().trim().min(1).max(100).optional(),
  email: z.string().trim().min(3).max(320).optional(),
});
const cursorSchema = z.strictObject({ acct: z.string(), c: z.string().min(1).max(2048) });

type Channel = Extract<SlackRef, { type: "channel" }>;
type Names = Map<string, string>;

/** Display names of the people who wrote these messages (one users.info each, a few at a time; unknown ones keep their id). */
async function namesOf(s: AccountSession, ids: (string | undefined)[]): Promise<Names> {
  const unique = [...new Set(ids.filter((x): x is string => !!x))].slice(0, 50);
  const found = await mapLimit(unique, CONCURRENCY, async (id) => [id, await orNull(slack<{ user: SlackUser }>(s, "users.info", { user: id }))] as const);
  return new Map(found.map(([id, r]) => [id, r?.user ? personName(r.user) : id]));
}

const filesOf = (accountId: string, m: SlackMessage) =>
  (m.files ?? []).filter((f) => f.mode !== "tombstone").map((f) => ({ ref: fileRef(accountId, f.id), name: f.name ?? f.title ?? f.id, mimetype: f.mimetype ?? null, size: f.size ?? null }));

function author(accountId: string, m: SlackMessage, names: Names) {
  if (m.user) return { ref: userRef(accountId, m.user), name: names.get(m.user) ?? m.username ?? m.user };
  return { ref: null, name: m.username ?? (m.bot_id ? "a bot" : "someone") };
}

function messageLine(accountId: string, channel: string, m: SlackMessage, names: Names) {
  return {
    ref: messageRef(accountId, channel, m.ts),
    ts: m.ts,
    date: dateOfTs(m.ts),
    author: author(accountId, m, names),
    text: m.text ?? "",
    ...(m.thread_ts ? { thread: { parent: messageRef(accountId, channel, m.thread_ts), reply_count: m.reply_count ?? 0 } } : {}),
    files: filesOf(accountId, m),
  };
}

export async function getChannel(s: AccountSession, r: Channel) {
  const acct = s.account.id;
  const info = await slack<{ channel: SlackChannel }>(s, "conversations.info", { channel: r.channel, include_num_members: "true" });
  const page = await slack<{ messages?: SlackMessage[]; has_more?: boolean }>(s, "conversations.history", { channel: r.channel, limit: WINDOW, ...(r.at ? { latest: r.at, inclusive: "true" } : {}) });
  const msgs = (page.messages ?? []).slice(0, WINDOW).sort((a, b) => (Number(a.ts) < Number(b.ts) ? -1 : 1));
  const names = await namesOf(s, msgs.map((m) => m.user));
  const c = info.channel;
  return {
    ref: channelRef(acct, r.channel, r.at),
    kind: "slack.channel",
    account: s.account.label,
    name: c.name ?? c.id,
    topic: c.topic?.value ?? "",
    purpose: c.purpose?.value ?? "",
    is_private: !!(c.is_private || c.is_im || c.is_mpim),
    members: c.num_members ?? null,
    ...(r.at ? { focus: messageRef(acct, r.channel, r.at) } : {}),
    messages: msgs.map((m) => messageLine(acct, r.channel, m, names)),
    cursor: { earlier: page.has_more && msgs[0] ? channelRef(acct, r.channel, tsBefore(msgs[0].ts)) : null, latest: channelRef(acct, r.channel) },
  };
}

/** One message by its channel and ts: from the channel's history, or (a reply) from its thread. */
export async function findMessage(s: AccountSession, channel: string, ts: string): Promise<SlackMessage> {
  const h = await slack<{ messages?: SlackMessage[] }>(s, "conversations.history", { channel, latest: ts, oldest: ts, inclusive: "true", limit: 1 });
  const hit = (h.messages ?? []).find((m) => m.ts === ts);
  if (hit) return hit;
  const t = await slack<{ messages?: SlackMessage[] }>(s, "conversations.replies", { channel, ts, latest: ts, oldest: ts, inclusive: "true", limit: 1 });
  const reply = (t.messages ?? []).find((m) => m.ts === ts);
  if (!reply) throw new AppError("not_found", "Slack has no such message (or it was deleted).");
  return reply;
}

export async function getMessage(s: AccountSession, r: Extract<SlackRef, { type: "message" }>) {
  const acct = s.account.id;
  const m = await findMessage(s, r.channel, r.ts);
  const isParent = !!m.thread_ts && m.thread_ts === m.ts && (m.reply_count ?? 0) > 0;
  const replies = isParent ? ((await slack<{ messages?: SlackMessage[] }>(s, "conversations.replies", { channel: r.channel, ts: m.ts, limit: REPLIES + 1 })).messages ?? []).filter((x) => x.ts !== m.ts).slice(0, REPLIES) : [];
  const names = await namesOf(s, [m.user, ...replies.map((x) => x.user)]);
  return {
    ref: messageRef(acct, r.channel, m.ts),
    kind: "slack.message",
    account: s.account.label,
    channel: channelRef(acct, r.channel, m.ts),
    author: author(acct, m, names),
    text: m.text ?? "",
    date: dateOfTs(m.ts),
    thread: m.thread_ts
      ? { parent: messageRef(acct, r.channel, m.thread_ts), reply_count: m.reply_count ?? 0, replies: replies.map((x) => ({ ref: messageRef(acct, r.channel, x.ts), author: author(acct, x, names), text: (x.text ?? "").slice(0, 500) })) }
      : null,
    reactions: (m.reactions ?? []).map((x) => ({ name: x.name, count: x.count })),
    files: filesOf(acct, m),
  };
}

export async function fileInfo(s: AccountSession, id: string): Promise<SlackFile> {
  return (await slack<{ file: SlackFile }>(s, "files.info", { file: id, count: 1 })).file;
}

export async function getFile(ctx: RealmContext, s: AccountSession, id: string) {
  const f = await fileInfo(s, id);
  const ref = fileRef(s.account.id, f.id);
  const name = f.name ?? f.title ?? f.id;
  if (!ctx.delivery.liveUrl) throw new AppError("provider_unavailable", "This Realmgate cannot hand out links to provider files.", { status: 503 });
  return {
    ref,
    kind: "slack.file",
    account: s.account.label,
    name,
    title: f.title ?? name,
    mimetype: f.mimetype ?? "application/octet-stream",
    size: f.size ?? null,
    author: f.user ? userRef(s.account.id, f.user) : null,
    date: f.created ? new Date(f.created * 1000).toISOString() : null,
    download: await ctx.delivery.liveUrl({ namespace: manifest.namespace, ref, method: "GET", name }),
  };
}

export async function getUser(s: AccountSession, id: string) {
  const u = (await slack<{ user: SlackUser }>(s, "users.info", { user: id })).user;
  return { ref: userRef(s.account.id, u.id), kind: "slack.user", account: s.account.label, handle: u.name ?? u.id, name: personName(u), title: u.profile?.title ?? "", email: u.profile?.email ?? null, is_bot: !!u.is_bot, deleted: !!u.deleted };
}

const channelItem = (acct: string, c: SlackChannel): LeanItem => ({
  ref: channelRef(acct, c.id),
  kind: "slack.channel",
  label: c.is_im ? `direct message${c.user ? ` with ${c.user}` : ""}` : `#${c.name ?? c.id}`,
  summary: [c.is_private ? "private" : c.is_im || c.is_mpim ? "direct" : "public", c.num_members !== undefined ? `${c.num_members} members` : "", (c.purpose?.value || c.topic?.value || "").slice(0, 120)].filter(Boolean).join(" · "),
});
const userItem = (acct: string, u: SlackUser): LeanItem => ({ ref: userRef(acct, u.id), kind: "slack.user", label: personName(u), summary: [`@${u.name ?? u.id}`, u.profile?.title ?? "", u.is_bot ? "bot" : ""].filter(Boolean).join(" · ") });

export type Listing = { type: RefType; filter: Filter; query: string | null; after: CursorState | null; limit: number; operation: string };

/** The channels a ref-scoped grant names in this workspace (null: the grant is not scoped by refs). */
function scopedChannels(ctx: RealmContext, acct: string): string[] | null {
  const refs = ctx.grantScope && "refs" in ctx.grantScope ? ctx.grantScope.refs : null;
  if (!refs) return null;
  const out = new Set<string>();
  for (const ref of refs) {
    try {
      const r = parseSlackRef(ref);
      if (r.type === "channel" && r.accountId === acct) out.add(r.channel);
    } catch {
      // Another realm's ref, or one that no longer parses: it scopes nothing here.
    }
  }
  return [...out];
}

export async function listing(ctx: RealmContext, l: Listing): Promise<{ items: LeanItem[]; next: CursorState | null }> {
  const f = parseWith(filterSchema, l.filter, "slack filter");
  if (f.types !== undefined && l.type !== "channel") throw new AppError("invalid_input", "filter.types applies to slack.channel only.");
  const s = await open(ctx, l.operation, READ_CLAIMS, { selector: f.account ?? null });
  const acct = s.account.id;
  const after = l.after ? parseWith(cursorSchema, l.after, "cursor") : null;
  if (after && after.acct !== acct) throw new AppError("invalid_cursor", "This cursor belongs to another workspace's listing.");
  const page = (c: string | null) => (c ? { acct, c } : null);

  if (l.query !== null) {
    if (l.type !== "message") throw new AppError("invalid_input", "search_objects searches slack.message; list slack.channel and slack.user with list_objects.", { details: { searchable_kinds: ["slack.message"] } });
    type Found = { messages?: { matches?: SlackMessage[]; pagination?: { next_cursor?: string } }; response_metadata?: { next_cursor?: string } };
    const search = (query: string, cursor: string) => slack<Found>(s, "search.messages", { query, count: l.limit, cursor, sort: "timestamp", sort_dir: "desc" });
    // A grant scoped to some channels searches only those, in Slack itself: hits (and their paging) elsewhere are
    // never seen, not even as a count or a cursor. One channel pages; several are searched one by one, one page each.
    const scoped = scopedChannels(ctx, acct);
    let res: Found;
    let hits: SlackMessage[];
    if (scoped === null) {
      res = await search(l.query, after?.c ?? "*");
      hits = res.messages?.matches ?? [];
    } else if (scoped.length === 1) {
      res = await search(`${l.query} in:<#${scoped[0]}>`, after?.c ?? "*");
      hits = res.messages?.matches ?? [];
    } else {
      const pages = await Promise.all(scoped.slice(0, 10).map((c) => search(`${l.query} in:<#${c}>`, "*")));
      res = {};
      hits = pages.flatMap((p) => p.messages?.matches ?? []).sort((a, b) => (Number(a.ts) < Number(b.ts) ? 1 : -1));
    }
    const matches = hits.filter((m) => m.channel?.id && /^[CGD][A-Z0-9]{2,20}$/.test(m.channel.id) && /^\d{9,11}\.\d{6}$/.test(m.ts)).slice(0, l.limit);
    const items = matches.map((m) => ({
      ref: channelRef(acct, m.channel!.id, m.ts),
      kind: "slack.message",
      label: `${m.channel!.name ? `#${m.channel!.name}` : m.channel!.id} · ${m.username ?? m.user ?? "someone"}`,
      summary: (m.text ?? "").slice(0, 200),
      updated_at: dateOfTs(m.ts),
    }));
    return { items, next: page(nextCursor(res) ?? res.messages?.pagination?.next_cursor ?? null) };
  }
  if (l.type === "channel") {
    const res = await slack<{ channels?: SlackChannel[] }>(s, "conversations.list", { limit: l.limit, cursor: after?.c, types: f.types ?? "public_channel,private_channel", exclude_archived: "true" });
    return { items: (res.channels ?? []).slice(0, l.limit).map((c) => channelItem(acct, c)), next: page(nextCursor(res)) };
  }
  if (l.type === "user") {
    const res = await slack<{ members?: SlackUser[] }>(s, "users.list", { limit: l.limit, cursor: after?.c });
    return { items: (res.members ?? []).filter((u) => !u.deleted).slice(0, l.limit).map((u) => userItem(acct, u)), next: page(nextCursor(res)) };
  }
  throw new AppError("invalid_input", `list_objects lists slack.channel and slack.user; find ${l.type === "message" ? "messages with search_objects" : "files through their messages"}.`, { details: { listable_kinds: ["slack.channel", "slack.user"] } });
}

/** A selector → one ref, or the choices: a channel by name (with or without #), a person by handle (with or without @) or email. */
const noSuchName = (message: string, near: LeanItem[]) =>
  new AppError("not_found", `${message}${near.length ? " Names that contain it are listed: call again with one of their refs, or the exact name." : ""}`, { details: { did_you_mean: near } });

export async function resolveSelector(ctx: RealmContext, type: RefType, selector: Record<string, unknown>): Promise<ResolveResult> {
  const sel = parseWith(selectorSchema, selector, "slack selector");
  const s = await open(ctx, "object.get", READ_CLAIMS, { selector: sel.account ?? null });
  const acct = s.account.id;
  if (type === "channel") {
    if (!sel.name || sel.handle || sel.email) throw new AppError("invalid_input", "Name a channel with {name}.", { details: { selectors: ["name", "account"] } });
    const want = sel.name.replace(/^#/, "").toLowerCase();
    const all: SlackChannel[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await slack<{ channels?: SlackChannel[] }>(s, "conversations.list", { limit: 200, cursor, types: "public_channel,private_channel", exclude_archived: "true" });
      all.push(...(res.channels ?? []));
      cursor = nextCursor(res) ?? undefined;
      if (!cursor || all.some((c) => c.name?.toLowerCase() === want)) break;
    }
    const exact = all.filter((c) => c.name?.toLowerCase() === want);
    if (exact.length === 1) return { ref: channelRef(acct, exact[0]!.id) };
    if (exact.length) return { choices: exact.slice(0, 20).map((c) => channelItem(acct, c)) };
    // A part of a name never names a channel by itself (least of all for a write): the near ones are suggested.
    throw noSuchName(`No channel is named #${want}.`, all.filter((c) => c.name?.toLowerCase().includes(want)).slice(0, 20).map((c) => channelItem(acct, c)));
  }
  if (type === "user") {
    if (sel.name || (!sel.handle && !sel.email) || (sel.handle && sel.email)) throw new AppError("invalid_input", "Name a person with {handle} or {email}.", { details: { selectors: ["handle", "email", "account"] } });
    if (sel.email) {
      const r = await orNull(slack<{ user: SlackUser }>(s, "users.lookupByEmail", { email: sel.email }));
      return r?.user ? { ref: userRef(acct, r.user.id) } : { choices: [] };
    }
    const want = sel.handle!.replace(/^@/, "").toLowerCase();
    const all: SlackUser[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await slack<{ members?: SlackUser[] }>(s, "users.list", { limit: 200, cursor });
      all.push(...(res.members ?? []).filter((u) => !u.deleted));
      cursor = nextCursor(res) ?? undefined;
      if (!cursor) break;
    }
    const exact = all.filter((u) => u.name?.toLowerCase() === want || u.profile?.display_name?.toLowerCase() === want);
    if (exact.length === 1) return { ref: userRef(acct, exact[0]!.id) };
    if (exact.length) return { choices: exact.slice(0, 20).map((u) => userItem(acct, u)) };
    throw noSuchName(`No one's handle is @${want}.`, all.filter((u) => `${u.name} ${u.profile?.display_name ?? ""} ${u.real_name ?? ""}`.toLowerCase().includes(want)).slice(0, 20).map((u) => userItem(acct, u)));
  }
  throw new AppError("invalid_input", "slack resolves channels by name and people by handle or email; messages are found with search_objects.", { details: { selectors: ["slack.channel: name", "slack.user: handle, email"] } });
}

