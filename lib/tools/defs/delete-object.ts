import { z } from "zod";
import { defineTool } from "../define";
import { kind, namespace, ref, selector } from "../inputs";
import { checkSelector } from "../prepare";

export const deleteObject = defineTool({
  name: "delete_object",
  input: z.strictObject({ ref: ref.optional(), namespace: namespace.optional(), kind: kind.optional(), selector: selector.optional() }),
  description: "Delete one object by `ref`, or by `kind` + `selector` (several matches: ambiguous_selector, nothing deleted).",
  annotations: { readOnlyHint: false, destructiveHint: true },
  target: "ref_or_namespace",
  operation: "object.delete",
  prepare(p, s) {
    checkSelector(p, s.kind, s.selector);
  },
  run: async (r, s) => r.realm.adapter.delete(r.ctx, { ref: await r.scoped(await r.resolveTarget(s)) }),
});
