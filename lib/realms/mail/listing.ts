// Finding mail: list and search (one page of messages, threads or labels of one account, with an opaque
// cursor bound to that account) and resolve (a selector to one ref, or the choices).
import { z } from "zod";
import { AppError, parseWith } from "@/lib/errors";
import type { CursorState, Filter, LeanItem, RealmContext, ResolveResult } from "@/lib/realms/contract";
import { BASE, open } from "./gmail";
import { labelIds, labelItem, labelsOf, resolveLabel } from "./label";
import { READ_CLAIMS } from "./manifest";
import { messageItems } from "./message";
import type { RefType } from "./refs";
import { threadItems } from "./thread";

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

export type Listing = { type: RefType; filter: Filter; query: string | null; after: CursorState | null; limit: number; operation: string };

export async function listing(ctx: RealmContext, l: Listing): Promise<{ items: LeanItem[]; next: CursorState | null }> {
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

/** A selector → one ref, or the choices: a label by name, a message by subject or sender, a thread by subject. */
export async function resolveSelector(ctx: RealmContext, type: RefType, selector: Record<string, unknown>): Promise<ResolveResult> {
  const sel = parseWith(selectorSchema, selector, "mail selector");
  const s = await open(ctx, "object.get", READ_CLAIMS, { selector: sel.account ?? null });
  if (type === "label") {
    if (!sel.name) throw new AppError("invalid_input", "Name a label with {name}.", { details: { selectors: ["name", "account"] } });
    return resolveLabel(s, sel.name);
  }
  if (!sel.subject && !sel.from) throw new AppError("invalid_input", `Name the ${type} by subject${type === "message" ? " or from" : ""}.`, { details: { selectors: type === "message" ? ["subject", "from", "account"] : ["subject", "account"] } });
  if (type === "thread" && sel.from) throw new AppError("invalid_input", "Threads are named by subject.", { details: { selectors: ["subject", "account"] } });
  const q = [sel.subject ? `subject:${quoted(sel.subject)}` : "", sel.from ? `from:${quoted(sel.from)}` : ""].filter(Boolean).join(" ");
  const found =
    type === "thread"
      ? await threadItems(s, ((await s.call<{ threads?: { id: string }[] }>({ path: `${BASE}/threads`, query: { q, maxResults: 20 } })).threads ?? []).map((t) => t.id))
      : await messageItems(s, ((await s.call<{ messages?: { id: string }[] }>({ path: `${BASE}/messages`, query: { q, maxResults: 20 } })).messages ?? []).map((m) => m.id));
  return found.length === 1 ? { ref: found[0]!.ref } : { choices: found };
}
