import { z } from "zod";
import { checkKindSchema } from "../payload";
import { defineTool } from "../define";
import { cursor, filter, kind, limit, namespace } from "../inputs";
import { listPage } from "./listing";

export const searchObjects = defineTool({
  name: "search_objects",
  input: z.strictObject({ namespace: namespace.optional(), query: z.string().min(1).max(500), kind: kind.optional(), filter, cursor: cursor.optional(), limit }),
  description: "Search a realm's objects by text, optionally of one kind; lean refs, paged like list_objects.",
  annotations: { readOnlyHint: true },
  target: "namespace",
  operation: "object.search",
  prepare(p, s) {
    if (s.kind) checkKindSchema(p.requireKind(s.kind, "object.search"), "filter", s.filter ?? {}, "filter");
  },
  run: (r, s) =>
    listPage(r, "search_objects", { kind: s.kind ?? null, filter: s.filter, cursor: s.cursor, limit: s.limit, query: s.query }, (ctx, q) =>
      r.realm.adapter.search(ctx, { ...q, kind: s.kind ?? null, query: s.query }),
    ),
});
