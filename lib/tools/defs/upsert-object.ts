import { z } from "zod";
import { AppError } from "@/lib/errors";
import { defineTool } from "../define";
import { approvalId, idempotencyKey, kind, namespace, ref } from "../inputs";
import { checkKindSchema } from "../payload";
import { checkFields } from "../prepare";

export const upsertObject = defineTool({
  name: "upsert_object",
  input: z.strictObject({
    namespace: namespace.optional(),
    kind,
    ref: ref.optional(),
    fields: z.record(z.string().max(64), z.unknown()),
    idempotency_key: idempotencyKey,
    approval_id: approvalId,
  }),
  description: "Create an object of a kind (no ref) or patch one (ref); the kind names its realm. `fields`: a list field takes a list or `{add, remove}`.",
  // An update overwrites what it changes (destructive in MCP's sense); a create without idempotency_key makes another.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  target: "namespace",
  operation: "object.upsert",
  idempotent: true,
  prepare(p, s) {
    const kind = p.requireKind(s.kind, "object.upsert");
    if (p.targetKind && p.targetKind !== s.kind) throw new AppError("invalid_input", `${p.target.ref} is a ${p.targetKind}, not a ${s.kind}.`, { details: { ref: p.target.ref, kind: s.kind } });
    checkFields(kind, s.fields);
    checkKindSchema(kind, s.ref ? "patch" : "create", s.fields, "fields");
    // Ref fields may also take a name (a title): names are resolved, and gated, by the adapter (ctx.gateRef).
    for (const f of kind.fields) {
      const v = s.fields[f.name];
      if (f.type === "ref" && p.looksLikeRef(v)) p.name(v, `fields.${f.name}`, f.ref_kind);
      if (f.type === "ref[]" && Array.isArray(v)) v.forEach((x, i) => p.looksLikeRef(x) && p.name(x, `fields.${f.name}[${i}]`, f.ref_kind));
    }
  },
  async run(r, s) {
    if (s.ref) await r.scoped(s.ref);
    return r.realm.adapter.upsert(r.ctx, { kind: s.kind, ref: s.ref ?? null, fields: s.fields });
  },
});
