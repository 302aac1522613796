import { z } from "zod";
import { AppError } from "@/lib/errors";
import { operationKeysOf, type OperationKey } from "@/lib/realms/contract";
import { schemaKind, schemaNode, schemaOperation, schemaQuery, schemaRoot } from "../describe";
import { defineTool } from "../define";
import { kind, namespace } from "../inputs";

export const objectSchema = defineTool({
  name: "object_schema",
  input: z.strictObject({
    namespace: namespace.optional(),
    schema_path: z.string().min(1).max(300).optional().describe("Browse a catalog node, e.g. `/discussion`."),
    query: z.string().min(1).max(500).optional().describe("Search by intent, e.g. `reply to a comment`."),
    search_mode: z.enum(["lexical", "semantic", "hybrid", "auto"]).optional(),
    kind: kind.optional(),
    operation: z.string().min(1).max(250).optional().describe("Its exact contract, e.g. `object.action.reply_comment`."),
    limit: z.number().int().min(1).max(50).optional(),
  }),
  description: "Find what to call, and read its contract before acting. Give at most one of query, schema_path, kind (its fields) or operation.",
  annotations: { readOnlyHint: true },
  target: "namespace_or_all",
  operation: "object.schema",
  async run(r, s) {
    const m = r.manifest;
    const given = (["schema_path", "query", "kind", "operation"] as const).filter((k) => s[k] !== undefined);
    if (given.length > 1) {
      throw new AppError("invalid_input", `Give at most one of schema_path, query, kind or operation (this call gave ${given.join(" and ")}); call object_schema once for each.`, {
        details: { given },
      });
    }
    const allowed = await r.allowedHere();
    const grantable = await r.grantableHere();
    const asking = await r.askingHere();
    if (s.operation) {
      // An operation turned off for this caller (owner ceiling, or its user's choice) is not described.
      if ((operationKeysOf(m) as string[]).includes(s.operation) && !grantable.has(s.operation as OperationKey)) {
        throw new AppError("operation_disabled", `${s.operation} is turned off in ${m.namespace} for agents acting for your user.`, {
          details: { namespace: m.namespace, operation: s.operation, who_can_open: "the workspace owner, or the person the agent acts for", retry_hint: "do_not_retry" },
        });
      }
      return schemaOperation(m, s.operation, r.toolOf(s.operation));
    }
    if (s.query) {
      return await schemaQuery([r.realm], new Map([[m.namespace, allowed]]), s.query, {
        limit: s.limit,
        asked: s.search_mode,
        db: r.ctx.tx,
        grantable: new Map([[m.namespace, grantable]]),
        asking: new Map([[m.namespace, asking]]),
      });
    }
    if (s.kind) return schemaKind(m, s.kind, allowed, grantable, asking);
    return schemaNode(m, s.schema_path ?? "/", allowed, grantable, asking);
  },
  async runAll({ tx, realms, allowed, grantable, asking }, s) {
    if (s.query) return await schemaQuery(realms, allowed, s.query, { limit: s.limit, asked: s.search_mode, db: tx, grantable, asking });
    if (s.schema_path || s.kind || s.operation) throw new AppError("invalid_input", "schema_path, kind and operation need a namespace.");
    return schemaRoot(realms, allowed, grantable);
  },
});
