// The docs realm's actions: reply in a comment thread, resolve it, export a document to a file.
import { and, asc, eq } from "drizzle-orm";
import { docsComments, docsExports, docsTabs, docsThreads } from "@/db/schema/docs";
import { authorityOf } from "@/lib/realms/contract";
import { defineAction } from "@/lib/realms/native/adapter";
import { emailOf, peopleOf, viaActor } from "@/lib/realms/native/people";
import { loadDocument } from "./kinds/document";
import { loadThread } from "./kinds/thread";
import { attachFile } from "./kinds/file";
import { attachFilePayload, exportPayload, replyCommentPayload, resolveThreadPayload } from "./manifest";
import { refs } from "./refs";
import { renderDocument } from "./render";
import { inTenant } from "@/lib/realms/native/sql";

export const actions = {
  /** A reply reopens a resolved thread. */
  reply_comment: defineAction(replyCommentPayload, async (ctx, ref, { body }) => {
    const { thread } = await loadThread(ctx, ref);
    const id = refs.newId("comment");
    await ctx.tx.insert(docsComments).values({ id, tenantId: ctx.tenantId, threadId: thread.id, authorId: authorityOf(ctx.principal), viaActor: viaActor(ctx), body, createdAt: ctx.now });
    const reopened = thread.status === "resolved";
    await ctx.tx
      .update(docsThreads)
      .set(reopened ? { status: "open", resolvedBy: null, resolvedViaActor: null, resolvedAt: null, resolutionNote: null, updatedAt: ctx.now } : { updatedAt: ctx.now })
      .where(inTenant(ctx, docsThreads, thread.id));
    return { ref: refs.make("comment", id), thread: ref, thread_status: "open", reopened };
  }),

  /** Resolving twice changes nothing and says who did it first. */
  resolve_thread: defineAction(resolveThreadPayload, async (ctx, ref, { resolution_note }) => {
    const { thread } = await loadThread(ctx, ref);
    if (thread.status === "resolved") {
      const by = emailOf(await peopleOf(ctx, [thread.resolvedBy]), thread.resolvedBy);
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
      .where(inTenant(ctx, docsThreads, thread.id));
    const people = await peopleOf(ctx, [who]);
    return { ref, status: "resolved", changed: true, resolved_by: emailOf(people, who), resolved_at: ctx.now.toISOString(), resolution_note: resolution_note ?? null };
  }),

  /** Attaching is all it does: the companion of host_file (consent offers them together). */
  attach_file: defineAction(attachFilePayload, async (ctx, ref, { document }) => attachFile(ctx, ref, document)),

  /** The rendered file is the caller's own (a docs.export), handed back as a short-lived link. */
  export: defineAction(exportPayload, async (ctx, ref, { format }) => {
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
  }),
};
