// The docs realm's refs: `docs:<segment>:<id>`, one segment per kind. Exports and files share the fil_ prefix of
// lib/delivery's stored files.
import { nativeRefs } from "@/lib/realms/native/refs";

export const refs = nativeRefs("docs", {
  document: { kind: "docs.document", idPrefix: "doc" },
  tab: { kind: "docs.tab", idPrefix: "tab" },
  thread: { kind: "docs.comment_thread", idPrefix: "thr" },
  comment: { kind: "docs.comment", idPrefix: "cmt" },
  export: { kind: "docs.export", idPrefix: "fil" },
  file: { kind: "docs.file", idPrefix: "fil" },
});
