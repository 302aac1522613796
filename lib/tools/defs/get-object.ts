import { z } from "zod";
import { defineTool } from "../define";
import { kind, namespace, ref, selector } from "../inputs";
import { checkSelector } from "../prepare";

export const getObject = defineTool({
  name: "get_object",
  input: z.strictObject({
    ref: ref.optional(),
    namespace: namespace.optional(),
    kind: kind.optional(),
    selector: selector.optional(),
    full: z.boolean().optional().describe("Include large fields (bodies)."),
  }),
  description: "Get one object by `ref`, or by `kind` + `selector`; compact unless `full`.",
  annotations: { readOnlyHint: true },
  target: "ref_or_namespace",
  operation: "object.get",
  prepare(p, s) {
    checkSelector(p, s.kind, s.selector);
  },
  run: async (r, s) => r.realm.adapter.get(r.ctx, { ref: await r.scoped(await r.resolveTarget(s)), full: s.full ?? false }),
});
