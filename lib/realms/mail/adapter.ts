// The mail realm's adapter: translates the generic operations into Gmail REST API calls made with one of
// the authority's connected accounts. Gate two (account and claims) and every provider call go through
// lib/connections (openAccount), so this file only speaks Gmail.
import { z } from "zod";
import { AppError, isAppError, parseWith } from "@/lib/errors";
import { MAX_FILE_BYTES } from "@/lib/delivery/port";
import { openAccount, type AccountSession } from "@/lib/connections/session";
import {
  authorityOf,
  type ActionDef,
  type CursorState,
  type Filter,
  type LeanItem,
  type RealmAdapter,
  type RealmContext,
  type RefDescription,
} from "@/lib/realms/contract";
import { invalidRef } from "@/lib/realms/refs";
import { forwardPayload, labelPayload, manifest, READ_CLAIMS, replyPayload, sendPayload } from "./manifest";

/** The connection API the manifest names (`connection.api`). */
const API = manifest.connection!.api;
const BASE = "/gmail/v1/users/me";
const MAX_ATTACHMENTS = 10;
/** Metadata fetches for one page run a few at a time. */
const CONCURRENCY = 5;
const SEND_UNCERTAIN = "The message may or may not have been sent: search in:sent before sending it again.";

type RefType = "message" | "thread" | "label";
const TYPE_OF: Record<string, RefType> = { "mail.message": "message", "mail.thread": "thread", "mail.label": "label" };

export const mailRef = (accountId: string, type: RefType, id: string) => `mail:gmail:${accountId}:${type}:${id}`;

export function parseMailRef(ref: string): { accountId: string; type: RefType; id: string } {
  const m = /^mail:gmail:(acc_[0-9a-z]{20}):(message|thread|label):([A-Za-z0-9_-]{1,128})$/.exec(ref);
  if (!m) throw invalidRef(ref, "expected mail:gmail:<account_id>:<message|thread|label>:<id>");
  return { accountId: m[1]!, type: m[2] as RefType, id: m[3]! };
}

// ---------------------------------------------------------------------------------------------------
// Gmail resources (only the fields used).

type Header = { name: string; value: string };
type Part = { partId?: string; mimeType?: string; filename?: string; headers?: Header[]; body?: { data?: string; size?: number; attachmentId?: string }; parts?: Part[] };
type GmailMessage = { id: string; threadId: string; labelIds?: string[]; snippet?: string; internalDate?: string; payload?: Part };
type GmailLabel = { id: string; name: string; type?: string; messagesTotal?: number; messagesUnread?: number };

const headerOf = (m: GmailMessage, name: string) => m.payload?.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value ?? "";
const dateOf = (m: GmailMessage) => (m.internalDate ? new Date(Number(m.internalDate)).toISOString() : undefined);
const splitAddresses = (v: string) => (v ? v.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/).map((s) => s.trim()).filter(Boolean) : []);
const bareAddress = (v: string) => (/<([^>]+)>/.exec(v)?.[1] ?? v).trim().toLowerCase();

function textOf(part: Part | undefined): string {
  if (!part) return "";
  if (part.mimeType?.startsWith("text/plain") && part.body?.data && !part.filename) return Buffer.from(part.body.data, "base64url").toString("utf8");
  for (const p of part.parts ?? []) {
    const t = textOf(p);
    if (t) return t;
  }
  return "";
}

function attachmentsOf(part: Part | undefined, out: Part[] = []): Part[] {
  if (!part) return out;
  if (part.filename && part.body?.attachmentId) out.push(part);
  for (const p of part.parts ?? []) attachmentsOf(p, out);
  return out;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Inputs.

const boolish = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
const filterSchema = z.strictObject({
  account: z.string().trim().min(1).max(320).optional(),
  label: z.union([z.string().trim().min(1).max(225), z.array(z.string().trim().min(1).max(225)).max(10)]).optional(),
  unread: boolish.optional(),
});
const selectorSchema = z.strictObject({
  account: z.string().trim().min(1).max(320).optional(),
  subject: z.string().trim().min(1).max(300).optional(),
  from: z.string().trim().min(1).max(320).optional(),
  name: z.string().trim().min(1).max(225).optional(),
});
const cursorSchema = z.strictObject({ acct: z.string(), page: z.union([z.string().max(512), z.number().int().min(0)]) });

/** A value inside a Gmail query, as one quoted term (quotes and parentheses cannot break out). */
const quoted = (v: string) => `"${v.replace(/["()]/g, " ").trim()}"`;

function kindOf(kind: string | null): RefType {
  if (kind === null) return "message";
  const t = Object.hasOwn(TYPE_OF, kind) ? TYPE_OF[kind] : undefined;
  if (!t) throw new AppError("invalid_input", `mail has no kind ${kind}.`, { details: { known_kinds: Object.keys(TYPE_OF) } });
  return t;
}

// ---------------------------------------------------------------------------------------------------

function open(ctx: RealmContext, operation: string, claims: string[], where: { pinned?: string | null; selector?: string | null }) {
  return openAccount(ctx, { api: API, claims, namespace: manifest.namespace, operation, pinnedAccountId: where.pinned ?? null, selector: where.selector ?? null });
}

async function labelsOf(s: AccountSession): Promise<GmailLabel[]> {
  return (await s.call<{ labels?: GmailLabel[] }>({ path: `${BASE}/labels` })).labels ?? [];
}

/** Label names → ids; an unknown name is invalid_input listing the names there are. */
async function labelIds(s: AccountSession, names: string[]): Promise<string[]> {
  if (!names.length) return [];
  const labels = await labelsOf(s);
  return names.map((n) => {
    const l = labels.find((x) => x.name.toLowerCase() === n.toLowerCase() || x.id === n);
    if (!l) throw new AppError("invalid_input", `No label "${n.slice(0, 80)}" in ${s.account.label}.`, { details: { known_labels: labels.map((x) => x.name).slice(0, 100) } });
    return l.id;
  });
}

const labelNames = (ids: string[], labels: GmailLabel[]) => ids.map((id) => labels.find((l) => l.id === id)?.name ?? id);

async function messageItems(s: AccountSession, ids: string[]): Promise<LeanItem[]> {
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

async function threadItems(s: AccountSession, ids: string[]): Promise<LeanItem[]> {
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

function labelItem(accountId: string, l: GmailLabel): LeanItem {
  return { ref: mailRef(accountId, "label", l.id), kind: "mail.label", label: l.name, summary: l.type === "user" ? "your label" : "system label" };
}

type Listing = { type: RefType; filter: Filter; query: string | null; after: CursorState | null; limit: number; operation: string };

async function listing(ctx: RealmContext, l: Listing): Promise<{ items: LeanItem[]; next: CursorState | null }> {
  const f = parseWith(filterSchema, l.filter, "mail filter");
  const s = await open(ctx, l.operation, READ_CLAIMS, { selector: f.account ?? null });
  const after = l.after ? parseWith(cursorSchema, l.after, "cursor") : null;
  if (after && after.acct !== s.account.id) throw new AppError("invalid_cursor", "This cursor belongs to another account's listing.");

  if (l.type === "label") {
    if (f.label !== undefined || f.unread !== undefined) throw new AppError("invalid_input", "mail.label filters only by account.");
    const q = l.query?.toLowerCase() ?? null;
    const all = (await labelsOf(s)).filter((x) => q === null || x.name.toLowerCase().includes(q));
    const start = typeof after?.page === "number" ? after.page : 0;
    const page = all.slice(start, start + l.limit);
    return { items: page.map((x) => labelItem(s.account.id, x)), next: start + l.limit < all.length ? { acct: s.account.id, page: start + l.limit } : null };
  }

  const ids = await labelIds(s, f.label === undefined ? [] : Array.isArray(f.label) ? f.label : [f.label]);
  if (f.unread === true) ids.push("UNREAD");
  const q = [l.query ?? "", f.unread === false ? "is:read" : ""].filter(Boolean).join(" ");
  const query = { q: q || undefined, labelIds: ids.length ? ids : undefined, maxResults: l.limit, pageToken: typeof after?.page === "string" ? after.page : undefined };
  if (l.type === "thread") {
    const res = await s.call<{ threads?: { id: string }[]; nextPageToken?: string }>({ path: `${BASE}/threads`, query });
    const items = await threadItems(s, (res.threads ?? []).slice(0, l.limit).map((t) => t.id));
    return { items, next: res.nextPageToken ? { acct: s.account.id, page: res.nextPageToken } : null };
  }
  const res = await s.call<{ messages?: { id: string }[]; nextPageToken?: string }>({ path: `${BASE}/messages`, query });
  const items = await messageItems(s, (res.messages ?? []).slice(0, l.limit).map((m) => m.id));
  return { items, next: res.nextPageToken ? { acct: s.account.id, page: res.nextPageToken } : null };
}

// ---------------------------------------------------------------------------------------------------
// Reading one object.

async function getMessage(ctx: RealmContext, s: AccountSession, id: string, full: boolean) {
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

async function getThread(s: AccountSession, id: string) {
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

async function getLabel(s: AccountSession, id: string) {
  const l = await s.call<GmailLabel>({ path: `${BASE}/labels/${id}` });
  return { ref: mailRef(s.account.id, "label", l.id), kind: "mail.label", account: s.account.label, name: l.name, type: l.type === "user" ? "user" : "system", messages_total: l.messagesTotal ?? 0, messages_unread: l.messagesUnread ?? 0 };
}

// ---------------------------------------------------------------------------------------------------
// Writing mail: a minimal RFC 5322 message, plain text, UTF-8.

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

async function runAction(ctx: RealmContext, action: ActionDef, ref: string | null, payload: Record<string, unknown>) {
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

/** A provider answer, or null when the realm refuses or cannot say (not found, no such account, a demand, an outage). */
async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (isAppError(err)) return null;
    throw err;
  }
}

/**
 * Refs as a person reads them, with the caller's own connected accounts (gate two pins each ref's account, so a
 * ref into someone else's account is null). Per account: one session, one labels call for every label ref, and
 * one metadata call per message or thread (Gmail has no multi-get), a few at a time. Anything unreadable is null.
 */
async function describeRefs(ctx: RealmContext, input: string[]): Promise<Record<string, RefDescription | null>> {
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

function unsupported(what: string): never {
  throw new AppError("invalid_input", `mail does not support ${what}: mail is read, searched and changed through its actions (send, reply, forward, archive, label).`);
}

export const adapter: RealmAdapter = {
  parseRef(ref) {
    const r = parseMailRef(ref);
    return { kind: `mail.${r.type}`, account_id: r.accountId };
  },

  describeRefs,

  list: (ctx, input) => listing(ctx, { type: kindOf(input.kind), filter: input.filter, query: null, after: input.after, limit: input.limit, operation: "object.list" }),

  search: (ctx, input) => listing(ctx, { type: kindOf(input.kind), filter: input.filter, query: input.query, after: input.after, limit: input.limit, operation: "object.search" }),

  async get(ctx, { ref, full }) {
    const r = parseMailRef(ref);
    const s = await open(ctx, "object.get", READ_CLAIMS, { pinned: r.accountId });
    if (r.type === "message") return getMessage(ctx, s, r.id, full);
    if (r.type === "thread") return getThread(s, r.id);
    return getLabel(s, r.id);
  },

  action: (ctx, { action, ref, payload }) => runAction(ctx, action, ref, payload),

  async resolve(ctx, { kind, selector }) {
    const type = kindOf(kind);
    const sel = parseWith(selectorSchema, selector, "mail selector");
    const s = await open(ctx, "object.get", READ_CLAIMS, { selector: sel.account ?? null });
    if (type === "label") {
      if (!sel.name) throw new AppError("invalid_input", "Name a label with {name}.", { details: { selectors: ["name", "account"] } });
      const all = await labelsOf(s);
      const exact = all.filter((l) => l.name.toLowerCase() === sel.name!.toLowerCase());
      if (exact.length === 1) return { ref: mailRef(s.account.id, "label", exact[0]!.id) };
      return { choices: all.filter((l) => l.name.toLowerCase().includes(sel.name!.toLowerCase())).slice(0, 20).map((l) => labelItem(s.account.id, l)) };
    }
    if (!sel.subject && !sel.from) throw new AppError("invalid_input", `Name the ${type} by subject${type === "message" ? " or from" : ""}.`, { details: { selectors: type === "message" ? ["subject", "from", "account"] : ["subject", "account"] } });
    if (type === "thread" && sel.from) throw new AppError("invalid_input", "Threads are named by subject.", { details: { selectors: ["subject", "account"] } });
    const q = [sel.subject ? `subject:${quoted(sel.subject)}` : "", sel.from ? `from:${quoted(sel.from)}` : ""].filter(Boolean).join(" ");
    const found =
      type === "thread"
        ? await threadItems(s, ((await s.call<{ threads?: { id: string }[] }>({ path: `${BASE}/threads`, query: { q, maxResults: 20 } })).threads ?? []).map((t) => t.id))
        : await messageItems(s, ((await s.call<{ messages?: { id: string }[] }>({ path: `${BASE}/messages`, query: { q, maxResults: 20 } })).messages ?? []).map((m) => m.id));
    return found.length === 1 ? { ref: found[0]!.ref } : { choices: found };
  },

  upsert: () => unsupported("upsert_object"),
  delete: () => unsupported("delete_object"),
  hostFile: () => unsupported("host_file"),
};

