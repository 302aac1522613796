// docs.tab: one tab of a document (title, position, markdown body). Positions are 1-based and dense.
import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { docsDocuments, docsTabs, type DocsDocument, type DocsTab } from "@/db/schema/docs";
import type { RealmContext } from "@/lib/realms/contract";
import { canRead, readable } from "@/lib/realms/native/acl";
import { decide, defineKind, MAX_CHOICES, pageOf } from "@/lib/realms/native/kind";
import { inTenant, likePattern } from "@/lib/realms/native/sql";
import { cut, plural, squash } from "@/lib/realms/native/text";
import { refs } from "../refs";
import { aclOf, charCount, idKey, lockDocument, refString, selectorText, title, touchDocument, visibleDocuments } from "../shared";
import { loadDocument } from "./document";

const PREVIEW_CHARS = 280;
const body = z.string().max(500_000);
const position = z.number().int().min(1);
const create = z.strictObject({ document: refString, title, body: body.optional(), position: position.optional() });
const patch = z.strictObject({ title: title.optional(), body: body.optional(), position: position.optional() });
const cursor = z.strictObject({ p: z.number().int(), id: idKey });

export const loadTab = readable(
  (ref) => refs.idOf(ref, "tab"),
  async (ctx, id): Promise<{ tab: DocsTab; doc: DocsDocument } | undefined> =>
    (
      await ctx.tx
        .select({ tab: docsTabs, doc: docsDocuments })
        .from(docsTabs)
        .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsTabs.documentId), eq(docsDocuments.tenantId, docsTabs.tenantId)))
        .where(inTenant(ctx, docsTabs, id))
    )[0],
  (row) => aclOf(row.doc),
);

function presentTab(tab: DocsTab, doc: DocsDocument, full: boolean): Record<string, unknown> {
  return {
    ref: refs.make("tab", tab.id),
    kind: "docs.tab",
    document: refs.make("document", doc.id),
    document_title: doc.title,
    title: tab.title,
    position: tab.position,
    body_chars: charCount(tab.body),
    ...(full ? { body: tab.body } : { preview: cut(tab.body, PREVIEW_CHARS) }),
    updated_at: tab.updatedAt.toISOString(),
  };
}

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
        .where(inTenant(ctx, docsTabs, id));
    }
  }
  return at;
}

export const tabKind = defineKind({
  noun: "tab",
  schemas: { create, patch, filter: z.strictObject({ document: refString }), selector: z.strictObject({ title: selectorText, document: refString.optional() }) },
  cursor,
  load: loadTab,
  present: (_ctx, { tab, doc }, full) => presentTab(tab, doc, full),

  async page(ctx, { filter, after: c, limit: n }) {
    const doc = await loadDocument(ctx, filter.document);
    const where = [eq(docsTabs.tenantId, ctx.tenantId), eq(docsTabs.documentId, doc.id)];
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
    const lean = (r: (typeof rows)[number]) => ({
      ref: refs.make("tab", r.id),
      kind: "docs.tab",
      label: r.title,
      summary: [`tab ${r.position} of “${doc.title}”`, plural(r.chars, "character"), cut(squash(r.start), 80)].filter(Boolean).join(" · "),
      updated_at: r.updatedAt.toISOString(),
    });
    return pageOf(rows, n, lean, (last) => ({ p: last.position, id: last.id }));
  },

  async create(ctx, f) {
    await refs.gate(ctx, f.document, "document", "fields.document");
    const doc = await loadDocument(ctx, f.document);
    await lockDocument(ctx, doc.id);
    const id = refs.newId("tab");
    // Inserted last, then moved: placeTab keeps positions dense whatever was asked.
    await ctx.tx.insert(docsTabs).values({ id, tenantId: ctx.tenantId, documentId: doc.id, title: f.title, position: 2_147_483_647, body: f.body ?? "", createdAt: ctx.now, updatedAt: ctx.now });
    await placeTab(ctx, doc.id, id, f.position);
    await touchDocument(ctx, doc.id);
    const ref = refs.make("tab", id);
    const { tab } = await loadTab(ctx, ref);
    return { ref, object: presentTab(tab, doc, false) };
  },

  async patch(ctx, ref, f) {
    const { tab, doc } = await loadTab(ctx, ref);
    if (f.title === undefined && f.body === undefined && f.position === undefined) return presentTab(tab, doc, false);
    await lockDocument(ctx, doc.id);
    const changes: Partial<DocsTab> = {};
    if (f.title !== undefined) changes.title = f.title;
    if (f.body !== undefined) changes.body = f.body;
    await ctx.tx
      .update(docsTabs)
      .set({ ...changes, updatedAt: ctx.now })
      .where(inTenant(ctx, docsTabs, tab.id));
    if (f.position !== undefined) await placeTab(ctx, doc.id, tab.id, f.position);
    await touchDocument(ctx, doc.id);
    const reloaded = await loadTab(ctx, ref);
    return presentTab(reloaded.tab, reloaded.doc, false);
  },

  async resolve(ctx, s) {
    const docId = s.document !== undefined ? (await loadDocument(ctx, s.document)).id : null;
    const find = async (match: SQL) => {
      const rows = await ctx.tx
        .select({ id: docsTabs.id, title: docsTabs.title, position: docsTabs.position, documentTitle: docsDocuments.title, updatedAt: docsTabs.updatedAt })
        .from(docsTabs)
        .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsTabs.documentId), eq(docsDocuments.tenantId, docsTabs.tenantId)))
        .where(and(visibleDocuments(ctx), docId ? eq(docsTabs.documentId, docId) : undefined, match))
        .orderBy(desc(docsDocuments.updatedAt), asc(docsTabs.position), asc(docsTabs.id))
        .limit(MAX_CHOICES + 1);
      return rows.map((r) => ({ ref: refs.make("tab", r.id), kind: "docs.tab", label: r.title, summary: `tab ${r.position} of “${r.documentTitle}”`, updated_at: r.updatedAt.toISOString() }));
    };
    return decide(
      () => find(sql`lower(${docsTabs.title}) = lower(${s.title})`),
      () => find(sql`${docsTabs.title} ilike ${likePattern(s.title)}`),
    );
  },

  async describe(ctx, ids) {
    const rows = await ctx.tx
      .select({ id: docsTabs.id, title: docsTabs.title, position: docsTabs.position, documentId: docsTabs.documentId, documentTitle: docsDocuments.title, ownerId: docsDocuments.ownerId, sharedWith: docsDocuments.sharedWith })
      .from(docsTabs)
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsTabs.documentId), eq(docsDocuments.tenantId, docsTabs.tenantId)))
      .where(and(eq(docsTabs.tenantId, ctx.tenantId), inArray(docsTabs.id, ids)));
    return new Map(
      rows.filter((r) => canRead(r, ctx.principal)).map((r) => [r.id, { label: r.title, summary: `tab ${r.position} of “${r.documentTitle}”`, lineage: [refs.make("document", r.documentId)] }]),
    );
  },

  async lineage(ctx, ids) {
    const rows = await ctx.tx.select({ id: docsTabs.id, doc: docsTabs.documentId }).from(docsTabs).where(and(eq(docsTabs.tenantId, ctx.tenantId), inArray(docsTabs.id, ids)));
    return new Map(rows.map((r) => [r.id, [refs.make("document", r.doc)]]));
  },
});
