// docs.comment: one comment in a thread. Written by starting a thread or replying (reply_comment), never upserted.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { users } from "@/db/schema";
import { docsComments, docsDocuments, docsThreads } from "@/db/schema/docs";
import { canRead, readable } from "@/lib/realms/native/acl";
import { defineKind, pageOf } from "@/lib/realms/native/kind";
import { emailOf, peopleOf } from "@/lib/realms/native/people";
import { cut, squash } from "@/lib/realms/native/text";
import { refs } from "../refs";
import { aclOf, firstWords, refString } from "../shared";
import { loadThread, threadDocs } from "./thread";
import { inTenant } from "@/lib/realms/native/sql";

const cursor = z.strictObject({ s: z.number().int().min(0) });

const loadComment = readable(
  (ref) => refs.idOf(ref, "comment"),
  async (ctx, id) =>
    (
      await ctx.tx
        .select({ comment: docsComments, doc: docsDocuments })
        .from(docsComments)
        .innerJoin(docsThreads, and(eq(docsThreads.id, docsComments.threadId), eq(docsThreads.tenantId, docsComments.tenantId)))
        .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
        .where(inTenant(ctx, docsComments, id))
    )[0],
  (row) => aclOf(row.doc),
);

export const commentKind = defineKind({
  noun: "comment",
  schemas: { filter: z.strictObject({ thread: refString }) },
  cursor,
  load: loadComment,

  async present(ctx, { comment, doc }) {
    const people = await peopleOf(ctx, [comment.authorId]);
    return {
      ref: refs.make("comment", comment.id),
      kind: "docs.comment",
      thread: refs.make("thread", comment.threadId),
      document: refs.make("document", doc.id),
      author: emailOf(people, comment.authorId),
      author_name: people.get(comment.authorId)?.name ?? null,
      ...(comment.viaActor ? { via_actor: comment.viaActor } : {}),
      body: comment.body,
      created_at: comment.createdAt.toISOString(),
    };
  },

  async page(ctx, { filter, after: c, limit: n }) {
    const { thread } = await loadThread(ctx, filter.thread);
    const where = [eq(docsComments.tenantId, ctx.tenantId), eq(docsComments.threadId, thread.id)];
    if (c) where.push(sql`${docsComments.seq} > ${c.s}`);
    const rows = await ctx.tx
      .select({ id: docsComments.id, seq: docsComments.seq, start: sql<string>`left(${docsComments.body}, 200)`, createdAt: docsComments.createdAt, author: users.name })
      .from(docsComments)
      .innerJoin(users, eq(users.id, docsComments.authorId))
      .where(and(...where))
      .orderBy(asc(docsComments.seq))
      .limit(n + 1);
    const lean = (r: (typeof rows)[number]) => ({ ref: refs.make("comment", r.id), kind: "docs.comment", label: `${r.author}: ${cut(squash(r.start), 80)}`, updated_at: r.createdAt.toISOString() });
    return pageOf(rows, n, lean, (last) => ({ s: last.seq }));
  },

  async describe(ctx, ids) {
    const rows = await ctx.tx
      .select({
        id: docsComments.id,
        start: sql<string>`left(${docsComments.body}, 200)`,
        threadId: docsComments.threadId,
        author: users.name,
        documentId: docsThreads.documentId,
        documentTitle: docsDocuments.title,
        ownerId: docsDocuments.ownerId,
        sharedWith: docsDocuments.sharedWith,
      })
      .from(docsComments)
      .innerJoin(docsThreads, and(eq(docsThreads.id, docsComments.threadId), eq(docsThreads.tenantId, docsComments.tenantId)))
      .innerJoin(docsDocuments, and(eq(docsDocuments.id, docsThreads.documentId), eq(docsDocuments.tenantId, docsThreads.tenantId)))
      .innerJoin(users, eq(users.id, docsComments.authorId))
      .where(and(eq(docsComments.tenantId, ctx.tenantId), inArray(docsComments.id, ids)));
    return new Map(
      rows
        .filter((r) => canRead(r, ctx.principal))
        .map((r) => [
          r.id,
          { label: `${r.author}: ${firstWords(r.start)}`, summary: `comment on “${r.documentTitle}”`, lineage: [refs.make("thread", r.threadId), refs.make("document", r.documentId)] },
        ]),
    );
  },

  async lineage(ctx, ids) {
    const rows = await ctx.tx
      .select({ id: docsComments.id, thread: docsComments.threadId })
      .from(docsComments)
      .where(and(eq(docsComments.tenantId, ctx.tenantId), inArray(docsComments.id, ids)));
    const docs = await threadDocs(ctx, [...new Set(rows.map((r) => r.thread))]);
    return new Map(rows.map((r) => [r.id, [refs.make("thread", r.thread), ...(docs.has(r.thread) ? [refs.make("document", docs.get(r.thread)!)] : [])]]));
  },
});
