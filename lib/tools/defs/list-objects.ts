import { z } from "zod";
import { checkKindSchema } from "../payload";
import { defineTool } from "../define";
import { cursor, filter, kind, limit, namespace } from "../inputs";
import { listPage } from "./listing";

export const listObjects = defineTool({
  name: "list_objects",
  input: z.strictObject({ namespace: namespace.optional(), kind, filter, cursor: cursor.optional(), limit }),
  description: "List a kind's objects (lean refs + labels); for the next page, pass `next_cursor` back as `cursor`.",
  annotations: { readOnlyHint: true },
  target: "namespace",
  operation: "object.list",
  prepare(p, s) {
    checkKindSchema(p.requireKind(s.kind, "object.list"), "filter", s.filter ?? {}, "filter");
  },
  run: (r, s) => listPage(r, "list_objects", { kind: s.kind, filter: s.filter, cursor: s.cursor, limit: s.limit }, (ctx, q) => r.realm.adapter.list(ctx, { ...q, kind: s.kind })),
});
