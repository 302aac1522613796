// docs.document: a titled document of tabs, with a status, owned by one person and shared with others.
// Listed most recently changed first; searched by title and tab text.
import { and, asc, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { memberships, users } from "@/db/schema";
import { docStatuses, docsDocuments, docsTabs, docsThreads, type DocsDocument } from "@/db/schema/docs";
import { authorityOf, type RealmContext } from "@/lib/realms/contract";
import { assertOwner, canRead, readable } from "@/lib/realms/native/acl";
import { decide, defineKind, MAX_CHOICES, pageOf, pickOne, requiredField, withinGrant, type PageOut } from "@/lib/realms/native/kind";
import { emailOf, peopleOf, peoplePatch, person, sharedWithAfter } from "@/lib/realms/native/people";
import { exactTime, inTenant, likePattern } from "@/lib/realms/native/sql";
import { cut, plural, squash } from "@/lib/realms/native/text";
import { refs } from "../refs";
import { aclOf, idKey, searchTerms, selectorText, timeKey, title, visibleDocuments } from "../shared";

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
    () => documentPage(ctx, [sql`lower(${docsDocuments.title}) = lower(${name})`], null, MAX_CHOICES + 1).then((p) => p.items),
    () => documentPage(ctx, [sql`${docsDocuments.title} ilike ${likePattern(name)}`], null, MAX_CHOICES + 1).then((p) => p.items),
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

async function conditions(ctx: RealmContext, f: z.infer<typeof filter>): Promise<SQL[]> {
  const out: SQL[] = [];
  if (f.status) out.push(eq(docsDocuments.status, f.status));
  if (f.author !== undefined) {
    const ids = await authorIds(ctx, f.author);
    out.push(ids.length ? inArray(docsDocuments.ownerId, ids) : sql`false`);
  }
  return out;
}

/** Each term appears in the title, or in a tab's title or body. */
function matches(terms: string[]): SQL[] {
  return terms.map((t) => {
    const p = likePattern(t);
    return sql`(${docsDocuments.title} ilike ${p} or exists (select 1 from ${docsTabs} where ${docsTabs.tenantId} = ${docsDocuments.tenantId} and ${docsTabs.documentId} = ${docsDocuments.id} and (${docsTabs.title} ilike ${p} or ${docsTabs.body} ilike ${p})))`;
  });
}

const tabCount = sql<number>`(select count(*)::int from ${docsTabs} where ${docsTabs.tenantId} = ${docsDocuments.tenantId} and ${docsTabs.documentId} = ${docsDocuments.id})`;
const openThreadCount = sql<number>`(select count(*)::int from ${docsThreads} where ${docsThreads.tenantId} = ${docsDocuments.tenantId} and ${docsThreads.documentId} = ${docsDocuments.id} and ${docsThreads.status} = 'open')`;

/**
 * For each document, the first tab (by position) whose text holds `term`, and the text around it: shows a searcher
 * why a document matched. A subquery of the page's own statement (no round trip of its own).
 */
const tabSnippet = (term: string) =>
  sql<[string, string] | null>`(select json_build_array(${docsTabs.title}, substr(${docsTabs.body}, greatest(strpos(lower(${docsTabs.body}), lower(${term})) - 60, 1), 160)) from ${docsTabs} where ${docsTabs.tenantId} = ${docsDocuments.tenantId} and ${docsTabs.documentId} = ${docsDocuments.id} and ${docsTabs.body} ilike ${likePattern(term)} order by ${docsTabs.position} asc limit 1)`;

/** Documents, most recently changed first. `snippetTerm` adds where the text matched to each summary. */
async function documentPage(ctx: RealmContext, where: SQL[], c: Cursor | null, n: number, snippetTerm?: string): Promise<PageOut<Cursor>> {
  where = [visibleDocuments(ctx), ...where];
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
      snippet: snippetTerm ? tabSnippet(snippetTerm) : sql<null>`null`,
    })
    .from(docsDocuments)
    .innerJoin(users, eq(users.id, docsDocuments.ownerId))
    .where(and(...where))
    .orderBy(desc(docsDocuments.updatedAt), desc(docsDocuments.id))
    .limit(n + 1);
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
  searchable: true,

  async page(ctx, { filter: f, query, after, limit }) {
    if (query === null) return documentPage(ctx, await conditions(ctx, f), after, limit);
    const terms = searchTerms(query);
    return documentPage(ctx, [...(await conditions(ctx, f)), ...matches(terms)], after, limit, terms[0]);
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
    const page = (extra: SQL[]) => documentPage(ctx, [...base, ...extra], null, MAX_CHOICES + 1).then((p) => p.items);
    const t = s.title;
    if (t === undefined) return page([]);
    return decide(
      () => page([sql`lower(${docsDocuments.title}) = lower(${t})`]),
      () => page([sql`${docsDocuments.title} ilike ${likePattern(t)}`]),
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
