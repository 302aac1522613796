// The native `docs` realm: documents with tabs, comment threads with their comments, the exports rendered
// from documents, and files people upload. Every row carries tenant_id; children repeat it so every query
// can filter on it.
import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";
import { tenants, users } from "./tenancy";

export const docStatuses = ["draft", "review", "published"] as const;
export type DocStatus = (typeof docStatuses)[number];
export const threadStatuses = ["open", "resolved"] as const;
export type ThreadStatus = (typeof threadStatuses)[number];
export const exportFormats = ["markdown", "html", "text"] as const;
export type ExportFormat = (typeof exportFormats)[number];

export const docsDocuments = pgTable(
  "docs_documents",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    ownerId: text("owner_id").notNull().references(() => users.id),
    /** User ids that may read and write (not delete or re-share). */
    sharedWith: text("shared_with").array().notNull().default(sql`'{}'::text[]`),
    status: text("status", { enum: docStatuses }).notNull().default("draft"),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("docs_documents_recent").on(t.tenantId, t.updatedAt, t.id),
    index("docs_documents_owner").on(t.tenantId, t.ownerId),
    index("docs_documents_shared").using("gin", t.sharedWith),
    check("docs_documents_status_check", sql`${t.status} in ('draft', 'review', 'published')`),
  ],
);
export type DocsDocument = typeof docsDocuments.$inferSelect;

export const docsTabs = pgTable(
  "docs_tabs",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    documentId: text("document_id").notNull().references(() => docsDocuments.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    /** 1-based order of the tab within its document; kept dense (1..n) by the adapter. */
    position: integer("position").notNull(),
    /** Markdown. */
    body: text("body").notNull().default(""),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [index("docs_tabs_document").on(t.tenantId, t.documentId, t.position)],
);
export type DocsTab = typeof docsTabs.$inferSelect;

export const docsThreads = pgTable(
  "docs_threads",
  {
    id: idColumn(),
    /** Insertion order: stable keyset pagination without relying on clock precision. */
    seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    documentId: text("document_id").notNull().references(() => docsDocuments.id, { onDelete: "cascade" }),
    tabId: text("tab_id").references(() => docsTabs.id, { onDelete: "set null" }),
    /** The excerpt of the tab the thread is about, as quoted when it was opened. */
    quote: text("quote"),
    status: text("status", { enum: threadStatuses }).notNull().default("open"),
    createdBy: text("created_by").notNull().references(() => users.id),
    resolvedBy: text("resolved_by").references(() => users.id),
    /** Set when a delegated actor resolved it for resolved_by: an actor is never passed off as its user. */
    resolvedViaActor: text("resolved_via_actor"),
    resolvedAt: timestampCol("resolved_at"),
    resolutionNote: text("resolution_note"),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("docs_threads_document").on(t.tenantId, t.documentId, t.seq),
    check("docs_threads_status_check", sql`${t.status} in ('open', 'resolved')`),
  ],
);
export type DocsThread = typeof docsThreads.$inferSelect;

export const docsComments = pgTable(
  "docs_comments",
  {
    id: idColumn(),
    seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    threadId: text("thread_id").notNull().references(() => docsThreads.id, { onDelete: "cascade" }),
    /** The user whose authority wrote it (the user, or the grantor of the actor below). */
    authorId: text("author_id").notNull().references(() => users.id),
    /** Set when a delegated actor wrote it on author_id's behalf. */
    viaActor: text("via_actor"),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("docs_comments_thread").on(t.tenantId, t.threadId, t.seq)],
);
export type DocsComment = typeof docsComments.$inferSelect;

/** A rendering of a document stored through lib/delivery; `id` is the stored file's id. */
export const docsExports = pgTable(
  "docs_exports",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    documentId: text("document_id").notNull().references(() => docsDocuments.id, { onDelete: "cascade" }),
    format: text("format", { enum: exportFormats }).notNull(),
    name: text("name").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    sha256: text("sha256").notNull(),
    /** The stored file is readable by this user's authority only (lib/delivery's rule). */
    createdBy: text("created_by").notNull().references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [index("docs_exports_document").on(t.tenantId, t.documentId, t.createdAt)],
);
export type DocsExport = typeof docsExports.$inferSelect;

/**
 * A file put into the docs store with host_file, optionally attached to a document; `id` is the stored
 * file's id. Deleting the row does not delete the bytes: they stay in lib/delivery's `files` table, which
 * offers realms no way to delete them.
 */
export const docsFiles = pgTable(
  "docs_files",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    /** The uploader's authority (the user, or the grantor of the actor below): lib/delivery lets only them download. */
    ownerId: text("owner_id").notNull().references(() => users.id),
    /** Set when a delegated actor uploaded it on owner_id's behalf. */
    viaActor: text("via_actor"),
    /** The document it is attached to; a deleted document leaves the file with its owner, unattached. */
    documentId: text("document_id").references(() => docsDocuments.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    sha256: text("sha256").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("docs_files_owner").on(t.tenantId, t.ownerId, t.createdAt), index("docs_files_document").on(t.tenantId, t.documentId, t.createdAt)],
);
export type DocsFile = typeof docsFiles.$inferSelect;
