// The docs realm's adapter: documents, tabs, comment threads, comments, exports and uploaded files in
// Realmgate's database, per tenant, behind the owner / shared-with ACL of the document (gate two). Children
// inherit their document's ACL; a file is its uploader's, and also visible to the readers of the document it
// is attached to. Every query carries the tenant; what the caller cannot see answers not_found.
import { and, asc, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { z } from "zod";
import {
  docStatuses,
  docsComments,
  docsDocuments,
  docsExports,
  docsFiles,
  docsTabs,
  docsThreads,
  memberships,
  threadStatuses,
  users,
  type DocsDocument,
  type DocsFile,
  type DocsTab,
  type DocsThread,
} from "@/db/schema";
import { AppError, parseWith } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { assertDestroyable, assertReadable, canRead, canWrite, notFound } from "@/lib/realms/acl";
import {
  authorityOf,
  type ActionDef,
  type CursorState,
  type Filter,
  type LeanItem,
  type RealmAdapter,
  type RealmContext,
  type RefDescription,
  type ResolveResult,
} from "@/lib/realms/contract";
import { invalidRef, refCodec } from "@/lib/realms/refs";
import { exportPayload, manifest, replyCommentPayload, resolveThreadPayload } from "./manifest";
import { renderDocument } from "./render";
import { likePattern, sharedWithAfter } from "@/lib/realms/native";

const KINDS = {
  document: "docs.document",
  tab: "docs.tab",
  thread: "docs.comment_thread",
  comment: "docs.comment",
  export: "docs.export",
  file: "docs.file",
} as const;
type Segment = keyof typeof KINDS;

const refs = refCodec<Segment>("docs", {
  document: { kind: KINDS.document, idPrefix: "doc" },
  tab: { kind: KINDS.tab, idPrefix: "tab" },
  thread: { kind: KINDS.thread, idPrefix: "thr" },
  comment: { kind: KINDS.comment, idPrefix: "cmt" },
  export: { kind: KINDS.export, idPrefix: "fil" },
  file: { kind: KINDS.file, idPrefix: "fil" },
});

const MAX_CHOICES = 20;
/** Compact gets stay small: a thread shows this many comments, each cut to this length. */
const COMPACT_COMMENTS = 50;
const COMPACT_COMMENT_CHARS = 1_000;
const FULL_COMMENTS = 500;
const PREVIEW_CHARS = 280;

// ---------------------------------------------------------------------------------------------------
// Input schemas (the dispatcher checks the manifest; these check the fields themselves).

const oneLine = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\r\n]*$/, "must be one line");
const title = oneLine(200);
const tabBody = z.string().max(500_000);
const commentBody = z.string().trim().min(1).max(10_000);
const refString = z.string().min(1).max(512);
const person = z.string().trim().min(1).max(320);
const sharedWithInput = z.union([
  z.array(person).max(100),
  z.strictObject({ add: z.array(person).max(100).optional(), remove: z.array(person).max(100).optional() }),
]);

const documentFields = z.strictObject({
  title: title.optional(),
  status: z.enum(docStatuses).optional(),
  shared_with: sharedWithInput.optional(),
});
const tabCreate = z.strictObject({ document: refString, title, body: tabBody.optional(), position: z.number().int().min(1).optional() });
const tabPatch = z.strictObject({ title: title.optional(), body: tabBody.optional(), position: z.number().int().min(1).optional() });
const threadCreate = z.strictObject({
  document: refString,
  tab: refString.optional(),
  quote: z.string().trim().min(1).max(1_000).optional(),
  body: commentBody,
});

const documentFilter = z.strictObject({ status: z.enum(docStatuses).optional(), author: person.optional() });
const tabFilter = z.strictObject({ document: refString });
const threadFilter = z.strictObject({ document: refString.optional(), status: z.enum(threadStatuses).optional() });
const commentFilter = z.strictObject({ thread: refString });
const exportFilter = z.strictObject({ document: refString });
const fileFilter = z.strictObject({ document: refString.optional() });

/** File names end up in download headers: one line, no control characters. */
const fileName = oneLine(200).regex(/^[^\p{Cc}]*$/u, "must not contain control characters");
/** Only the name and the attachment change; the bytes never do (upload a new file instead). */
const filePatch = z.strictObject({ name: fileName.optional(), document: refString.nullable().optional() });

const selectorText = z.string().trim().min(1).max(1_000);
const documentSelector = z
  .strictObject({ title: selectorText.optional(), author: person.optional(), status: z.enum(docStatuses).optional() })
  .refine((s) => s.title !== undefined || s.author !== undefined || s.status !== undefined, "name a document by title, author or status");
const tabSelector = z.strictObject({ title: selectorText, document: refString.optional() });
const threadSelector = z.strictObject({ quote: selectorText, document: refString.optional() });

const timeKey = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
const idKey = z.string().min(1).max(40);
/** Keyset positions, tagged with the kind they page through so a cursor cannot be replayed on another list. */
const cursors = {
  document: z.strictObject({ k: z.literal("document"), u: timeKey, id: idKey }),
  tab: z.strictObject({ k: z.literal("tab"), p: z.number().int(), id: idKey }),
  thread: z.strictObject({ k: z.literal("thread"), s: z.number().int().min(0) }),
  comment: z.strictObject({ k: z.literal("comment"), s: z.number().int().min(0) }),
  export: z.strictObject({ k: z.literal("export"), u: timeKey, id: idKey }),
  file: z.strictObject({ k: z.literal("file"), u: timeKey, id: idKey }),
};

function readCursor<S extends Segment>(segment: S, after: CursorState | null): z.infer<(typeof cursors)[S]> | null {
  if (!after) return null;
  const parsed = cursors[segment].safeParse(after);
  if (!parsed.success) throw new AppError("invalid_cursor", `This cursor does not belong to a list of ${KINDS[segment]}.`);
  return parsed.data as z.infer<(typeof cursors)[S]>;
}

// ---------------------------------------------------------------------------------------------------
// Small helpers.

const segmentOfKind = (kind: string): Segment | undefined => (Object.keys(KINDS) as Segment[]).find((s) => KINDS[s] === kind);

function segmentFor(kind: string): Segment {
  const s = segmentOfKind(kind);
  if (!s) throw new AppError("invalid_input", `docs has no kind ${kind}; its kinds are ${Object.values(KINDS).join(", ")}.`, { details: { kind } });
  return s;
}

function unsupported(kind: string, operation: string): never {
  throw new AppError("invalid_input", `${kind} does not support ${operation}.`, { details: { kind, operation } });
}

/** The id in a ref of the expected kind; anything else is invalid_ref. */
function idOf(ref: string, segment: Segment): string {
  const parsed = refs.parse(ref);
  if (parsed.segment !== segment) throw invalidRef(ref, `expected a ${KINDS[segment]} ref (docs:${segment}:…), not a ${parsed.kind}`);
  return parsed.id;
}

/**
 * Before linking to another object (a tab's document, a thread's tab, a file's document): the ref must be of the
 * expected kind, and covered by the grant that let the call in (ctx.gateRef throws otherwise).
 */
async function gateLink(ctx: RealmContext, ref: string, segment: Segment, where: string): Promise<void> {
  idOf(ref, segment);
  await ctx.gateRef(ref, where);
}

const clampLimit = (limit: number) => Math.min(Math.max(1, Math.trunc(limit) || 1), manifest.delivery.max_page_size);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const squash = (s: string) => s.replace(/\s+/g, " ").trim();
/** At most n UTF-16 units, never splitting a surrogate pair. */
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).replace(/[\uD800-\uDBFF]$/, "")}…` : s);
/** Characters as Postgres' char_length counts them (code points), so sizes agree everywhere. */
const charCount = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};
/** A timestamp as an exact (microsecond) UTC string: a JS Date would lose precision and break the keyset. */
const exactTime = (col: AnyPgColumn) =>
  sql<string>`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function searchTerms(query: string): string[] {
  const terms = query.trim().split(/\s+/).filter(Boolean).slice(0, 10);
  if (!terms.length) throw new AppError("invalid_input", "Say what to search for: the query is empty.", { details: { field: "query" } });
  return terms.map((t) => t.slice(0, 100));
}

const viaActor = (ctx: RealmContext) => (ctx.principal.type === "actor" ? ctx.principal.actorId : null);

type Person = { id: string; name: string; email: string };

async function peopleOf(ctx: RealmContext, ids: (string | null)[]): Promise<Map<string, Person>> {
  const wanted = [...new Set(ids.filter((i): i is string => !!i))];
  if (!wanted.length) return new Map();
  const rows = await ctx.tx.select({ id: users.id, name: users.name, email: users.email }).from(users).where(inArray(users.id, wanted));
  return new Map(rows.map((r) => [r.id, r]));
}

const emailOf = (people: Map<string, Person>, id: string | null) => (id ? (people.get(id)?.email ?? id) : null);

// ---------------------------------------------------------------------------------------------------
// Visibility and loading. A child is visible exactly when its document is.

/** Documents the caller may read: in the tenant, owned by or shared with the call's authority. */
function visibleDocuments(ctx: RealmContext): SQL {
  const who = authorityOf(ctx.principal);
  return and(
    eq(docsDocuments.tenantId, ctx.tenantId),
    or(eq(docsDocuments.ownerId, who), sql`${docsDocuments.sharedWith} @> array[${who}]::text[]`),
  )!;
}

const aclOf = (d: DocsDocument) => ({ ownerId: d.ownerId, sharedWith: d.sharedWith });

async function loadDocument(ctx: RealmContext, ref: string): Promise<DocsDocument> {
  const id = idOf(ref, "document");
  const [row] = await ctx.tx
    .select()
    .from(docsDocuments)
    .where(and(eq(docsDocuments.tenantId, ctx.tenantId), eq(docsDocuments.id, id)));
  assertReadable(row && aclOf(row), ref, ctx.principal);
  return row!;
}

async function loadTab(ctx: RealmContext, ref: string): Promise<{ tab: DocsTab; doc: DocsDocument }> {
  const id = idOf(ref, "tab");
  const [row] = await ctx.tx
    .select({ tab: docsTabs, doc: docsDocuments })
    .from(docsTabs)
    .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsTabs.documentId), eq(docsDocuments.tenantId, docsTabs.tenantId)))
    .where(and(eq(docsTabs.tenantId, ctx.tenantId), eq(docsTabs.id, id)));
  assertReadable(row && aclOf(row.doc), ref, ctx.principal);
  return row!;
}

async function loadThread(ctx: RealmContext, ref: string): Promise<{ thread: DocsThread; doc: DocsDocument }> {
  const id = idOf(ref, "thread");
  const [row] = await ctx.tx
    .select({ thread: docsThreads, doc: docsDocuments })
    .from(docsThreads)
    .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
    .where(and(eq(docsThreads.tenantId, ctx.tenantId), eq(docsThreads.id, id)));
  assertReadable(row && aclOf(row.doc), ref, ctx.principal);
  return row!;
}

type LoadedFile = { file: DocsFile; doc: DocsDocument | null };

/** A file is visible to its uploader, and to whoever can read the document it is attached to. */
async function loadFile(ctx: RealmContext, ref: string): Promise<LoadedFile> {
  const id = idOf(ref, "file");
  const [row] = await ctx.tx
    .select({ file: docsFiles, doc: docsDocuments })
    .from(docsFiles)
    .leftJoin(docsDocuments, and(eq(docsDocuments.id, docsFiles.documentId), eq(docsDocuments.tenantId, docsFiles.tenantId)))
    .where(and(eq(docsFiles.tenantId, ctx.tenantId), eq(docsFiles.id, id)));
  if (!row) throw notFound(ref);
  const mine = row.file.ownerId === authorityOf(ctx.principal);
  if (!mine && !(row.doc && canRead(aclOf(row.doc), ctx.principal))) throw notFound(ref);
  return row;
}

/** Renaming, attaching and deleting a file are its uploader's alone, as downloading it is. */
function assertUploader(file: DocsFile, ref: string, ctx: RealmContext): void {
  assertDestroyable({ ownerId: file.ownerId, sharedWith: [] }, ref, ctx.principal);
}

/** Serialise writes that renumber a document's tabs. */
async function lockDocument(ctx: RealmContext, documentId: string): Promise<void> {
  await ctx.tx
    .select({ id: docsDocuments.id })
    .from(docsDocuments)
    .where(and(eq(docsDocuments.tenantId, ctx.tenantId), eq(docsDocuments.id, documentId)))
    .for("update");
}

async function touchDocument(ctx: RealmContext, documentId: string): Promise<void> {
  await ctx.tx
    .update(docsDocuments)
    .set({ updatedAt: ctx.now })
    .where(and(eq(docsDocuments.tenantId, ctx.tenantId), eq(docsDocuments.id, documentId)));
}

// ---------------------------------------------------------------------------------------------------
// People: authors named in filters and selectors, members named in shared_with.

/** Tenant members an `author` filter names: "me", a user id, an email, or a name (exact, else partial). */
async function authorIds(ctx: RealmContext, author: string): Promise<string[]> {
  if (author.toLowerCase() === "me") return [authorityOf(ctx.principal)];
  const members = () =>
    ctx.tx
      .select({ id: users.id })
      .from(users)
      .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, ctx.tenantId)));
  const lowered = author.toLowerCase();
  const exact = await members().where(or(eq(users.id, author), sql`lower(${users.email}) = ${lowered}`, sql`lower(${users.name}) = ${lowered}`));
  if (exact.length) return exact.map((r) => r.id);
  const partial = await members().where(sql`${users.name} ilike ${likePattern(author)}`);
  return partial.map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------------
// Pages. Each list is a keyset over a stable order, fetched one row past the page to know if more follow.

type PageResult = { items: LeanItem[]; next: CursorState | null };

const tabCount = sql<number>`(select count(*)::int from ${docsTabs} where ${docsTabs.tenantId} = ${docsDocuments.tenantId} and ${docsTabs.documentId} = ${docsDocuments.id})`;
const openThreadCount = sql<number>`(select count(*)::int from ${docsThreads} where ${docsThreads.tenantId} = ${docsDocuments.tenantId} and ${docsThreads.documentId} = ${docsDocuments.id} and ${docsThreads.status} = 'open')`;

/** Documents, most recently changed first. `snippetTerm` adds where the text matched to each summary. */
async function documentPage(ctx: RealmContext, conditions: SQL[], after: CursorState | null, limit: number, snippetTerm?: string): Promise<PageResult> {
  const n = clampLimit(limit);
  const c = readCursor("document", after);
  const where = [visibleDocuments(ctx), ...conditions];
  if (c) where.push(sql`(${docsDocuments.updatedAt}, ${docsDocuments.id}) < (${c.u}::timestamptz, ${c.id})`);
  const rows = await ctx.tx
    .select({
      id: docsDocuments.id,
      title: docsDocuments.title,
      status: docsDocuments.status,
      updatedAt: docsDocuments.updatedAt,
      key: exactTime(docsDocuments.updatedAt),
      ownerName: users.name,
      tabs: tabCount,
      open: openThreadCount,
    })
    .from(docsDocuments)
    .innerJoin(users, eq(users.id, docsDocuments.ownerId))
    .where(and(...where))
    .orderBy(desc(docsDocuments.updatedAt), desc(docsDocuments.id))
    .limit(n + 1);
  const shown = rows.slice(0, n);
  const snippets = snippetTerm ? await tabSnippets(ctx, shown.map((r) => r.id), snippetTerm) : new Map<string, string>();
  const items = shown.map((r) => {
    const parts = [r.status, plural(r.tabs, "tab"), plural(r.open, "open thread"), `by ${r.ownerName}`];
    const snippet = snippets.get(r.id);
    return {
      ref: refs.make("document", r.id),
      kind: KINDS.document,
      label: r.title,
      summary: parts.join(" · ") + (snippet ? ` — ${snippet}` : ""),
      updated_at: r.updatedAt.toISOString(),
    };
  });
  const last = shown.at(-1);
  return { items, next: rows.length > n && last ? { k: "document", u: last.key, id: last.id } : null };
}

/** For each document, the first tab text around `term`: shows a searcher why a document matched. */
async function tabSnippets(ctx: RealmContext, documentIds: string[], term: string): Promise<Map<string, string>> {
  if (!documentIds.length) return new Map();
  const rows = await ctx.tx
    .selectDistinctOn([docsTabs.documentId], {
      documentId: docsTabs.documentId,
      tab: docsTabs.title,
      excerpt: sql<string>`substr(${docsTabs.body}, greatest(strpos(lower(${docsTabs.body}), lower(${term})) - 60, 1), 160)`,
    })
    .from(docsTabs)
    .where(and(eq(docsTabs.tenantId, ctx.tenantId), inArray(docsTabs.documentId, documentIds), sql`${docsTabs.body} ilike ${likePattern(term)}`))
    .orderBy(docsTabs.documentId, asc(docsTabs.position));
  return new Map(rows.map((r) => [r.documentId, `${r.tab}: “${cut(squash(r.excerpt), 120)}”`]));
}

async function documentConditions(ctx: RealmContext, filter: Filter): Promise<SQL[]> {
  const f = parseWith(documentFilter, filter, "filter");
  const out: SQL[] = [];
  if (f.status) out.push(eq(docsDocuments.status, f.status));
  if (f.author !== undefined) {
    const ids = await authorIds(ctx, f.author);
    out.push(ids.length ? inArray(docsDocuments.ownerId, ids) : sql`false`);
  }
  return out;
}

/** Each term appears in the title, or in a tab's title or body. */
function documentMatches(terms: string[]): SQL[] {
  return terms.map((t) => {
    const p = likePattern(t);
    return sql`(${docsDocuments.title} ilike ${p} or exists (select 1 from ${docsTabs} where ${docsTabs.tenantId} = ${docsDocuments.tenantId} and ${docsTabs.documentId} = ${docsDocuments.id} and (${docsTabs.title} ilike ${p} or ${docsTabs.body} ilike ${p})))`;
  });
}

async function tabPage(ctx: RealmContext, doc: DocsDocument, conditions: SQL[], after: CursorState | null, limit: number): Promise<PageResult> {
  const n = clampLimit(limit);
  const c = readCursor("tab", after);
  const where = [eq(docsTabs.tenantId, ctx.tenantId), eq(docsTabs.documentId, doc.id), ...conditions];
  if (c) where.push(sql`(${docsTabs.position}, ${docsTabs.id}) > (${c.p}, ${c.id})`);
  const rows = await ctx.tx
    .select({
      id: docsTabs.id,
      title: docsTabs.title,
      position: docsTabs.position,
      updatedAt: docsTabs.updatedAt,
      chars: sql<number>`char_length(${docsTabs.body})`,
      start: sql<string>`left(${docsTabs.body}, 200)`,
    })
    .from(docsTabs)
    .where(and(...where))
    .orderBy(asc(docsTabs.position), asc(docsTabs.id))
    .limit(n + 1);
  const shown = rows.slice(0, n);
  const items = shown.map((r) => ({
    ref: refs.make("tab", r.id),
    kind: KINDS.tab,
    label: r.title,
    summary: [`tab ${r.position} of “${doc.title}”`, plural(r.chars, "character"), cut(squash(r.start), 80)].filter(Boolean).join(" · "),
    updated_at: r.updatedAt.toISOString(),
  }));
  const last = shown.at(-1);
  return { items, next: rows.length > n && last ? { k: "tab", p: last.position, id: last.id } : null };
}

/** Threads in insertion order, with enough of their comments to tell them apart. */
async function threadPage(ctx: RealmContext, conditions: SQL[], after: CursorState | null, limit: number): Promise<PageResult> {
  const n = clampLimit(limit);
  const c = readCursor("thread", after);
  const where = [visibleDocuments(ctx), ...conditions];
  if (c) where.push(sql`${docsThreads.seq} > ${c.s}`);
  const inThread = sql`${docsComments.tenantId} = ${docsThreads.tenantId} and ${docsComments.threadId} = ${docsThreads.id}`;
  const rows = await ctx.tx
    .select({
      id: docsThreads.id,
      seq: docsThreads.seq,
      quote: docsThreads.quote,
      status: docsThreads.status,
      updatedAt: docsThreads.updatedAt,
      documentTitle: docsDocuments.title,
      tabTitle: docsTabs.title,
      comments: sql<number>`(select count(*)::int from ${docsComments} where ${inThread})`,
      first: sql<string | null>`(select left(${docsComments.body}, 200) from ${docsComments} where ${inThread} order by ${docsComments.seq} asc limit 1)`,
      latestBy: sql<string | null>`(select ${users.name} from ${docsComments} join ${users} on ${users.id} = ${docsComments.authorId} where ${inThread} order by ${docsComments.seq} desc limit 1)`,
    })
    .from(docsThreads)
    .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
    .leftJoin(docsTabs, and(eq(docsTabs.id, docsThreads.tabId), eq(docsTabs.tenantId, docsThreads.tenantId)))
    .where(and(...where))
    .orderBy(asc(docsThreads.seq))
    .limit(n + 1);
  const shown = rows.slice(0, n);
  const items = shown.map((r) => {
    const where = r.tabTitle ? `on “${r.documentTitle}” › ${r.tabTitle}` : `on “${r.documentTitle}”`;
    return {
      ref: refs.make("thread", r.id),
      kind: KINDS.thread,
      label: r.quote ? `“${cut(squash(r.quote), 70)}”` : cut(squash(r.first ?? "(no comments)"), 70),
      summary: [r.status, plural(r.comments, "comment"), where, r.latestBy ? `latest by ${r.latestBy}` : ""].filter(Boolean).join(" · "),
      updated_at: r.updatedAt.toISOString(),
    };
  });
  const last = shown.at(-1);
  return { items, next: rows.length > n && last ? { k: "thread", s: last.seq } : null };
}

/** Each term appears in the quote or in one of the thread's comments. */
function threadMatches(terms: string[]): SQL[] {
  return terms.map((t) => {
    const p = likePattern(t);
    return sql`(coalesce(${docsThreads.quote}, '') ilike ${p} or exists (select 1 from ${docsComments} where ${docsComments.tenantId} = ${docsThreads.tenantId} and ${docsComments.threadId} = ${docsThreads.id} and ${docsComments.body} ilike ${p}))`;
  });
}

async function threadConditions(ctx: RealmContext, filter: Filter): Promise<SQL[]> {
  const f = parseWith(threadFilter, filter, "filter");
  const out: SQL[] = [];
  if (f.document !== undefined) out.push(eq(docsThreads.documentId, (await loadDocument(ctx, f.document)).id));
  if (f.status) out.push(eq(docsThreads.status, f.status));
  return out;
}

async function commentPage(ctx: RealmContext, thread: DocsThread, after: CursorState | null, limit: number): Promise<PageResult> {
  const n = clampLimit(limit);
  const c = readCursor("comment", after);
  const where = [eq(docsComments.tenantId, ctx.tenantId), eq(docsComments.threadId, thread.id)];
  if (c) where.push(sql`${docsComments.seq} > ${c.s}`);
  const rows = await ctx.tx
    .select({ id: docsComments.id, seq: docsComments.seq, start: sql<string>`left(${docsComments.body}, 200)`, createdAt: docsComments.createdAt, author: users.name })
    .from(docsComments)
    .innerJoin(users, eq(users.id, docsComments.authorId))
    .where(and(...where))
    .orderBy(asc(docsComments.seq))
    .limit(n + 1);
  const shown = rows.slice(0, n);
  const items = shown.map((r) => ({
    ref: refs.make("comment", r.id),
    kind: KINDS.comment,
    label: `${r.author}: ${cut(squash(r.start), 80)}`,
    updated_at: r.createdAt.toISOString(),
  }));
  const last = shown.at(-1);
  return { items, next: rows.length > n && last ? { k: "comment", s: last.seq } : null };
}

async function exportPage(ctx: RealmContext, doc: DocsDocument, after: CursorState | null, limit: number): Promise<PageResult> {
  const n = clampLimit(limit);
  const c = readCursor("export", after);
  const where = [eq(docsExports.tenantId, ctx.tenantId), eq(docsExports.documentId, doc.id), eq(docsExports.createdBy, authorityOf(ctx.principal))];
  if (c) where.push(sql`(${docsExports.createdAt}, ${docsExports.id}) < (${c.u}::timestamptz, ${c.id})`);
  const rows = await ctx.tx
    .select({ id: docsExports.id, name: docsExports.name, format: docsExports.format, size: docsExports.size, createdAt: docsExports.createdAt, key: exactTime(docsExports.createdAt) })
    .from(docsExports)
    .where(and(...where))
    .orderBy(desc(docsExports.createdAt), desc(docsExports.id))
    .limit(n + 1);
  const shown = rows.slice(0, n);
  const items = shown.map((r) => ({
    ref: refs.make("export", r.id),
    kind: KINDS.export,
    label: r.name,
    summary: `${r.format} · ${plural(r.size, "byte")} · of “${doc.title}”`,
    updated_at: r.createdAt.toISOString(),
  }));
  const last = shown.at(-1);
  return { items, next: rows.length > n && last ? { k: "export", u: last.key, id: last.id } : null };
}

/**
 * Files newest first: without a document, the caller's own uploads; with one (which the caller must be able
 * to read), every file attached to it, since its readers may all see them.
 */
async function filePage(ctx: RealmContext, filter: Filter, after: CursorState | null, limit: number): Promise<PageResult> {
  const f = parseWith(fileFilter, filter, "filter");
  const n = clampLimit(limit);
  const c = readCursor("file", after);
  const where = [eq(docsFiles.tenantId, ctx.tenantId)];
  if (f.document !== undefined) where.push(eq(docsFiles.documentId, (await loadDocument(ctx, f.document)).id));
  else where.push(eq(docsFiles.ownerId, authorityOf(ctx.principal)));
  if (c) where.push(sql`(${docsFiles.createdAt}, ${docsFiles.id}) < (${c.u}::timestamptz, ${c.id})`);
  const rows = await ctx.tx
    .select({
      id: docsFiles.id,
      name: docsFiles.name,
      contentType: docsFiles.contentType,
      size: docsFiles.size,
      createdAt: docsFiles.createdAt,
      key: exactTime(docsFiles.createdAt),
      documentTitle: docsDocuments.title,
      uploader: users.name,
    })
    .from(docsFiles)
    .innerJoin(users, eq(users.id, docsFiles.ownerId))
    .leftJoin(docsDocuments, and(eq(docsDocuments.id, docsFiles.documentId), eq(docsDocuments.tenantId, docsFiles.tenantId)))
    .where(and(...where))
    .orderBy(desc(docsFiles.createdAt), desc(docsFiles.id))
    .limit(n + 1);
  const shown = rows.slice(0, n);
  const items = shown.map((r) => ({
    ref: refs.make("file", r.id),
    kind: KINDS.file,
    label: r.name,
    summary: [r.contentType, plural(r.size, "byte"), r.documentTitle === null ? "not attached" : `attached to “${r.documentTitle}”`, `by ${r.uploader}`].join(" · "),
    updated_at: r.createdAt.toISOString(),
  }));
  const last = shown.at(-1);
  return { items, next: rows.length > n && last ? { k: "file", u: last.key, id: last.id } : null };
}

// ---------------------------------------------------------------------------------------------------
// Presenting one object (get_object and upsert results).

async function presentDocument(ctx: RealmContext, doc: DocsDocument, full: boolean): Promise<Record<string, unknown>> {
  const tabs = await ctx.tx
    .select({
      id: docsTabs.id,
      title: docsTabs.title,
      position: docsTabs.position,
      chars: sql<number>`char_length(${docsTabs.body})`,
      ...(full ? { body: docsTabs.body } : {}),
    })
    .from(docsTabs)
    .where(and(eq(docsTabs.tenantId, ctx.tenantId), eq(docsTabs.documentId, doc.id)))
    .orderBy(asc(docsTabs.position), asc(docsTabs.id));
  const counts = await ctx.tx
    .select({ status: docsThreads.status, n: sql<number>`count(*)::int` })
    .from(docsThreads)
    .where(and(eq(docsThreads.tenantId, ctx.tenantId), eq(docsThreads.documentId, doc.id)))
    .groupBy(docsThreads.status);
  const people = await peopleOf(ctx, [doc.ownerId, ...doc.sharedWith]);
  return {
    ref: refs.make("document", doc.id),
    kind: KINDS.document,
    title: doc.title,
    status: doc.status,
    owner: emailOf(people, doc.ownerId),
    shared_with: doc.sharedWith.map((id) => emailOf(people, id)),
    tabs: tabs.map((t) => ({
      ref: refs.make("tab", t.id),
      title: t.title,
      position: t.position,
      body_chars: t.chars,
      ...("body" in t ? { body: t.body } : {}),
    })),
    threads: {
      open: counts.find((c) => c.status === "open")?.n ?? 0,
      resolved: counts.find((c) => c.status === "resolved")?.n ?? 0,
    },
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}

function presentTab(tab: DocsTab, doc: DocsDocument, full: boolean): Record<string, unknown> {
  return {
    ref: refs.make("tab", tab.id),
    kind: KINDS.tab,
    document: refs.make("document", doc.id),
    document_title: doc.title,
    title: tab.title,
    position: tab.position,
    body_chars: charCount(tab.body),
    ...(full ? { body: tab.body } : { preview: cut(tab.body, PREVIEW_CHARS) }),
    updated_at: tab.updatedAt.toISOString(),
  };
}

async function presentThread(ctx: RealmContext, thread: DocsThread, doc: DocsDocument, full: boolean): Promise<Record<string, unknown>> {
  const max = full ? FULL_COMMENTS : COMPACT_COMMENTS;
  const comments = await ctx.tx
    .select()
    .from(docsComments)
    .where(and(eq(docsComments.tenantId, ctx.tenantId), eq(docsComments.threadId, thread.id)))
    .orderBy(asc(docsComments.seq))
    .limit(max + 1);
  const [count] = await ctx.tx
    .select({ n: sql<number>`count(*)::int` })
    .from(docsComments)
    .where(and(eq(docsComments.tenantId, ctx.tenantId), eq(docsComments.threadId, thread.id)));
  const [tab] = thread.tabId
    ? await ctx.tx
        .select({ title: docsTabs.title })
        .from(docsTabs)
        .where(and(eq(docsTabs.tenantId, ctx.tenantId), eq(docsTabs.id, thread.tabId)))
    : [];
  const people = await peopleOf(ctx, [thread.createdBy, thread.resolvedBy, ...comments.map((c) => c.authorId)]);
  const shown = comments.slice(0, max);
  return {
    ref: refs.make("thread", thread.id),
    kind: KINDS.thread,
    document: refs.make("document", doc.id),
    document_title: doc.title,
    tab: thread.tabId ? refs.make("tab", thread.tabId) : null,
    tab_title: tab?.title ?? null,
    quote: thread.quote,
    status: thread.status,
    started_by: emailOf(people, thread.createdBy),
    created_at: thread.createdAt.toISOString(),
    updated_at: thread.updatedAt.toISOString(),
    resolved_by: emailOf(people, thread.resolvedBy),
    ...(thread.resolvedViaActor ? { resolved_via_actor: thread.resolvedViaActor } : {}),
    resolved_at: thread.resolvedAt?.toISOString() ?? null,
    resolution_note: thread.resolutionNote,
    comment_count: count?.n ?? 0,
    comments: shown.map((c) => {
      const truncated = !full && c.body.length > COMPACT_COMMENT_CHARS;
      return {
        ref: refs.make("comment", c.id),
        author: emailOf(people, c.authorId),
        author_name: people.get(c.authorId)?.name ?? null,
        ...(c.viaActor ? { via_actor: c.viaActor } : {}),
        body: truncated ? cut(c.body, COMPACT_COMMENT_CHARS) : c.body,
        ...(truncated ? { body_truncated: true } : {}),
        created_at: c.createdAt.toISOString(),
      };
    }),
    ...(comments.length > max ? { more_comments: `list_objects(kind: "docs.comment", filter: {thread: "${refs.make("thread", thread.id)}"})` } : {}),
  };
}

async function getComment(ctx: RealmContext, ref: string): Promise<Record<string, unknown>> {
  const id = idOf(ref, "comment");
  const [row] = await ctx.tx
    .select({ comment: docsComments, doc: docsDocuments })
    .from(docsComments)
    .innerJoin(docsThreads, and(eq(docsThreads.id, docsComments.threadId), eq(docsThreads.tenantId, docsComments.tenantId)))
    .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
    .where(and(eq(docsComments.tenantId, ctx.tenantId), eq(docsComments.id, id)));
  assertReadable(row && aclOf(row.doc), ref, ctx.principal);
  const { comment, doc } = row!;
  const people = await peopleOf(ctx, [comment.authorId]);
  return {
    ref,
    kind: KINDS.comment,
    thread: refs.make("thread", comment.threadId),
    document: refs.make("document", doc.id),
    author: emailOf(people, comment.authorId),
    author_name: people.get(comment.authorId)?.name ?? null,
    ...(comment.viaActor ? { via_actor: comment.viaActor } : {}),
    body: comment.body,
    created_at: comment.createdAt.toISOString(),
  };
}

/** An export is the caller's own file: lib/delivery lets only its owner read it, so others see not_found. */
async function getExport(ctx: RealmContext, ref: string): Promise<Record<string, unknown>> {
  const id = idOf(ref, "export");
  const [row] = await ctx.tx
    .select({ exp: docsExports, doc: docsDocuments })
    .from(docsExports)
    .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsExports.documentId), eq(docsDocuments.tenantId, docsExports.tenantId)))
    .where(and(eq(docsExports.tenantId, ctx.tenantId), eq(docsExports.id, id)));
  if (!row || row.exp.createdBy !== authorityOf(ctx.principal)) throw notFound(ref);
  assertReadable(aclOf(row.doc), ref, ctx.principal);
  const { exp, doc } = row;
  return {
    ref,
    kind: KINDS.export,
    document: refs.make("document", doc.id),
    format: exp.format,
    name: exp.name,
    content_type: exp.contentType,
    size: exp.size,
    sha256: exp.sha256,
    download: await ctx.delivery.fileUrl(exp.id, { name: exp.name, ref: refs.make("export", exp.id) }),
    created_at: exp.createdAt.toISOString(),
  };
}

/**
 * A file's details; with `withDownload` (get, not upsert), a link bound to the file's ref: redeeming it asks
 * this realm again, so whoever may still read the file (its uploader, or a reader of the document it is
 * attached to) can download it, and nobody else.
 */
async function presentFile(ctx: RealmContext, { file, doc }: LoadedFile, withDownload: boolean): Promise<Record<string, unknown>> {
  const people = await peopleOf(ctx, [file.ownerId]);
  const download = withDownload ? { download: await ctx.delivery.fileUrl(file.id, { name: file.name, ref: refs.make("file", file.id) }) } : {};
  return {
    ref: refs.make("file", file.id),
    kind: KINDS.file,
    name: file.name,
    content_type: file.contentType,
    size: file.size,
    sha256: file.sha256,
    owner: emailOf(people, file.ownerId),
    ...(file.viaActor ? { uploaded_via_actor: file.viaActor } : {}),
    document: doc ? refs.make("document", doc.id) : null,
    document_title: doc?.title ?? null,
    ...download,
    created_at: file.createdAt.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Writes.

/** Put a tab at 1-based `position` (clamped; default: where it is, or last if new) and store the dense order 1..n. */
async function placeTab(ctx: RealmContext, documentId: string, movingId: string, position: number | undefined): Promise<number> {
  const rows = await ctx.tx
    .select({ id: docsTabs.id, position: docsTabs.position })
    .from(docsTabs)
    .where(and(eq(docsTabs.tenantId, ctx.tenantId), eq(docsTabs.documentId, documentId)))
    .orderBy(asc(docsTabs.position), asc(docsTabs.id));
  const others = rows.filter((r) => r.id !== movingId);
  const current = rows.findIndex((r) => r.id === movingId);
  const at = Math.min(Math.max(1, position ?? (current >= 0 ? current + 1 : others.length + 1)), others.length + 1);
  const order = others.map((r) => r.id);
  order.splice(at - 1, 0, movingId);
  const was = new Map(rows.map((r) => [r.id, r.position]));
  for (const [i, id] of order.entries()) {
    if (was.get(id) !== i + 1) {
      await ctx.tx
        .update(docsTabs)
        .set({ position: i + 1 })
        .where(and(eq(docsTabs.tenantId, ctx.tenantId), eq(docsTabs.id, id)));
    }
  }
  return at;
}

async function createDocument(ctx: RealmContext, fields: Record<string, unknown>) {
  const f = parseWith(documentFields, fields, "fields");
  if (f.title === undefined) throw requiredField("title", "a document");
  const ownerId = authorityOf(ctx.principal);
  const [doc] = await ctx.tx
    .insert(docsDocuments)
    .values({
      id: newId("doc"),
      tenantId: ctx.tenantId,
      title: f.title,
      ownerId,
      sharedWith: f.shared_with ? await sharedWithAfter(ctx, [], ownerId, f.shared_with) : [],
      status: f.status ?? "draft",
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning();
  // A document always has at least one tab: it is where its text lives.
  await ctx.tx.insert(docsTabs).values({ id: newId("tab"), tenantId: ctx.tenantId, documentId: doc!.id, title: "Tab 1", position: 1, body: "", createdAt: ctx.now, updatedAt: ctx.now });
  return { ref: refs.make("document", doc!.id), created: true, object: await presentDocument(ctx, doc!, false) };
}

async function patchDocument(ctx: RealmContext, ref: string, fields: Record<string, unknown>) {
  const f = parseWith(documentFields, fields, "fields");
  const doc = await loadDocument(ctx, ref);
  const changes: Partial<DocsDocument> = {};
  if (f.title !== undefined) changes.title = f.title;
  if (f.status !== undefined) changes.status = f.status;
  if (f.shared_with !== undefined) {
    // Sharing decides who may see the document at all: the owner's decision alone.
    assertDestroyable(aclOf(doc), ref, ctx.principal);
    changes.sharedWith = await sharedWithAfter(ctx, doc.sharedWith, doc.ownerId, f.shared_with);
  }
  if (!Object.keys(changes).length) return { ref, created: false, object: await presentDocument(ctx, doc, false) };
  const [updated] = await ctx.tx
    .update(docsDocuments)
    .set({ ...changes, updatedAt: ctx.now })
    .where(and(eq(docsDocuments.tenantId, ctx.tenantId), eq(docsDocuments.id, doc.id)))
    .returning();
  return { ref, created: false, object: await presentDocument(ctx, updated!, false) };
}

async function createTab(ctx: RealmContext, fields: Record<string, unknown>) {
  const f = parseWith(tabCreate, fields, "fields");
  await gateLink(ctx, f.document, "document", "fields.document");
  const doc = await loadDocument(ctx, f.document);
  await lockDocument(ctx, doc.id);
  const id = newId("tab");
  // Inserted last, then moved: placeTab keeps positions dense whatever was asked.
  await ctx.tx.insert(docsTabs).values({ id, tenantId: ctx.tenantId, documentId: doc.id, title: f.title, position: 2_147_483_647, body: f.body ?? "", createdAt: ctx.now, updatedAt: ctx.now });
  await placeTab(ctx, doc.id, id, f.position);
  await touchDocument(ctx, doc.id);
  const ref = refs.make("tab", id);
  const { tab } = await loadTab(ctx, ref);
  return { ref, created: true, object: presentTab(tab, doc, false) };
}

async function patchTab(ctx: RealmContext, ref: string, fields: Record<string, unknown>) {
  const f = parseWith(tabPatch, fields, "fields");
  const { tab, doc } = await loadTab(ctx, ref);
  if (f.title === undefined && f.body === undefined && f.position === undefined) return { ref, created: false, object: presentTab(tab, doc, false) };
  await lockDocument(ctx, doc.id);
  const changes: Partial<DocsTab> = {};
  if (f.title !== undefined) changes.title = f.title;
  if (f.body !== undefined) changes.body = f.body;
  await ctx.tx
    .update(docsTabs)
    .set({ ...changes, updatedAt: ctx.now })
    .where(and(eq(docsTabs.tenantId, ctx.tenantId), eq(docsTabs.id, tab.id)));
  if (f.position !== undefined) await placeTab(ctx, doc.id, tab.id, f.position);
  await touchDocument(ctx, doc.id);
  const reloaded = await loadTab(ctx, ref);
  return { ref, created: false, object: presentTab(reloaded.tab, reloaded.doc, false) };
}

async function createThread(ctx: RealmContext, fields: Record<string, unknown>) {
  const f = parseWith(threadCreate, fields, "fields");
  await gateLink(ctx, f.document, "document", "fields.document");
  const doc = await loadDocument(ctx, f.document);
  let tabId: string | null = null;
  if (f.tab !== undefined) {
    await gateLink(ctx, f.tab, "tab", "fields.tab");
    const { tab } = await loadTab(ctx, f.tab);
    if (tab.documentId !== doc.id) throw new AppError("invalid_input", `Invalid fields: tab: ${f.tab} is not a tab of ${f.document}.`, { details: { field: "tab" } });
    tabId = tab.id;
  }
  if (f.quote !== undefined) {
    // The quote anchors the thread to real text: compare with runs of whitespace folded to one space.
    const folded = squash(f.quote);
    const [hit] = await ctx.tx
      .select({ id: docsTabs.id })
      .from(docsTabs)
      .where(
        and(
          eq(docsTabs.tenantId, ctx.tenantId),
          eq(docsTabs.documentId, doc.id),
          tabId ? eq(docsTabs.id, tabId) : undefined,
          sql`strpos(regexp_replace(${docsTabs.body}, '\\s+', ' ', 'g'), ${folded}) > 0`,
        ),
      )
      .orderBy(asc(docsTabs.position), asc(docsTabs.id))
      .limit(1);
    if (!hit) {
      throw new AppError("invalid_input", `Invalid fields: quote: the text does not appear in ${tabId ? "that tab" : "any tab of the document"}.`, {
        details: { field: "quote" },
      });
    }
    // The quote named the tab: the thread is anchored to it, so the grant must cover it too.
    if (hit.id !== tabId) await ctx.gateRef(refs.make("tab", hit.id), "fields.quote");
    tabId = hit.id;
  }
  const who = authorityOf(ctx.principal);
  const id = newId("thr");
  await ctx.tx.insert(docsThreads).values({
    id,
    tenantId: ctx.tenantId,
    documentId: doc.id,
    tabId,
    quote: f.quote ?? null,
    status: "open",
    createdBy: who,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  });
  await ctx.tx.insert(docsComments).values({ id: newId("cmt"), tenantId: ctx.tenantId, threadId: id, authorId: who, viaActor: viaActor(ctx), body: f.body, createdAt: ctx.now });
  const ref = refs.make("thread", id);
  const loaded = await loadThread(ctx, ref);
  return { ref, created: true, object: await presentThread(ctx, loaded.thread, loaded.doc, false) };
}

async function uploadFile(ctx: RealmContext, input: { name: string; contentType: string; bytes: Uint8Array }) {
  const name = parseWith(fileName, input.name, "name");
  const who = authorityOf(ctx.principal);
  const stored = await ctx.delivery.storeFile({ namespace: "docs", name, contentType: input.contentType, bytes: input.bytes, ownerUserId: who });
  await ctx.tx.insert(docsFiles).values({
    id: stored.fileId,
    tenantId: ctx.tenantId,
    ownerId: who,
    viaActor: viaActor(ctx),
    documentId: null,
    name,
    contentType: input.contentType,
    size: stored.size,
    sha256: stored.sha256,
    createdAt: ctx.now,
  });
  return { ref: refs.make("file", stored.fileId), file_id: stored.fileId };
}

async function patchFile(ctx: RealmContext, ref: string, fields: Record<string, unknown>) {
  const f = parseWith(filePatch, fields, "fields");
  const loaded = await loadFile(ctx, ref);
  if (f.name === undefined && f.document === undefined) return { ref, created: false, object: await presentFile(ctx, loaded, false) };
  assertUploader(loaded.file, ref, ctx);
  const changes: Partial<DocsFile> = {};
  if (f.name !== undefined) changes.name = f.name;
  if (f.document === null) changes.documentId = null;
  else if (f.document !== undefined) {
    // Attaching shows the file to the document's readers: only someone who may edit the document may do it.
    await gateLink(ctx, f.document, "document", "fields.document");
    const doc = await loadDocument(ctx, f.document);
    if (!canWrite(aclOf(doc), ctx.principal)) throw notFound(f.document);
    changes.documentId = doc.id;
  }
  await ctx.tx
    .update(docsFiles)
    .set(changes)
    .where(and(eq(docsFiles.tenantId, ctx.tenantId), eq(docsFiles.id, loaded.file.id)));
  return { ref, created: false, object: await presentFile(ctx, await loadFile(ctx, ref), false) };
}

/** The record and the bytes go together: a link minted before the delete stops working at once. */
async function deleteFile(ctx: RealmContext, ref: string) {
  const { file } = await loadFile(ctx, ref);
  assertUploader(file, ref, ctx);
  await ctx.tx.delete(docsFiles).where(and(eq(docsFiles.tenantId, ctx.tenantId), eq(docsFiles.id, file.id)));
  await ctx.delivery.deleteFile(file.id);
  return { ref, deleted: true as const };
}

function requiredField(field: string, what: string): AppError {
  return new AppError("invalid_input", `Invalid fields: ${field}: required to create ${what}.`, { details: { issues: [{ path: field, message: "required" }] } });
}

// ---------------------------------------------------------------------------------------------------
// Actions.

async function replyComment(ctx: RealmContext, ref: string, payload: Record<string, unknown>) {
  const { body } = parseWith(replyCommentPayload, payload, "payload");
  const { thread } = await loadThread(ctx, ref);
  const id = newId("cmt");
  await ctx.tx.insert(docsComments).values({ id, tenantId: ctx.tenantId, threadId: thread.id, authorId: authorityOf(ctx.principal), viaActor: viaActor(ctx), body, createdAt: ctx.now });
  const reopened = thread.status === "resolved";
  await ctx.tx
    .update(docsThreads)
    .set(reopened ? { status: "open", resolvedBy: null, resolvedViaActor: null, resolvedAt: null, resolutionNote: null, updatedAt: ctx.now } : { updatedAt: ctx.now })
    .where(and(eq(docsThreads.tenantId, ctx.tenantId), eq(docsThreads.id, thread.id)));
  return { ref: refs.make("comment", id), thread: ref, thread_status: "open", reopened };
}

async function resolveThread(ctx: RealmContext, ref: string, payload: Record<string, unknown>) {
  const { resolution_note } = parseWith(resolveThreadPayload, payload, "payload");
  const { thread } = await loadThread(ctx, ref);
  if (thread.status === "resolved") {
    const people = await peopleOf(ctx, [thread.resolvedBy]);
    const by = emailOf(people, thread.resolvedBy);
    return {
      ref,
      status: "resolved",
      changed: false,
      message: `Already resolved${by ? ` by ${by}` : ""}${thread.resolvedAt ? ` at ${thread.resolvedAt.toISOString()}` : ""}; nothing changed.`,
      resolved_by: by,
      resolved_at: thread.resolvedAt?.toISOString() ?? null,
      resolution_note: thread.resolutionNote,
    };
  }
  const who = authorityOf(ctx.principal);
  await ctx.tx
    .update(docsThreads)
    .set({ status: "resolved", resolvedBy: who, resolvedViaActor: viaActor(ctx), resolvedAt: ctx.now, resolutionNote: resolution_note ?? null, updatedAt: ctx.now })
    .where(and(eq(docsThreads.tenantId, ctx.tenantId), eq(docsThreads.id, thread.id)));
  const people = await peopleOf(ctx, [who]);
  return { ref, status: "resolved", changed: true, resolved_by: emailOf(people, who), resolved_at: ctx.now.toISOString(), resolution_note: resolution_note ?? null };
}

async function exportDocument(ctx: RealmContext, ref: string, payload: Record<string, unknown>) {
  const { format } = parseWith(exportPayload, payload, "payload");
  const doc = await loadDocument(ctx, ref);
  const tabs = await ctx.tx
    .select({ title: docsTabs.title, body: docsTabs.body })
    .from(docsTabs)
    .where(and(eq(docsTabs.tenantId, ctx.tenantId), eq(docsTabs.documentId, doc.id)))
    .orderBy(asc(docsTabs.position), asc(docsTabs.id));
  const file = renderDocument({ title: doc.title, tabs }, format);
  const who = authorityOf(ctx.principal);
  const stored = await ctx.delivery.storeFile({ namespace: "docs", name: file.name, contentType: file.contentType, bytes: file.bytes, ownerUserId: who });
  await ctx.tx.insert(docsExports).values({
    id: stored.fileId,
    tenantId: ctx.tenantId,
    documentId: doc.id,
    format,
    name: file.name,
    contentType: file.contentType,
    size: stored.size,
    sha256: stored.sha256,
    createdBy: who,
    createdAt: ctx.now,
  });
  return {
    file_ref: refs.make("export", stored.fileId),
    name: file.name,
    content_type: file.contentType,
    size: stored.size,
    ...(await ctx.delivery.fileUrl(stored.fileId, { name: file.name })),
  };
}

// ---------------------------------------------------------------------------------------------------
// Selectors: an exact match (any case) wins; else partial matches; one → ref, several → choices.

async function decide(exact: () => Promise<LeanItem[]>, partial: () => Promise<LeanItem[]>, selector: Record<string, string>, what: string): Promise<ResolveResult> {
  let items = await exact();
  if (!items.length) items = await partial();
  if (!items.length) {
    throw new AppError("not_found", `No ${what} matches ${JSON.stringify(selector)} (or you may not see it).`, { details: { selector } });
  }
  return items.length === 1 ? { ref: items[0]!.ref } : { choices: items.slice(0, MAX_CHOICES) };
}

async function resolveDocument(ctx: RealmContext, selector: Record<string, string>): Promise<ResolveResult> {
  const s = parseWith(documentSelector, selector, "selector");
  const base = await documentConditions(ctx, { ...(s.status ? { status: s.status } : {}), ...(s.author ? { author: s.author } : {}) });
  const page = (extra: SQL[]) => documentPage(ctx, [...base, ...extra], null, MAX_CHOICES + 1).then((p) => p.items);
  if (s.title === undefined) return decide(() => page([]), async () => [], selector, "document");
  const t = s.title;
  return decide(
    () => page([sql`lower(${docsDocuments.title}) = lower(${t})`]),
    () => page([sql`${docsDocuments.title} ilike ${likePattern(t)}`]),
    selector,
    "document",
  );
}

async function resolveTab(ctx: RealmContext, selector: Record<string, string>): Promise<ResolveResult> {
  const s = parseWith(tabSelector, selector, "selector");
  const docId = s.document !== undefined ? (await loadDocument(ctx, s.document)).id : null;
  const find = async (match: SQL) => {
    const rows = await ctx.tx
      .select({ id: docsTabs.id, title: docsTabs.title, position: docsTabs.position, documentTitle: docsDocuments.title, updatedAt: docsTabs.updatedAt })
      .from(docsTabs)
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsTabs.documentId), eq(docsDocuments.tenantId, docsTabs.tenantId)))
      .where(and(visibleDocuments(ctx), docId ? eq(docsTabs.documentId, docId) : undefined, match))
      .orderBy(desc(docsDocuments.updatedAt), asc(docsTabs.position), asc(docsTabs.id))
      .limit(MAX_CHOICES + 1);
    return rows.map((r) => ({ ref: refs.make("tab", r.id), kind: KINDS.tab, label: r.title, summary: `tab ${r.position} of “${r.documentTitle}”`, updated_at: r.updatedAt.toISOString() }));
  };
  return decide(
    () => find(sql`lower(${docsTabs.title}) = lower(${s.title})`),
    () => find(sql`${docsTabs.title} ilike ${likePattern(s.title)}`),
    selector,
    "tab",
  );
}

async function resolveThreadSelector(ctx: RealmContext, selector: Record<string, string>): Promise<ResolveResult> {
  const s = parseWith(threadSelector, selector, "selector");
  const base = s.document !== undefined ? [eq(docsThreads.documentId, (await loadDocument(ctx, s.document)).id)] : [];
  const page = (match: SQL) => threadPage(ctx, [...base, match], null, MAX_CHOICES + 1).then((p) => p.items);
  return decide(
    () => page(sql`lower(${docsThreads.quote}) = lower(${s.quote})`),
    () => page(sql`${docsThreads.quote} ilike ${likePattern(s.quote)}`),
    selector,
    "comment thread",
  );
}

// ---------------------------------------------------------------------------------------------------

async function searchKind(ctx: RealmContext, segment: "document" | "thread", query: string, filter: Filter, after: CursorState | null, limit: number): Promise<PageResult> {
  const terms = searchTerms(query);
  if (segment === "document") return documentPage(ctx, [...(await documentConditions(ctx, filter)), ...documentMatches(terms)], after, limit, terms[0]);
  return threadPage(ctx, [...(await threadConditions(ctx, filter)), ...threadMatches(terms)], after, limit);
}

function actionTarget(action: ActionDef, ref: string | null): string {
  if (ref === null) throw new AppError("invalid_input", `${action.name} needs the ref of a ${action.target_kind ?? "docs object"}.`, { details: { action: action.name } });
  return ref;
}

/** What contains each ref (for scoped grants): tab, thread, attached file → document; comment → thread, document. */
async function lineage(ctx: RealmContext, input: { refs: string[] }): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const ids: Record<"tab" | "thread" | "comment" | "file" | "export", Map<string, string>> = { tab: new Map(), thread: new Map(), comment: new Map(), file: new Map(), export: new Map() };
  for (const ref of input.refs) {
    out[ref] = [];
    try {
      const { segment, id } = refs.parse(ref);
      if (segment === "tab" || segment === "thread" || segment === "comment" || segment === "file" || segment === "export") ids[segment].set(id, ref);
    } catch {
      // a malformed ref is contained by nothing
    }
  }
  const docRef = (id: string) => refs.make("document", id);
  const threadDocs = async (threadIds: string[]) =>
    threadIds.length
      ? new Map((await ctx.tx.select({ id: docsThreads.id, doc: docsThreads.documentId }).from(docsThreads).where(and(eq(docsThreads.tenantId, ctx.tenantId), inArray(docsThreads.id, threadIds)))).map((r) => [r.id, r.doc]))
      : new Map<string, string>();
  if (ids.tab.size) {
    for (const r of await ctx.tx.select({ id: docsTabs.id, doc: docsTabs.documentId }).from(docsTabs).where(and(eq(docsTabs.tenantId, ctx.tenantId), inArray(docsTabs.id, [...ids.tab.keys()])))) {
      out[ids.tab.get(r.id)!] = [docRef(r.doc)];
    }
  }
  if (ids.file.size) {
    for (const r of await ctx.tx.select({ id: docsFiles.id, doc: docsFiles.documentId }).from(docsFiles).where(and(eq(docsFiles.tenantId, ctx.tenantId), inArray(docsFiles.id, [...ids.file.keys()])))) {
      if (r.doc) out[ids.file.get(r.id)!] = [docRef(r.doc)];
    }
  }
  if (ids.export.size) {
    // An export is produced from its document: a grant on the document reaches it (and its download link).
    for (const r of await ctx.tx.select({ id: docsExports.id, doc: docsExports.documentId }).from(docsExports).where(and(eq(docsExports.tenantId, ctx.tenantId), inArray(docsExports.id, [...ids.export.keys()])))) {
      out[ids.export.get(r.id)!] = [docRef(r.doc)];
    }
  }
  if (ids.thread.size) {
    for (const [id, doc] of await threadDocs([...ids.thread.keys()])) out[ids.thread.get(id)!] = [docRef(doc)];
  }
  if (ids.comment.size) {
    const rows = await ctx.tx.select({ id: docsComments.id, thread: docsComments.threadId }).from(docsComments).where(and(eq(docsComments.tenantId, ctx.tenantId), inArray(docsComments.id, [...ids.comment.keys()])));
    const docs = await threadDocs([...new Set(rows.map((r) => r.thread))]);
    for (const r of rows) out[ids.comment.get(r.id)!] = [refs.make("thread", r.thread), ...(docs.has(r.thread) ? [docRef(docs.get(r.thread)!)] : [])];
  }
  return out;
}

/** The first few words of a text, as a person would quote it: “Beta in August is tight…”. */
function firstWords(text: string, words = 8, max = 60): string {
  const all = squash(text).split(" ").filter(Boolean);
  const head = all.slice(0, words).join(" ");
  const short = cut(head, max);
  return short.length < squash(text).length && !short.endsWith("…") ? `${short}…` : short;
}

/**
 * Refs as a person reads them, with the caller's authority and the same visibility `get` applies (a child is
 * visible when its document is; a file to its uploader and its document's readers; an export to its maker while
 * the document is readable). One query per kind named, whatever the number of refs. Anything else is null.
 */
async function describeRefs(ctx: RealmContext, input: string[]): Promise<Record<string, RefDescription | null>> {
  const out: Record<string, RefDescription | null> = {};
  const ids: Record<Segment, Map<string, string>> = { document: new Map(), tab: new Map(), thread: new Map(), comment: new Map(), export: new Map(), file: new Map() };
  for (const ref of input) {
    out[ref] = null;
    try {
      const { segment, id } = refs.parse(ref);
      ids[segment].set(id, ref);
    } catch {
      // a malformed ref names nothing
    }
  }
  const who = authorityOf(ctx.principal);
  const readable = (d: { ownerId: string; sharedWith: string[] } | null) => !!d && canRead(d, ctx.principal);
  const docRef = (id: string) => refs.make("document", id);
  const docOf = { ownerId: docsDocuments.ownerId, sharedWith: docsDocuments.sharedWith };
  const keys = (segment: Segment) => [...ids[segment].keys()];
  const put = (segment: Segment, id: string, d: Omit<RefDescription, "kind">) => {
    out[ids[segment].get(id)!] = { kind: KINDS[segment], ...d };
  };

  if (ids.document.size) {
    const rows = await ctx.tx
      .select({ id: docsDocuments.id, title: docsDocuments.title, status: docsDocuments.status, ...docOf, ownerName: users.name })
      .from(docsDocuments)
      .innerJoin(users, eq(users.id, docsDocuments.ownerId))
      .where(and(eq(docsDocuments.tenantId, ctx.tenantId), inArray(docsDocuments.id, keys("document"))));
    for (const r of rows) if (readable(r)) put("document", r.id, { label: r.title, summary: `${r.status} document by ${r.ownerName}`, lineage: [] });
  }
  if (ids.tab.size) {
    const rows = await ctx.tx
      .select({ id: docsTabs.id, title: docsTabs.title, position: docsTabs.position, documentId: docsTabs.documentId, documentTitle: docsDocuments.title, ...docOf })
      .from(docsTabs)
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsTabs.documentId), eq(docsDocuments.tenantId, docsTabs.tenantId)))
      .where(and(eq(docsTabs.tenantId, ctx.tenantId), inArray(docsTabs.id, keys("tab"))));
    for (const r of rows) if (readable(r)) put("tab", r.id, { label: r.title, summary: `tab ${r.position} of “${r.documentTitle}”`, lineage: [docRef(r.documentId)] });
  }
  if (ids.thread.size) {
    const inThread = sql`${docsComments.tenantId} = ${docsThreads.tenantId} and ${docsComments.threadId} = ${docsThreads.id}`;
    const rows = await ctx.tx
      .select({
        id: docsThreads.id,
        quote: docsThreads.quote,
        status: docsThreads.status,
        documentId: docsThreads.documentId,
        documentTitle: docsDocuments.title,
        ...docOf,
        first: sql<string | null>`(select left(${docsComments.body}, 200) from ${docsComments} where ${inThread} order by ${docsComments.seq} asc limit 1)`,
      })
      .from(docsThreads)
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
      .where(and(eq(docsThreads.tenantId, ctx.tenantId), inArray(docsThreads.id, keys("thread"))));
    for (const r of rows) {
      if (!readable(r)) continue;
      const words = firstWords(r.first ?? r.quote ?? "(no comments)");
      put("thread", r.id, {
        label: `“${words}” on ${r.documentTitle}`,
        summary: `${r.status === "resolved" ? "resolved " : ""}thread on “${r.documentTitle}”`,
        lineage: [docRef(r.documentId)],
      });
    }
  }
  if (ids.comment.size) {
    const rows = await ctx.tx
      .select({
        id: docsComments.id,
        start: sql<string>`left(${docsComments.body}, 200)`,
        threadId: docsComments.threadId,
        author: users.name,
        documentId: docsThreads.documentId,
        documentTitle: docsDocuments.title,
        ...docOf,
      })
      .from(docsComments)
      .innerJoin(docsThreads, and(eq(docsThreads.id, docsComments.threadId), eq(docsThreads.tenantId, docsComments.tenantId)))
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
      .innerJoin(users, eq(users.id, docsComments.authorId))
      .where(and(eq(docsComments.tenantId, ctx.tenantId), inArray(docsComments.id, keys("comment"))));
    for (const r of rows) {
      if (!readable(r)) continue;
      put("comment", r.id, { label: `${r.author}: ${firstWords(r.start)}`, summary: `comment on “${r.documentTitle}”`, lineage: [refs.make("thread", r.threadId), docRef(r.documentId)] });
    }
  }
  if (ids.export.size) {
    const rows = await ctx.tx
      .select({ id: docsExports.id, name: docsExports.name, format: docsExports.format, createdBy: docsExports.createdBy, documentTitle: docsDocuments.title, ...docOf })
      .from(docsExports)
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsExports.documentId), eq(docsDocuments.tenantId, docsExports.tenantId)))
      .where(and(eq(docsExports.tenantId, ctx.tenantId), inArray(docsExports.id, keys("export"))));
    for (const r of rows) {
      if (r.createdBy !== who || !readable(r)) continue;
      put("export", r.id, { label: r.name, summary: `${r.format} export of “${r.documentTitle}”`, lineage: [] });
    }
  }
  if (ids.file.size) {
    const rows = await ctx.tx
      .select({
        id: docsFiles.id,
        name: docsFiles.name,
        fileOwner: docsFiles.ownerId,
        documentId: docsFiles.documentId,
        documentTitle: docsDocuments.title,
        docOwner: docsDocuments.ownerId,
        docShared: docsDocuments.sharedWith,
      })
      .from(docsFiles)
      .leftJoin(docsDocuments, and(eq(docsDocuments.id, docsFiles.documentId), eq(docsDocuments.tenantId, docsFiles.tenantId)))
      .where(and(eq(docsFiles.tenantId, ctx.tenantId), inArray(docsFiles.id, keys("file"))));
    for (const r of rows) {
      const doc = r.docOwner !== null && r.docShared !== null ? { ownerId: r.docOwner, sharedWith: r.docShared } : null;
      const docVisible = readable(doc);
      if (r.fileOwner !== who && !docVisible) continue;
      // The uploader of a file attached to a document they can no longer read sees the file, not the document's title.
      put("file", r.id, {
        label: r.name,
        summary: r.documentId === null ? "file, not attached" : docVisible ? `file attached to “${r.documentTitle}”` : "file attached to a document",
        lineage: r.documentId ? [docRef(r.documentId)] : [],
      });
    }
  }
  return out;
}

export const adapter: RealmAdapter = {
  lineage,
  parseRef(ref) {
    return { kind: refs.parse(ref).kind };
  },
  describeRefs,
  async list(ctx, input) {
    const segment = segmentFor(input.kind);
    switch (segment) {
      case "document":
        return documentPage(ctx, await documentConditions(ctx, input.filter), input.after, input.limit);
      case "tab": {
        const f = parseWith(tabFilter, input.filter, "filter");
        return tabPage(ctx, await loadDocument(ctx, f.document), [], input.after, input.limit);
      }
      case "thread":
        return threadPage(ctx, await threadConditions(ctx, input.filter), input.after, input.limit);
      case "comment": {
        const f = parseWith(commentFilter, input.filter, "filter");
        return commentPage(ctx, (await loadThread(ctx, f.thread)).thread, input.after, input.limit);
      }
      case "export": {
        const f = parseWith(exportFilter, input.filter, "filter");
        return exportPage(ctx, await loadDocument(ctx, f.document), input.after, input.limit);
      }
      case "file":
        return filePage(ctx, input.filter, input.after, input.limit);
    }
  },

  async search(ctx, input) {
    if (input.kind !== null) {
      const segment = segmentFor(input.kind);
      if (segment !== "document" && segment !== "thread") unsupported(input.kind, "object.search");
      return searchKind(ctx, segment, input.query, input.filter, input.after, input.limit);
    }
    // No kind: documents first, then comment threads; the cursor's tag says which phase is running.
    if (Object.keys(input.filter).length) throw new AppError("invalid_input", "Filters need a kind: search docs.document or docs.comment_thread.", { details: { field: "filter" } });
    const n = clampLimit(input.limit);
    if (input.after?.k === "thread") return searchKind(ctx, "thread", input.query, {}, input.after, n);
    const docs = await searchKind(ctx, "document", input.query, {}, input.after, n);
    if (docs.next) return docs;
    const room = n - docs.items.length;
    const threads = await searchKind(ctx, "thread", input.query, {}, null, Math.max(room, 1));
    if (room === 0) return { items: docs.items, next: threads.items.length ? { k: "thread", s: 0 } : null };
    return { items: [...docs.items, ...threads.items], next: threads.next };
  },

  async get(ctx, input) {
    const { segment } = refs.parse(input.ref);
    switch (segment) {
      case "document":
        return presentDocument(ctx, await loadDocument(ctx, input.ref), input.full);
      case "tab": {
        const { tab, doc } = await loadTab(ctx, input.ref);
        return presentTab(tab, doc, input.full);
      }
      case "thread": {
        const { thread, doc } = await loadThread(ctx, input.ref);
        return presentThread(ctx, thread, doc, input.full);
      }
      case "comment":
        return getComment(ctx, input.ref);
      case "export":
        return getExport(ctx, input.ref);
      case "file":
        return presentFile(ctx, await loadFile(ctx, input.ref), true);
    }
  },

  async action(ctx, input) {
    switch (input.action.name) {
      case "reply_comment":
        return replyComment(ctx, actionTarget(input.action, input.ref), input.payload);
      case "resolve_thread":
        return resolveThread(ctx, actionTarget(input.action, input.ref), input.payload);
      case "export":
        return exportDocument(ctx, actionTarget(input.action, input.ref), input.payload);
      default:
        throw new AppError("invalid_input", `docs has no action ${input.action.name}.`, { details: { action: input.action.name } });
    }
  },

  async upsert(ctx, input) {
    const segment = segmentFor(input.kind);
    if (input.ref !== null) idOf(input.ref, segment);
    switch (segment) {
      case "document":
        return input.ref === null ? createDocument(ctx, input.fields) : patchDocument(ctx, input.ref, input.fields);
      case "tab":
        return input.ref === null ? createTab(ctx, input.fields) : patchTab(ctx, input.ref, input.fields);
      case "thread":
        if (input.ref !== null) {
          throw new AppError("invalid_input", "A comment thread is not edited in place: reply with reply_comment, settle it with resolve_thread.", {
            details: { kind: input.kind },
          });
        }
        return createThread(ctx, input.fields);
      case "file":
        if (input.ref === null) {
          throw new AppError("invalid_input", "Files are created with host_file; upsert_object renames a file or attaches it to a document.", {
            details: { kind: input.kind, tool: "host_file" },
          });
        }
        return patchFile(ctx, input.ref, input.fields);
      default:
        return unsupported(input.kind, "object.upsert");
    }
  },

  async delete(ctx, input) {
    const { segment, kind } = refs.parse(input.ref);
    if (segment === "file") return deleteFile(ctx, input.ref);
    if (segment !== "document") unsupported(kind, "object.delete");
    const doc = await loadDocument(ctx, input.ref);
    assertDestroyable(aclOf(doc), input.ref, ctx.principal);
    // Tabs, threads, comments and export records go with it (foreign keys cascade); attached files stay
    // with their uploaders, unattached (set null).
    await ctx.tx.delete(docsDocuments).where(and(eq(docsDocuments.tenantId, ctx.tenantId), eq(docsDocuments.id, doc.id)));
    return { ref: input.ref, deleted: true };
  },

  async hostFile(ctx, input) {
    return uploadFile(ctx, input);
  },

  async resolve(ctx, input) {
    const segment = segmentFor(input.kind);
    switch (segment) {
      case "document":
        return resolveDocument(ctx, input.selector);
      case "tab":
        return resolveTab(ctx, input.selector);
      case "thread":
        return resolveThreadSelector(ctx, input.selector);
      default:
        return unsupported(input.kind, "selectors");
    }
  },
};
