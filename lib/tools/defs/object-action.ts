import { z } from "zod";
import { AppError } from "@/lib/errors";
import { actionOperationKey } from "@/lib/realms/contract";
import { defineTool } from "../define";
import { approvalId, idempotencyKey, kind, namespace, payload, ref, selector } from "../inputs";
import { validatePayload } from "../payload";
import { checkSelector, valuesAt } from "../prepare";

export const objectAction = defineTool({
  name: "object_action",
  input: z.strictObject({
    action: z.string().min(1).max(200),
    ref: ref.optional(),
    namespace: namespace.optional(),
    kind: kind.optional(),
    selector: selector.optional(),
    payload,
    idempotency_key: idempotencyKey,
    approval_id: approvalId,
  }),
  description: "Run a realm's action by name (e.g. `reply_comment`) on a ref (or selector), or the namespace; payload must match its contract.",
  target: "ref_or_namespace",
  needs: "a ref, or a kind and a selector (an action on no object: the namespace)",
  operation: (s) => actionOperationKey(s.action),
  idempotent: true,
  /** The action and its payload, validated against the contract before gate one. */
  prepare(p, s) {
    const m = p.manifest;
    const action = m.actions.find((x) => x.name === s.action)!;
    const checked = validatePayload(action.payload_schema, s.payload ?? {}, `${m.namespace} ${action.name}`);
    if (action.target_kind) {
      if (!s.ref && !(s.selector && (s.kind ?? action.target_kind))) throw new AppError("invalid_input", `${action.name} runs on a ${action.target_kind}: give its ref, or a selector.`, { details: { target_kind: action.target_kind } });
      if (p.targetKind && p.targetKind !== action.target_kind) {
        throw new AppError("invalid_input", `${action.name} runs on a ${action.target_kind}; ${p.target.ref} is a ${p.targetKind}.`, { details: { ref: p.target.ref, target_kind: action.target_kind } });
      }
      checkSelector(p, s.kind ?? action.target_kind, s.selector);
    } else if (s.ref || s.selector) {
      throw new AppError("invalid_input", `${action.name} runs on the namespace, not on an object: omit ref and selector.`, { details: { action: action.name } });
    }
    // A payload path may also take a name (a column title): names are resolved, and gated, by the adapter.
    for (const path of action.ref_paths ?? []) for (const hit of valuesAt(checked, path)) if (p.looksLikeRef(hit.value)) p.name(hit.value, `payload.${hit.where}`);
    return { action, payload: checked };
  },
  async run(r, s) {
    const { action, payload } = r.prepared;
    const ref = action.target_kind ? await r.scoped(await r.resolveTarget({ ref: s.ref, kind: s.kind ?? action.target_kind, selector: s.selector })) : null;
    return r.realm.adapter.action(r.ctx, { action, ref, payload });
  },
});
