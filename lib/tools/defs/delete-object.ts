import { z } from "zod";
import { defineTool } from "../define";
import { approvalId, kind, namespace, ref, selector } from "../inputs";
import { checkSelector } from "../prepare";

export const deleteObject = defineTool({
  name: "delete_object",
  input: z.strictObject({ ref: ref.optional(), namespace: namespace.optional(), kind: kind.optional(), selector: selector.optional(), approval_id: approvalId }),
  description: "Delete one object by `ref`, or by `kind` + `selector` (several matches: ambiguous_selector, nothing deleted).",
  // Deleting what is already gone changes nothing more.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  target: "ref_or_namespace",
  operation: "object.delete",
  prepare(p, s) {
    checkSelector(p, s.kind, s.selector);
  },
  async run(r, s) {
    const ref = await r.scoped(await r.resolveTarget(s));
    // Named by a selector, the answer says which object it was (read before it is gone).
    const named = s.ref ? null : ((await r.realm.adapter.describeRefs(r.ctx, [ref]))[ref] ?? null);
    const out = await r.realm.adapter.delete(r.ctx, { ref });
    return named ? { ...out, label: named.label, ...(named.summary ? { summary: named.summary } : {}) } : out;
  },
});
