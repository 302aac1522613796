// The docs realm's declaration: documents with tabs, comment threads with replies, exports, and uploaded files.
import { z } from "zod";
import { payloadSchema, type RealmManifest } from "@/lib/realms/contract";
import { nativeManifest } from "@/lib/realms/native/declare";
import { catalog } from "./catalog";
import { kinds } from "./kinds";
import { refs } from "./refs";

/** Action payloads, parsed by the adapter; the JSON Schemas below are derived from them so the two never drift. */
export const replyCommentPayload = z.strictObject({
  body: z.string().trim().min(1).max(10_000).describe("The reply, in markdown."),
});
export const resolveThreadPayload = z.strictObject({
  resolution_note: z.string().trim().min(1).max(2_000).optional().describe("Why or how it was settled; kept on the thread."),
});
export const attachFilePayload = z.strictObject({
  document: z.string().trim().min(1).max(512).describe("The document to attach the file to: its ref, or its title."),
});
export const exportPayload = z.strictObject({
  format: z.enum(["markdown", "html", "text"]).describe("markdown (.md), html (.html, a standalone page) or text (.txt)."),
});

export const manifest: RealmManifest = nativeManifest(
  {
    namespace: "docs",
    realm_type: "native",
    service_card: {
      title: "Docs",
      purpose:
        "Write and share documents made of tabs, discuss them in comment threads, export them as Markdown, HTML or plain text, and store files next to them.",
      works_with: "Realmgate's own document store; no outside account needed.",
      touches: [
        "Documents you own or that were shared with you: their title, status, sharing and tabs (markdown text)",
        "Comment threads on those documents and the replies in them",
        "Exported files of those documents, readable only through short-lived download links",
        "Files you upload (name, type, size; the bytes only through short-lived download links), and files others attached to documents you can read",
        "Nothing outside Realmgate",
      ],
      operation_labels: {
        "provider.about": "About Docs",
        "object.schema": "Browse Docs' capabilities",
        "object.list": "List documents, tabs, comment threads, comments, exports or files",
        "object.search": "Search documents and comment threads",
        "object.get": "Read a document, tab, comment thread, comment, export or file",
        "object.upsert": "Create or edit documents and tabs, start a comment thread, or rename or attach a file",
        "object.delete": "Delete a document with its tabs and comments, or a file you uploaded",
        "file.host": "Upload a file",
        "object.action.reply_comment": "Reply in a comment thread",
        "object.action.resolve_thread": "Resolve a comment thread",
        "object.action.export": "Export a document to a downloadable file",
        "object.action.attach_file": "Attach a file you uploaded to a document",
      },
    },
    kinds: [
      {
        name: "docs.document",
        label: "Document",
        one_liner: "A titled document made of one or more tabs, with a status (draft, review, published) and the people it is shared with.",
        ref_pattern: "docs:document:<doc_id>",
        fields: [
          { name: "title", type: "string", description: "The document's title, one line (1–200 characters).", required: true, writable: true },
          {
            name: "status",
            type: "string",
            description: "Where the document stands; new documents start as draft.",
            enum: ["draft", "review", "published"],
            writable: true,
          },
          {
            name: "shared_with",
            type: "string[]",
            description:
              "Emails of the members it is shared with (they may read, edit, comment and resolve). Only the owner may change it. Upsert takes a list (replaces) or {add: [...], remove: [...]}, of emails or user ids.",
            writable: true,
          },
          { name: "owner", type: "string", description: "Email of the owner, the only one who may delete or re-share it." },
          {
            name: "tabs",
            type: "object",
            description:
              "The tabs in order: ref, title, position and body size. With get_object(full: true) each tab also carries its markdown body. A new document starts with one empty tab.",
          },
          { name: "threads", type: "object", description: "How many comment threads are open and resolved." },
          { name: "created_at", type: "datetime", description: "When it was created." },
          { name: "updated_at", type: "datetime", description: "When its title, status, sharing or a tab last changed." },
        ],
        operations: ["object.list", "object.search", "object.get", "object.upsert", "object.delete"],
        filters: ["status", "author"],
      },
      {
        name: "docs.tab",
        label: "Tab",
        one_liner: "One tab of a document: a title, its position, and a markdown body.",
        ref_pattern: "docs:tab:<tab_id>",
        fields: [
          { name: "document", type: "ref", ref_kind: "docs.document", description: "The document it belongs to (set when creating the tab).", required: true, writable: true },
          { name: "title", type: "string", description: "The tab's title, one line (1–200 characters).", required: true, writable: true },
          { name: "position", type: "integer", description: "1-based place among the document's tabs; setting it moves the tab (new tabs go last).", writable: true },
          { name: "body", type: "text", description: "The tab's content in markdown (up to 500,000 characters); replaced as a whole.", heavy: true, writable: true },
          { name: "body_chars", type: "integer", description: "Length of the body in characters." },
          { name: "preview", type: "string", description: "The first few hundred characters of the body." },
          { name: "updated_at", type: "datetime", description: "When the tab last changed." },
        ],
        operations: ["object.list", "object.get", "object.upsert"],
        filters: ["document"],
      },
      {
        name: "docs.comment_thread",
        label: "Comment thread",
        one_liner: "A discussion on a document, optionally anchored to a tab and a quoted excerpt; open until someone resolves it.",
        ref_pattern: "docs:thread:<thr_id>",
        fields: [
          { name: "document", type: "ref", ref_kind: "docs.document", description: "The document discussed (set when starting the thread).", required: true, writable: true },
          { name: "tab", type: "ref", ref_kind: "docs.tab", description: "The tab the thread is anchored to, if any (set when starting it).", writable: true },
          {
            name: "quote",
            type: "string",
            description: "The excerpt being discussed (1–1,000 characters); it must appear in the tab's text. Given without a tab, the first tab containing it is used.",
            writable: true,
          },
          { name: "body", type: "text", description: "The first comment, which starts the thread (1–10,000 characters). Later comments are replies (reply_comment).", required: true, writable: true },
          { name: "status", type: "string", description: "open, or resolved once someone settles it (resolve_thread).", enum: ["open", "resolved"] },
          { name: "comments", type: "object", description: "The comments in order, first to last: ref, author, body, created_at." },
          { name: "resolved_by", type: "string", description: "Email of who resolved it." },
          { name: "resolved_at", type: "datetime", description: "When it was resolved." },
          { name: "resolution_note", type: "string", description: "The note left when resolving, if any." },
          { name: "created_at", type: "datetime", description: "When the thread was started." },
        ],
        operations: ["object.list", "object.search", "object.get", "object.upsert"],
        filters: ["document", "status"],
      },
      {
        name: "docs.comment",
        label: "Comment",
        one_liner: "One comment in a thread: its author, text and time.",
        ref_pattern: "docs:comment:<cmt_id>",
        fields: [
          { name: "thread", type: "ref", ref_kind: "docs.comment_thread", description: "The thread it belongs to." },
          { name: "document", type: "ref", ref_kind: "docs.document", description: "The document the thread is on." },
          { name: "author", type: "string", description: "Email of who wrote it." },
          { name: "body", type: "text", description: "What they wrote, in markdown." },
          { name: "created_at", type: "datetime", description: "When it was written." },
        ],
        operations: ["object.list", "object.get"],
        filters: ["thread"],
      },
      {
        name: "docs.export",
        label: "Export",
        one_liner: "A file rendered from a document by the export action; get it for a fresh download link.",
        ref_pattern: "docs:export:<fil_id>",
        fields: [
          { name: "document", type: "ref", ref_kind: "docs.document", description: "The document it was rendered from." },
          { name: "format", type: "string", description: "The format it was rendered in.", enum: ["markdown", "html", "text"] },
          { name: "name", type: "string", description: "The file name." },
          { name: "content_type", type: "string", description: "The file's media type." },
          { name: "size", type: "integer", description: "Size in bytes." },
          { name: "download", type: "file", description: "{encoding: \"url\", url, expires_at}: a short-lived link to the bytes, minted for you." },
          { name: "created_at", type: "datetime", description: "When it was exported." },
        ],
        operations: ["object.list", "object.get"],
        filters: ["document"],
      },
      {
        name: "docs.file",
        label: "File",
        one_liner: "A file someone put into the docs store with host_file, optionally attached to a document; get it for its details and a download link (its uploader, and readers of the document it is attached to).",
        ref_pattern: "docs:file:<fil_id>",
        fields: [
          { name: "name", type: "string", description: "The file name, one line (1–200 characters); set by host_file, renamable.", writable: true },
          {
            name: "document",
            type: "ref",
            ref_kind: "docs.document",
            description:
              "The document it is attached to, or null. Set it (to its ref, or its title) to attach the file to a document you can edit (its readers then see the file and may download it); null detaches it. Only the uploader may change it.",
            writable: true,
          },
          { name: "owner", type: "string", description: "Email of who uploaded it (for an agent: the person it acts for): the only one who may rename, attach, detach or delete it." },
          { name: "uploaded_via_actor", type: "string", description: "The delegated actor that uploaded it, when an agent did." },
          { name: "content_type", type: "string", description: "The file's media type, as given to host_file." },
          { name: "size", type: "integer", description: "Size in bytes." },
          { name: "sha256", type: "string", description: "SHA-256 of the bytes, hex." },
          {
            name: "download",
            type: "file",
            description:
              "{encoding: \"url\", url, expires_at}: a short-lived link to the bytes, minted for this call and for you; downloading checks again that you may still read the file (its uploader, or a reader of the document it is attached to).",
          },
          { name: "created_at", type: "datetime", description: "When it was uploaded." },
        ],
        operations: ["object.list", "object.get", "object.upsert", "object.delete"],
        filters: ["document"],
      },
    ],
    selectors: [
      { kind: "docs.document", by: "title", description: "A document by its title, e.g. {title: \"Q3 planning\"}: an exact match (any case) wins, else a unique partial match." },
      { kind: "docs.document", by: "author", description: "Documents owned by this person: an email, a name, or \"me\"; combine with title or status to narrow." },
      { kind: "docs.document", by: "status", description: "Documents in this status (draft, review, published); combine with title or author to narrow." },
      { kind: "docs.tab", by: "title", description: "A tab by its title, e.g. {title: \"Timeline\", document: \"docs:document:…\"}." },
      { kind: "docs.tab", by: "document", description: "Narrows a tab title to one document (its ref)." },
      { kind: "docs.comment_thread", by: "quote", description: "A thread by the text it quotes, e.g. {quote: \"Beta in August\"}." },
      { kind: "docs.comment_thread", by: "document", description: "A document's threads, by its ref or its title, e.g. {document: \"Q3 planning\"}; with quote, narrows the quote to it. Several matches return choices." },
    ],
    actions: [
      {
        name: "reply_comment",
        label: "Reply",
        description: "Add a reply to a comment thread. Replying to a resolved thread reopens it.",
        target_kind: "docs.comment_thread",
        payload_schema: payloadSchema(replyCommentPayload),
        example: { body: "Agreed — let's move the beta to September." },
        risk: "write",
        returns: "{ref: the new comment's ref, thread, thread_status, reopened}.",
      },
      {
        name: "resolve_thread",
        label: "Resolve",
        description: "Mark a comment thread as resolved, with an optional note. Resolving a thread that is already resolved changes nothing and says so.",
        target_kind: "docs.comment_thread",
        payload_schema: payloadSchema(resolveThreadPayload),
        example: { resolution_note: "Fixed in the Timeline tab." },
        risk: "write",
        returns: "{ref, status: \"resolved\", changed, resolved_by, resolved_at, resolution_note}.",
      },
      {
        name: "attach_file",
        label: "Attach a file to a document",
        description: "Attach a file you uploaded (host_file) to a document you can edit, named by its ref or its title; the document's readers then see the file. Only the uploader may attach it.",
        target_kind: "docs.file",
        payload_schema: payloadSchema(attachFilePayload),
        ref_paths: ["document"],
        example: { document: "Q3 planning" },
        risk: "write",
        returns: "The file: {ref, name, document, document_title, content_type, size, …}.",
      },
      {
        name: "export",
        label: "Export",
        description: "Render a document (its title and every tab, in order) to a Markdown, HTML or plain-text file and get a short-lived download link. The bytes never come back inline.",
        target_kind: "docs.document",
        payload_schema: payloadSchema(exportPayload),
        example: { format: "markdown" },
        risk: "read",
        returns: "{file_ref (a docs:export ref to get a fresh link later), name, content_type, size, encoding: \"url\", url, expires_at}.",
      },
    ],
    catalog,
    companions: [
      {
        operations: ["file.host", "object.action.attach_file"],
        why: "Saving a file next to a document is two steps: upload it (host_file), then attach it to the document (attach_file, which does nothing else).",
      },
    ],
    rules: [
      "Refs look like docs:document:<doc_id>, docs:tab:<tab_id>, docs:thread:<thr_id>, docs:comment:<cmt_id>, docs:export:<fil_id>, docs:file:<fil_id>; pass them back exactly as given.",
      "Selectors: documents by {title}, {author} (email, name or \"me\") and {status}, combinable; tabs by {title} (optionally with {document}); threads by {quote}, by {document} (its ref or its title), or both. An exact match (any case) wins over partial ones; several matches return choices (ambiguous_selector), never a guess.",
      "get_object is compact: a document lists its tabs without their text, a tab shows a preview, a thread shows its comments shortened. Pass full: true for tab bodies and whole comments.",
      "Listing tabs needs filter {document}; listing comments needs filter {thread}; listing threads takes {document} and {status}; listing files without a filter gives the files you uploaded, with {document} every file attached to that document.",
      "shared_with takes a list (replaces) or {add: [...], remove: [...]} of member emails or user ids; only the owner may change it.",
      "Files: export renders a document to a file and returns a short-lived download link ({encoding: \"url\", url, expires_at}) and a docs:export ref; get that ref later for a fresh link. Bytes never come inline.",
      "Uploads: host_file stores a file and returns {ref: docs:file:<fil_id>, file_id, encoding: \"url\", url, expires_at}. Attach it to a document with object_action(ref, action: attach_file, payload: {document: <its ref or title>}) (or upsert_object(kind: docs.file, ref, fields: {document})); upsert_object's {document: null} detaches it, {name} renames it. Readers of that document see the file and can download it while they can read the document; only the uploader can rename, attach or delete it (realm_denied for others).",
      "A document's owner and the people it is shared with can read it, edit it and its tabs, comment, reply and resolve. Only the owner can delete it or change its sharing (realm_denied). Documents you cannot see answer not_found, like missing ones.",
      "Replying to a resolved thread reopens it; resolving a resolved thread changes nothing.",
    ],
    delivery: { cursors: true, files: true, max_page_size: 100 },
  },
  { refs, kinds },
);
