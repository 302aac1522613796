// docs.comment_thread: a discussion on a document, optionally anchored to a tab and a quoted excerpt; open
// until someone resolves it. Listed in insertion order; searched by quote and comment text.
import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { QueryBuilder } from "drizzle-orm/pg-core";
import { z } from "zod";
import { compiledSelectShapes, type Placeholders } from "@/db/compiled";
import { inOneExchange } from "@/db/pipeline";
import { users } from "@/db/schema";
import { docsComments, docsDocuments, docsTabs, docsThreads, threadStatuses, type DocsDocument, type DocsThread, type ThreadStatus } from "@/db/schema/docs";
import { AppError } from "@/lib/errors";
import { authorityOf, type RealmContext } from "@/lib/realms/contract";
import { canRead, readable } from "@/lib/realms/native/acl";
import { decide, defineKind, MAX_CHOICES, pageOf, type PageOut } from "@/lib/realms/native/kind";
import { emailOf, peopleOf, viaActor } from "@/lib/realms/native/people";
import { inTenant, visibleTo } from "@/lib/realms/native/sql";
import { cut, plural, squash } from "@/lib/realms/native/text";
import { refs } from "../refs";
import { aclOf, firstWords, matchCondition, matchKind, matchValue, refString, searchTerms, selectorText, termPatterns, TERMS, type Term, type TextMatch } from "../shared";
import { documentNamed, loadDocument } from "./document";
import { loadTab } from "./tab";

/** Compact gets stay small: a thread shows this many comments, each cut to this length. */
const COMPACT_COMMENTS = 50;
const COMPACT_COMMENT_CHARS = 1_000;
const FULL_COMMENTS = 500;

export const commentBody = z.string().trim().min(1).max(10_000);
const create = z.strictObject({ document: refString, tab: refString.optional(), quote: z.string().trim().min(1).max(1_000).optional(), body: commentBody });
const filter = z.strictObject({ document: refString.optional(), status: z.enum(threadStatuses).optional() });
const cursor = z.strictObject({ s: z.number().int().min(0) });
type Cursor = z.infer<typeof cursor>;

export const loadThread = readable(
  (ref) => refs.idOf(ref, "thread"),
  async (ctx, id): Promise<{ thread: DocsThread; doc: DocsDocument } | undefined> =>
    (
      await ctx.tx
        .select({ thread: docsThreads, doc: docsDocuments })
        .from(docsThreads)
        .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
        .where(inTenant(ctx, docsThreads, id))
    )[0],
  (row) => aclOf(row.doc),
);

const inThread = sql`${docsComments.tenantId} = ${docsThreads.tenantId} and ${docsComments.threadId} = ${docsThreads.id}`;
const firstComment = sql<string | null>`(select left(${docsComments.body}, 200) from ${docsComments} where ${inThread} order by ${docsComments.seq} asc limit 1)`;

/** What narrows a page of threads: each key present adds its condition. */
type ThreadsWhere = { document?: string; status?: ThreadStatus; quote?: TextMatch; terms?: string[] };

type PageValue = "tenant" | "who" | "document" | "status" | "quote" | "s" | "n" | Term;
/** Which conditions a page's statement has (never their values). */
type Shape = { document: boolean; status: boolean; quote: "is" | "like" | null; terms: number; cursor: boolean };
const shapeOf = (w: ThreadsWhere, c: Cursor | null): Shape => ({ document: w.document !== undefined, status: Boolean(w.status), quote: matchKind(w.quote), terms: w.terms?.length ?? 0, cursor: Boolean(c) });

/**
 * Threads in insertion order, with enough of their comments to tell them apart, as one statement per shape built
 * once (db/compiled.ts). A search's terms each appear in the quote or in one of the thread's comments.
 */
const threadsStatement = compiledSelectShapes<Shape, PageValue, ReturnType<typeof threadsSelect>>(threadsSelect);

function threadsSelect(shape: Shape, qb: QueryBuilder, p: Placeholders<PageValue>) {
  const where: SQL[] = [visibleTo(docsDocuments, p.tenant, p.who)];
  if (shape.document) where.push(eq(docsThreads.documentId, p.document));
  if (shape.status) where.push(eq(docsThreads.status, p.status));
  const quote = matchCondition(docsThreads.quote, shape.quote, p.quote);
  if (quote) where.push(quote);
  for (const t of TERMS.slice(0, shape.terms)) {
    where.push(
      sql`(coalesce(${docsThreads.quote}, '') ilike ${p[t]} or exists (select 1 from ${docsComments} where ${docsComments.tenantId} = ${p.tenant} and ${docsComments.threadId} = ${docsThreads.id} and ${docsComments.body} ilike ${p[t]}))`,
    );
  }
  if (shape.cursor) where.push(sql`${docsThreads.seq} > ${p.s}::bigint`);
  return qb
    .select({
      id: docsThreads.id,
      seq: docsThreads.seq,
      quote: docsThreads.quote,
      status: docsThreads.status,
      updatedAt: docsThreads.updatedAt,
      documentTitle: docsDocuments.title,
      tabTitle: docsTabs.title,
      comments: sql<number>`(select count(*)::int from ${docsComments} where ${inThread})`,
      first: firstComment,
      latestBy: sql<string | null>`(select ${users.name} from ${docsComments} join ${users} on ${users.id} = ${docsComments.authorId} where ${inThread} order by ${docsComments.seq} desc limit 1)`,
    })
    .from(docsThreads)
    .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
    .leftJoin(docsTabs, and(eq(docsTabs.id, docsThreads.tabId), eq(docsTabs.tenantId, docsThreads.tenantId)))
    .where(and(...where))
    .orderBy(asc(docsThreads.seq))
    .limit(p.n);
}

async function threadPage(ctx: RealmContext, w: ThreadsWhere, c: Cursor | null, n: number): Promise<PageOut<Cursor>> {
  const rows = await threadsStatement(shapeOf(w, c))(ctx.tx, {
    tenant: ctx.tenantId,
    who: authorityOf(ctx.principal),
    document: w.document ?? null,
    status: w.status ?? null,
    quote: matchValue(w.quote),
    ...termPatterns(w.terms ?? []),
    s: c?.s ?? null,
    n: n + 1,
  } satisfies Record<PageValue, unknown>);
  const lean = (r: (typeof rows)[number]) => {
    const where = r.tabTitle ? `on “${r.documentTitle}” › ${r.tabTitle}` : `on “${r.documentTitle}”`;
    return {
      ref: refs.make("thread", r.id),
      kind: "docs.comment_thread",
      label: r.quote ? `“${cut(squash(r.quote), 70)}”` : cut(squash(r.first ?? "(no comments)"), 70),
      summary: [r.status, plural(r.comments, "comment"), where, r.latestBy ? `latest by ${r.latestBy}` : ""].filter(Boolean).join(" · "),
      updated_at: r.updatedAt.toISOString(),
    };
  };
  return pageOf(rows, n, lean, (last) => ({ s: last.seq }));
}

async function conditions(ctx: RealmContext, f: z.infer<typeof filter>): Promise<ThreadsWhere> {
  return { ...(f.document !== undefined ? { document: (await loadDocument(ctx, f.document)).id } : {}), ...(f.status ? { status: f.status } : {}) };
}

async function presentThread(ctx: RealmContext, thread: DocsThread, doc: DocsDocument, full: boolean): Promise<Record<string, unknown>> {
  const max = full ? FULL_COMMENTS : COMPACT_COMMENTS;
  // Three reads that need only the thread: asked at once, in one exchange with the database (db/pipeline.ts).
  const [comments, [count], [tab]] = await inOneExchange(ctx.tx, [
    async () => ctx.tx
      .select()
      .from(docsComments)
      .where(and(eq(docsComments.tenantId, ctx.tenantId), eq(docsComments.threadId, thread.id)))
      .orderBy(asc(docsComments.seq))
      .limit(max + 1),
    async () => ctx.tx
      .select({ n: sql<number>`count(*)::int` })
      .from(docsComments)
      .where(and(eq(docsComments.tenantId, ctx.tenantId), eq(docsComments.threadId, thread.id))),
    async (): Promise<{ title: string }[]> => (thread.tabId ? ctx.tx.select({ title: docsTabs.title }).from(docsTabs).where(inTenant(ctx, docsTabs, thread.tabId)) : []),
  ] as const);
  const people = await peopleOf(ctx, [thread.createdBy, thread.resolvedBy, ...comments.map((c) => c.authorId)]);
  const shown = comments.slice(0, max);
  return {
    ref: refs.make("thread", thread.id),
    kind: "docs.comment_thread",
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

/** The tab a new thread's quote anchors it to: the one given, else the first tab containing the text. */
async function anchorTab(ctx: RealmContext, doc: DocsDocument, tabId: string | null, quote: string): Promise<string> {
  // The quote anchors the thread to real text: compare with runs of whitespace folded to one space.
  const [hit] = await ctx.tx
    .select({ id: docsTabs.id })
    .from(docsTabs)
    .where(
      and(
        eq(docsTabs.tenantId, ctx.tenantId),
        eq(docsTabs.documentId, doc.id),
        tabId ? eq(docsTabs.id, tabId) : undefined,
        sql`strpos(regexp_replace(${docsTabs.body}, '\\s+', ' ', 'g'), ${squash(quote)}) > 0`,
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
  return hit.id;
}

/** Thread id → its document id. */
export async function threadDocs(ctx: RealmContext, threadIds: string[]): Promise<Map<string, string>> {
  if (!threadIds.length) return new Map();
  const rows = await ctx.tx
    .select({ id: docsThreads.id, doc: docsThreads.documentId })
    .from(docsThreads)
    .where(and(eq(docsThreads.tenantId, ctx.tenantId), inArray(docsThreads.id, threadIds)));
  return new Map(rows.map((r) => [r.id, r.doc]));
}

export const threadKind = defineKind({
  noun: "comment thread",
  schemas: {
    create,
    filter,
    selector: z
      .strictObject({ quote: selectorText.optional(), document: selectorText.optional() })
      .refine((x) => x.quote !== undefined || x.document !== undefined, "name a thread by its quote, its document, or both"),
  },
  cursor,
  load: loadThread,
  present: (ctx, { thread, doc }, full) => presentThread(ctx, thread, doc, full),
  searchable: true,

  async page(ctx, { filter: f, query, after, limit }) {
    const where = await conditions(ctx, f);
    return threadPage(ctx, query === null ? where : { ...where, terms: searchTerms(query) }, after, limit);
  },

  async create(ctx, f) {
    await refs.gate(ctx, f.document, "document", "fields.document");
    const doc = await loadDocument(ctx, f.document);
    let tabId: string | null = null;
    if (f.tab !== undefined) {
      await refs.gate(ctx, f.tab, "tab", "fields.tab");
      const { tab } = await loadTab(ctx, f.tab);
      if (tab.documentId !== doc.id) throw new AppError("invalid_input", `Invalid fields: tab: ${f.tab} is not a tab of ${f.document}.`, { details: { field: "tab" } });
      tabId = tab.id;
    }
    if (f.quote !== undefined) tabId = await anchorTab(ctx, doc, tabId, f.quote);
    const who = authorityOf(ctx.principal);
    const id = refs.newId("thread");
    await ctx.tx.insert(docsThreads).values({ id, tenantId: ctx.tenantId, documentId: doc.id, tabId, quote: f.quote ?? null, status: "open", createdBy: who, createdAt: ctx.now, updatedAt: ctx.now });
    await ctx.tx.insert(docsComments).values({ id: refs.newId("comment"), tenantId: ctx.tenantId, threadId: id, authorId: who, viaActor: viaActor(ctx), body: f.body, createdAt: ctx.now });
    const ref = refs.make("thread", id);
    const loaded = await loadThread(ctx, ref);
    return { ref, object: await presentThread(ctx, loaded.thread, loaded.doc, false) };
  },

  async patch(): Promise<never> {
    throw new AppError("invalid_input", "A comment thread is not edited in place: reply with reply_comment, settle it with resolve_thread.", {
      details: { kind: "docs.comment_thread" },
    });
  },

  async resolve(ctx, s) {
    // The document by its ref or its title; alone, it names that document's threads (several: choices).
    const base: ThreadsWhere = s.document !== undefined ? { document: (await documentNamed(ctx, s.document, "selector.document")).id } : {};
    const page = (quote?: ThreadsWhere["quote"]) => threadPage(ctx, quote ? { ...base, quote } : base, null, MAX_CHOICES + 1).then((p) => p.items);
    const quote = s.quote;
    if (quote === undefined) return page();
    return decide(
      () => page({ is: quote }),
      () => page({ like: quote }),
    );
  },

  async describe(ctx, ids) {
    const rows = await ctx.tx
      .select({
        id: docsThreads.id,
        quote: docsThreads.quote,
        status: docsThreads.status,
        documentId: docsThreads.documentId,
        documentTitle: docsDocuments.title,
        ownerId: docsDocuments.ownerId,
        sharedWith: docsDocuments.sharedWith,
        first: firstComment,
      })
      .from(docsThreads)
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
      .where(and(eq(docsThreads.tenantId, ctx.tenantId), inArray(docsThreads.id, ids)));
    return new Map(
      rows
        .filter((r) => canRead(r, ctx.principal))
        .map((r) => [
          r.id,
          {
            label: `“${firstWords(r.first ?? r.quote ?? "(no comments)")}” on ${r.documentTitle}`,
            summary: `${r.status === "resolved" ? "resolved " : ""}thread on “${r.documentTitle}”`,
            lineage: [refs.make("document", r.documentId)],
          },
        ]),
    );
  },

  async lineage(ctx, ids) {
    return new Map([...(await threadDocs(ctx, ids))].map(([id, doc]) => [id, [refs.make("document", doc)]]));
  },
});
