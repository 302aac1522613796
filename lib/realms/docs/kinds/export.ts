// docs.export: a file rendered from a document by the export action. It is its maker's own: lib/delivery lets
// only its owner read it, so anyone else sees not_found.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { docsDocuments, docsExports } from "@/db/schema/docs";
import { authorityOf } from "@/lib/realms/contract";
import { assertReadable, canRead, notFound } from "@/lib/realms/native/acl";
import { defineKind, pageOf } from "@/lib/realms/native/kind";
import { exactTime, inTenant } from "@/lib/realms/native/sql";
import { plural } from "@/lib/realms/native/text";
import { refs } from "../refs";
import { aclOf, idKey, refString, timeKey } from "../shared";
import { loadDocument } from "./document";

const cursor = z.strictObject({ u: timeKey, id: idKey });

export const exportKind = defineKind({
  noun: "export",
  schemas: { filter: z.strictObject({ document: refString }) },
  cursor,

  async load(ctx, ref) {
    const id = refs.idOf(ref, "export");
    const [row] = await ctx.tx
      .select({ exp: docsExports, doc: docsDocuments })
      .from(docsExports)
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsExports.documentId), eq(docsDocuments.tenantId, docsExports.tenantId)))
      .where(inTenant(ctx, docsExports, id));
    if (!row || row.exp.createdBy !== authorityOf(ctx.principal)) throw notFound(ref);
    assertReadable(aclOf(row.doc), ref, ctx.principal);
    return row;
  },

  async present(ctx, { exp, doc }) {
    const ref = refs.make("export", exp.id);
    return {
      ref,
      kind: "docs.export",
      document: refs.make("document", doc.id),
      format: exp.format,
      name: exp.name,
      content_type: exp.contentType,
      size: exp.size,
      sha256: exp.sha256,
      download: await ctx.delivery.fileUrl(exp.id, { name: exp.name, ref }),
      created_at: exp.createdAt.toISOString(),
    };
  },

  async page(ctx, { filter, after: c, limit: n }) {
    const doc = await loadDocument(ctx, filter.document);
    const where = [eq(docsExports.tenantId, ctx.tenantId), eq(docsExports.documentId, doc.id), eq(docsExports.createdBy, authorityOf(ctx.principal))];
    if (c) where.push(sql`(${docsExports.createdAt}, ${docsExports.id}) < (${c.u}::timestamptz, ${c.id})`);
    const rows = await ctx.tx
      .select({ id: docsExports.id, name: docsExports.name, format: docsExports.format, size: docsExports.size, createdAt: docsExports.createdAt, key: exactTime(docsExports.createdAt) })
      .from(docsExports)
      .where(and(...where))
      .orderBy(desc(docsExports.createdAt), desc(docsExports.id))
      .limit(n + 1);
    const lean = (r: (typeof rows)[number]) => ({
      ref: refs.make("export", r.id),
      kind: "docs.export",
      label: r.name,
      summary: `${r.format} · ${plural(r.size, "byte")} · of “${doc.title}”`,
      updated_at: r.createdAt.toISOString(),
    });
    return pageOf(rows, n, lean, (last) => ({ u: last.key, id: last.id }));
  },

  async describe(ctx, ids) {
    const rows = await ctx.tx
      .select({ id: docsExports.id, name: docsExports.name, format: docsExports.format, createdBy: docsExports.createdBy, documentTitle: docsDocuments.title, ownerId: docsDocuments.ownerId, sharedWith: docsDocuments.sharedWith })
      .from(docsExports)
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsExports.documentId), eq(docsDocuments.tenantId, docsExports.tenantId)))
      .where(and(eq(docsExports.tenantId, ctx.tenantId), inArray(docsExports.id, ids)));
    const who = authorityOf(ctx.principal);
    return new Map(
      rows.filter((r) => r.createdBy === who && canRead(r, ctx.principal)).map((r) => [r.id, { label: r.name, summary: `${r.format} export of “${r.documentTitle}”`, lineage: [] }]),
    );
  },

  /** An export is produced from its document: a grant on the document reaches it (and its download link). */
  async lineage(ctx, ids) {
    const rows = await ctx.tx.select({ id: docsExports.id, doc: docsExports.documentId }).from(docsExports).where(and(eq(docsExports.tenantId, ctx.tenantId), inArray(docsExports.id, ids)));
    return new Map(rows.map((r) => [r.id, [refs.make("document", r.doc)]]));
  },
});
