// docs.document: a titled document of tabs, with a status, owned by one person and shared with others.
// Listed most recently changed first; searched by title and tab text.
import { and, asc, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { QueryBuilder } from "drizzle-orm/pg-core";
import { z } from "zod";
import { compiledSelectShapes, type Placeholders } from "@/db/compiled";
import { inOneExchange } from "@/db/pipeline";
import { memberships, users } from "@/db/schema";
import { docStatuses, docsDocuments, docsTabs, docsThreads, type DocStatus, type DocsDocument } from "@/db/schema/docs";
import { authorityOf, type RealmContext } from "@/lib/realms/contract";
import { assertOwner, canRead, readable } from "@/lib/realms/native/acl";
import { decide, defineKind, MAX_CHOICES, pageOf, pickOne, requiredField, withinGrant, type PageOut } from "@/lib/realms/native/kind";
import { emailOf, peopleOf, peoplePatch, peopleSelectedBy, person, sharedWithAfter, type Person } from "@/lib/realms/native/people";
import { exactTime, inTenant, likePattern, visibleTo } from "@/lib/realms/native/sql";
import { cut, plural, squash } from "@/lib/realms/native/text";
import { refs } from "../refs";
import { aclOf, idKey, matchCondition, matchKind, matchValue, searchTerms, selectorText, termPatterns, TERMS, timeKey, title, type Term, type TextMatch } from "../shared";

const fields = z.strictObject({ title: title.optional(), status: z.enum(docStatuses).optional(), shared_with: peoplePatch(100).optional() });
const filter = z.strictObject({ status: z.enum(docStatuses).optional(), author: person.optional() });
const selector = z
  .strictObject({ title: selectorText.optional(), author: person.optional(), status: z.enum(docStatuses).optional() })
  .refine((s) => s.title !== undefined || s.author !== undefined || s.status !== undefined, "name a document by title, author or status");
const cursor = z.strictObject({ u: timeKey, id: idKey });
type Cursor = z.infer<typeof cursor>;

export const loadDocument = readable(
  (ref) => refs.idOf(ref, "document"),
  async (ctx, id) => (await ctx.tx.select().from(docsDocuments).where(inTenant(ctx, docsDocuments, id)))[0],
  aclOf,
);

/**
 * A document a selector names by its ref or by its title (exact, any case; else a unique partial match), as the
 * caller may read it: none → not_found, several → ambiguous_selector with the choices. A document reached by
 * its title is gated like a ref the call named.
 */
export async function documentNamed(ctx: RealmContext, name: string, where: string): Promise<DocsDocument> {
  if (name.startsWith("docs:")) return loadDocument(ctx, name);
  const found = await decide(
    () => documentPage(ctx, { title: { is: name } }, null, MAX_CHOICES + 1).then((p) => p.items),
    () => documentPage(ctx, { title: { like: name } }, null, MAX_CHOICES + 1).then((p) => p.items),
  );
  const one = pickOne(withinGrant(ctx, found, (d) => d.ref), (d) => d, { one: "document", many: "documents" }, { title: name });
  await ctx.gateRef(one.ref, where);
  return loadDocument(ctx, one.ref);
}

/** Tenant members an `author` filter names: "me", a user id, an email, or a name (exact, else partial). */
async function authorIds(ctx: RealmContext, author: string): Promise<string[]> {
  if (author.toLowerCase() === "me") return [authorityOf(ctx.principal)];
  const members = (match: SQL | undefined) =>
    ctx.tx
      .select({ id: users.id })
      .from(users)
      .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, ctx.tenantId)))
      .where(match);
  const lowered = author.toLowerCase();
  const found = await decide(
    () => members(or(eq(users.id, author), sql`lower(${users.email}) = ${lowered}`, sql`lower(${users.name}) = ${lowered}`)),
    () => members(sql`${users.name} ilike ${likePattern(author)}`),
  );
  return found.map((r) => r.id);
}

/** What narrows a page of documents: each key present adds its condition. */
type DocumentsWhere = { status?: DocStatus; authors?: string[]; title?: TextMatch; terms?: string[] };

async function conditions(ctx: RealmContext, f: z.infer<typeof filter>): Promise<DocumentsWhere> {
  return { ...(f.status ? { status: f.status } : {}), ...(f.author !== undefined ? { authors: await authorIds(ctx, f.author) } : {}) };
}

type PageValue = "tenant" | "who" | "status" | "authors" | "title" | "snippet" | "snippetLike" | "u" | "id" | "n" | Term;
/** Which conditions a page's statement has (never their values): at most 4 × 3 × 11 × 2 shapes. */
type Shape = { status: boolean; authors: boolean; title: "is" | "like" | null; terms: number; cursor: boolean };
const shapeOf = (w: DocumentsWhere, c: Cursor | null): Shape => ({ status: Boolean(w.status), authors: Boolean(w.authors), title: matchKind(w.title), terms: w.terms?.length ?? 0, cursor: Boolean(c) });

const tabCount = sql<number>`(select count(*)::int from ${docsTabs} where ${docsTabs.tenantId} = ${docsDocuments.tenantId} and ${docsTabs.documentId} = ${docsDocuments.id})`;
const openThreadCount = sql<number>`(select count(*)::int from ${docsThreads} where ${docsThreads.tenantId} = ${docsDocuments.tenantId} and ${docsThreads.documentId} = ${docsDocuments.id} and ${docsThreads.status} = 'open')`;

/**
 * Documents, most recently changed first, as one statement per shape built once (db/compiled.ts). A search's
 * terms each appear in the title, or in a tab's title or body; with terms, each document also carries the first
 * tab (by position) whose text holds the first term and the text around it, which shows a searcher why it matched.
 */
const documentsStatement = compiledSelectShapes<Shape, PageValue, ReturnType<typeof documentsSelect>>(documentsSelect);

function documentsSelect(shape: Shape, qb: QueryBuilder, p: Placeholders<PageValue>) {
  const where: SQL[] = [visibleTo(docsDocuments, p.tenant, p.who)];
  if (shape.status) where.push(eq(docsDocuments.status, p.status));
  if (shape.authors) where.push(sql`${docsDocuments.ownerId} = any(${p.authors}::text[])`);
  const title = matchCondition(docsDocuments.title, shape.title, p.title);
  if (title) where.push(title);
  const terms = TERMS.slice(0, shape.terms);
  for (const t of terms) {
    where.push(
      sql`(${docsDocuments.title} ilike ${p[t]} or exists (select 1 from ${docsTabs} where ${docsTabs.tenantId} = ${p.tenant} and ${docsTabs.documentId} = ${docsDocuments.id} and (${docsTabs.title} ilike ${p[t]} or ${docsTabs.body} ilike ${p[t]})))`,
    );
  }
  if (shape.cursor) where.push(sql`(${docsDocuments.updatedAt}, ${docsDocuments.id}) < (${p.u}::timestamptz, ${p.id}::text)`);
  const snippet = terms.length
    ? sql<[string, string] | null>`(select json_build_array(${docsTabs.title}, substr(${docsTabs.body}, greatest(strpos(lower(${docsTabs.body}), lower(${p.snippet}::text)) - 60, 1), 160)) from ${docsTabs} where ${docsTabs.tenantId} = ${docsDocuments.tenantId} and ${docsTabs.documentId} = ${docsDocuments.id} and ${docsTabs.body} ilike ${p.snippetLike} order by ${docsTabs.position} asc limit 1)`
    : sql<[string, string] | null>`null`;
  return qb
    .select({
      id: docsDocuments.id,
      title: docsDocuments.title,
      status: docsDocuments.status,
      updatedAt: docsDocuments.updatedAt,
      key: exactTime(docsDocuments.updatedAt),
      ownerName: users.name,
      tabs: tabCount,
      open: openThreadCount,
      snippet,
    })
    .from(docsDocuments)
    .innerJoin(users, eq(users.id, docsDocuments.ownerId))
    .where(and(...where))
    .orderBy(desc(docsDocuments.updatedAt), desc(docsDocuments.id))
    .limit(p.n);
}

/** Documents the caller may read (owned by or shared with the call's authority), most recently changed first. */
async function documentPage(ctx: RealmContext, w: DocumentsWhere, c: Cursor | null, n: number): Promise<PageOut<Cursor>> {
  if (w.authors?.length === 0) return { items: [], next: null };
  const terms = w.terms ?? [];
  const rows = await documentsStatement(shapeOf(w, c))(ctx.tx, {
    tenant: ctx.tenantId,
    who: authorityOf(ctx.principal),
    status: w.status ?? null,
    authors: w.authors ?? null,
    title: matchValue(w.title),
    ...termPatterns(terms),
    snippet: terms[0] ?? null,
    snippetLike: terms[0] === undefined ? null : likePattern(terms[0]),
    u: c?.u ?? null,
    id: c?.id ?? null,
    n: n + 1,
  } satisfies Record<PageValue, unknown>);
  const lean = (r: (typeof rows)[number]) => {
    const parts = [r.status, plural(r.tabs, "tab"), plural(r.open, "open thread"), `by ${r.ownerName}`];
    const snippet = r.snippet ? `${r.snippet[0]}: “${cut(squash(r.snippet[1]), 120)}”` : null;
    return {
      ref: refs.make("document", r.id),
      kind: "docs.document",
      label: r.title,
      summary: parts.join(" · ") + (snippet ? ` — ${snippet}` : ""),
      updated_at: r.updatedAt.toISOString(),
    };
  };
  return pageOf(rows, n, lean, (last) => ({ u: last.key, id: last.id }));
}

const tabsOf = async (ctx: RealmContext, doc: Pick<DocsDocument, "id">, full: boolean) =>
  ctx.tx
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

const threadCounts = async (ctx: RealmContext, doc: Pick<DocsDocument, "id">) =>
  ctx.tx
    .select({ status: docsThreads.status, n: sql<number>`count(*)::int` })
    .from(docsThreads)
    .where(and(eq(docsThreads.tenantId, ctx.tenantId), eq(docsThreads.documentId, doc.id)))
    .groupBy(docsThreads.status);

async function presentDocument(ctx: RealmContext, doc: DocsDocument, full: boolean): Promise<Record<string, unknown>> {
  // Three reads that need only the document: asked at once, in one exchange with the database (db/pipeline.ts).
  const [tabs, counts, people] = await inOneExchange(ctx.tx, [() => tabsOf(ctx, doc, full), () => threadCounts(ctx, doc), () => peopleOf(ctx, [doc.ownerId, ...doc.sharedWith])] as const);
  return documentAnswer(doc, tabs, counts, people);
}

/**
 * get_object of a document: the document (with the caller's authority) and the three reads that need only its id
 * — its tabs, its threads' counts, the people it names — in one exchange (db/pipeline.ts). When the document is
 * not the caller's to read, its not_found or realm_denied is the answer and the rest is discarded unread by anyone.
 */
async function getDocument(ctx: RealmContext, ref: string, full: boolean): Promise<Record<string, unknown>> {
  const id = refs.idOf(ref, "document");
  // The document's refusal waits for the other three: nothing of this call is still on its way to the database
  // when the refusal reaches the dispatcher (which then rolls back to its savepoint).
  const [loaded, tabs, counts, people] = await inOneExchange(ctx.tx, [
    () => loadDocument(ctx, ref).then((doc) => ({ doc }), (refused: unknown) => ({ refused })),
    () => tabsOf(ctx, { id }, full),
    () => threadCounts(ctx, { id }),
    // The people it names (owner and those it is shared with), read from the document's own row.
    () => peopleSelectedBy(ctx, sql`select unnest(array[${docsDocuments.ownerId}] || ${docsDocuments.sharedWith}) from ${docsDocuments} where ${inTenant(ctx, docsDocuments, id)}`),
  ] as const);
  if ("refused" in loaded) throw loaded.refused;
  return documentAnswer(loaded.doc, tabs, counts, people);
}

function documentAnswer(
  doc: DocsDocument,
  tabs: Awaited<ReturnType<typeof tabsOf>>,
  counts: Awaited<ReturnType<typeof threadCounts>>,
  people: Map<string, Person>,
): Record<string, unknown> {
  return {
    ref: refs.make("document", doc.id),
    kind: "docs.document",
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

export const documentKind = defineKind({
  noun: "document",
  schemas: { create: fields, patch: fields, filter, selector },
  cursor,
  load: loadDocument,
  present: presentDocument,
  get: getDocument,
  searchable: true,

  async page(ctx, { filter: f, query, after, limit }) {
    const where = await conditions(ctx, f);
    return documentPage(ctx, query === null ? where : { ...where, terms: searchTerms(query) }, after, limit);
  },

  async create(ctx, f) {
    if (f.title === undefined) throw requiredField("title", "a document");
    const ownerId = authorityOf(ctx.principal);
    const [doc] = await ctx.tx
      .insert(docsDocuments)
      .values({
        id: refs.newId("document"),
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
    await ctx.tx.insert(docsTabs).values({ id: refs.newId("tab"), tenantId: ctx.tenantId, documentId: doc!.id, title: "Tab 1", position: 1, body: "", createdAt: ctx.now, updatedAt: ctx.now });
    return { ref: refs.make("document", doc!.id), object: await presentDocument(ctx, doc!, false) };
  },

  async patch(ctx, ref, f) {
    const doc = await loadDocument(ctx, ref);
    const changes: Partial<DocsDocument> = {};
    if (f.title !== undefined) changes.title = f.title;
    if (f.status !== undefined) changes.status = f.status;
    if (f.shared_with !== undefined) {
      // Sharing decides who may see the document at all: the owner's decision alone.
      assertOwner(aclOf(doc), ref, ctx);
      changes.sharedWith = await sharedWithAfter(ctx, doc.sharedWith, doc.ownerId, f.shared_with);
    }
    if (!Object.keys(changes).length) return presentDocument(ctx, doc, false);
    const [updated] = await ctx.tx
      .update(docsDocuments)
      .set({ ...changes, updatedAt: ctx.now })
      .where(inTenant(ctx, docsDocuments, doc.id))
      .returning();
    return presentDocument(ctx, updated!, false);
  },

  async delete(ctx, doc, ref) {
    assertOwner(aclOf(doc), ref, ctx);
    // Tabs, threads, comments and export records go with it (foreign keys cascade); attached files stay
    // with their uploaders, unattached (set null).
    await ctx.tx.delete(docsDocuments).where(inTenant(ctx, docsDocuments, doc.id));
  },

  async resolve(ctx, s) {
    const base = await conditions(ctx, { ...(s.status ? { status: s.status } : {}), ...(s.author ? { author: s.author } : {}) });
    const page = (title?: DocumentsWhere["title"]) => documentPage(ctx, title ? { ...base, title } : base, null, MAX_CHOICES + 1).then((p) => p.items);
    const t = s.title;
    if (t === undefined) return page();
    return decide(
      () => page({ is: t }),
      () => page({ like: t }),
    );
  },

  async describe(ctx, ids) {
    const rows = await ctx.tx
      .select({ id: docsDocuments.id, title: docsDocuments.title, status: docsDocuments.status, ownerId: docsDocuments.ownerId, sharedWith: docsDocuments.sharedWith, ownerName: users.name })
      .from(docsDocuments)
      .innerJoin(users, eq(users.id, docsDocuments.ownerId))
      .where(and(eq(docsDocuments.tenantId, ctx.tenantId), inArray(docsDocuments.id, ids)));
    return new Map(rows.filter((r) => canRead(r, ctx.principal)).map((r) => [r.id, { label: r.title, summary: `${r.status} document by ${r.ownerName}`, lineage: [] }]));
  },
});
