// docs.file: an uploaded file (host_file). It is its uploader's, and also visible to the readers of the document
// it is attached to. Renaming, attaching and deleting are the uploader's alone, as downloading it is.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { users } from "@/db/schema";
import { docsDocuments, docsFiles, type DocsDocument, type DocsFile } from "@/db/schema/docs";
import { AppError, parseWith } from "@/lib/errors";
import { authorityOf, type RealmAdapter, type RealmContext } from "@/lib/realms/contract";
import { assertOwner, canRead, canWrite, notFound } from "@/lib/realms/native/acl";
import { defineKind, pageOf } from "@/lib/realms/native/kind";
import { emailOf, peopleOf, viaActor } from "@/lib/realms/native/people";
import { exactTime, inTenant } from "@/lib/realms/native/sql";
import { plural } from "@/lib/realms/native/text";
import { refs } from "../refs";
import { aclOf, idKey, oneLine, refString, timeKey } from "../shared";
import { documentNamed, loadDocument } from "./document";

/** File names end up in download headers: one line, no control characters. */
const fileName = oneLine(200)
  .regex(/^[^\p{Cc}]*$/u, "must not contain control characters")
  .meta({ patternMessage: "must be one line without control characters" });
/** Only the name and the attachment change; the bytes never do (upload a new file instead). */
const patch = z.strictObject({ name: fileName.optional(), document: refString.nullable().optional() });
const cursor = z.strictObject({ u: timeKey, id: idKey });

type LoadedFile = { file: DocsFile; doc: DocsDocument | null };

/** A file is visible to its uploader, and to whoever can read the document it is attached to. */
async function loadFile(ctx: RealmContext, ref: string): Promise<LoadedFile> {
  const id = refs.idOf(ref, "file");
  const [row] = await ctx.tx
    .select({ file: docsFiles, doc: docsDocuments })
    .from(docsFiles)
    .leftJoin(docsDocuments, and(eq(docsDocuments.id, docsFiles.documentId), eq(docsDocuments.tenantId, docsFiles.tenantId)))
    .where(inTenant(ctx, docsFiles, id));
  if (!row) throw notFound(ref);
  const mine = row.file.ownerId === authorityOf(ctx.principal);
  if (!mine && !(row.doc && canRead(aclOf(row.doc), ctx.principal))) throw notFound(ref);
  return row;
}

const assertUploader = (file: DocsFile, ref: string, ctx: RealmContext) => assertOwner({ ownerId: file.ownerId, sharedWith: [] }, ref, ctx);

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
    kind: "docs.file",
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

/** host_file: the bytes go to lib/delivery, the record here, unattached. */
export const uploadFile: RealmAdapter["hostFile"] = async (ctx, input) => {
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
};

/**
 * The document a file is attached to, named by its ref or its title (resolved and gated like a ref): attaching
 * shows the file to the document's readers, so only someone who may edit the document may do it.
 */
export async function attachableDocument(ctx: RealmContext, document: string, where: string): Promise<DocsDocument> {
  let doc: DocsDocument;
  if (document.startsWith("docs:")) {
    await refs.gate(ctx, document, "document", where);
    doc = await loadDocument(ctx, document);
  } else doc = await documentNamed(ctx, document, where);
  if (!canWrite(aclOf(doc), ctx.principal)) throw notFound(document);
  return doc;
}

/** attach_file: the one change the action makes (the uploader attaches their file to a document they can edit). */
export async function attachFile(ctx: RealmContext, ref: string, document: string) {
  const loaded = await loadFile(ctx, ref);
  assertUploader(loaded.file, ref, ctx);
  const doc = await attachableDocument(ctx, document, "payload.document");
  await ctx.tx.update(docsFiles).set({ documentId: doc.id }).where(inTenant(ctx, docsFiles, loaded.file.id));
  return presentFile(ctx, await loadFile(ctx, ref), false);
}

export const fileKind = defineKind({
  noun: "file",
  schemas: { patch, filter: z.strictObject({ document: refString.optional() }) },
  cursor,
  load: loadFile,
  present: (ctx, loaded) => presentFile(ctx, loaded, true),

  /**
   * Files newest first: without a document, the caller's own uploads; with one (which the caller must be able
   * to read), every file attached to it, since its readers may all see them.
   */
  async page(ctx, { filter: f, after: c, limit: n }) {
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
    const lean = (r: (typeof rows)[number]) => ({
      ref: refs.make("file", r.id),
      kind: "docs.file",
      label: r.name,
      summary: [r.contentType, plural(r.size, "byte"), r.documentTitle === null ? "not attached" : `attached to “${r.documentTitle}”`, `by ${r.uploader}`].join(" · "),
      updated_at: r.createdAt.toISOString(),
    });
    return pageOf(rows, n, lean, (last) => ({ u: last.key, id: last.id }));
  },

  async create(): Promise<never> {
    throw new AppError("invalid_input", "Files are created with host_file; upsert_object renames a file or attaches it to a document.", {
      details: { kind: "docs.file", tool: "host_file" },
    });
  },

  async patch(ctx, ref, f) {
    const loaded = await loadFile(ctx, ref);
    if (f.name === undefined && f.document === undefined) return presentFile(ctx, loaded, false);
    assertUploader(loaded.file, ref, ctx);
    const changes: Partial<DocsFile> = {};
    if (f.name !== undefined) changes.name = f.name;
    if (f.document === null) changes.documentId = null;
    else if (f.document !== undefined) changes.documentId = (await attachableDocument(ctx, f.document, "fields.document")).id;
    await ctx.tx
      .update(docsFiles)
      .set(changes)
      .where(inTenant(ctx, docsFiles, loaded.file.id));
    return presentFile(ctx, await loadFile(ctx, ref), false);
  },

  /** The record and the bytes go together: a link minted before the delete stops working at once. */
  async delete(ctx, { file }, ref) {
    assertUploader(file, ref, ctx);
    await ctx.tx.delete(docsFiles).where(inTenant(ctx, docsFiles, file.id));
    await ctx.delivery.deleteFile(file.id);
  },

  async describe(ctx, ids) {
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
      .where(and(eq(docsFiles.tenantId, ctx.tenantId), inArray(docsFiles.id, ids)));
    const who = authorityOf(ctx.principal);
    const out = new Map<string, { label: string; summary: string; lineage: string[] }>();
    for (const r of rows) {
      const docVisible = r.docOwner !== null && r.docShared !== null && canRead({ ownerId: r.docOwner, sharedWith: r.docShared }, ctx.principal);
      if (r.fileOwner !== who && !docVisible) continue;
      // The uploader of a file attached to a document they can no longer read sees the file, not the document's title.
      out.set(r.id, {
        label: r.name,
        summary: r.documentId === null ? "file, not attached" : docVisible ? `file attached to “${r.documentTitle}”` : "file attached to a document",
        lineage: r.documentId ? [refs.make("document", r.documentId)] : [],
      });
    }
    return out;
  },

  async lineage(ctx, ids) {
    const rows = await ctx.tx.select({ id: docsFiles.id, doc: docsFiles.documentId }).from(docsFiles).where(and(eq(docsFiles.tenantId, ctx.tenantId), inArray(docsFiles.id, ids)));
    return new Map(rows.filter((r) => r.doc).map((r) => [r.id, [refs.make("document", r.doc!)]]));
  },
});
