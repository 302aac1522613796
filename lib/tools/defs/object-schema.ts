import { z } from "zod";
import { AppError } from "@/lib/errors";
import { searchCapabilities } from "@/lib/catalog/search";
import { operationKeysOf, type OperationKey, type Realm } from "@/lib/realms/contract";
import { ASK_EACH_TIME_HINT, markOf, NEEDS_GRANT_HINT, schemaKind, schemaNode, schemaOperation, schemaQuery, schemaRoot } from "../describe";
import { defineTool } from "../define";
import { kind, namespace } from "../inputs";

/** Levenshtein distance (names are short: at most 200 characters). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** An action the realm does not have: not_found, with the nearest actions the caller could be granted. */
function unknownAction(realm: Realm, operation: string, grantable: ReadonlySet<OperationKey>) {
  const asked = operation.slice("object.action.".length);
  const open = realm.manifest.actions.filter((a) => grantable.has(`object.action.${a.name}` as OperationKey));
  // Names a typo away first, then what the capability search finds for its words.
  const close = open
    .map((a) => ({ a, d: editDistance(a.name.toLowerCase(), asked.toLowerCase()) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(asked.length / 4)))
    .sort((x, y) => x.d - y.d)
    .map((x) => `object.action.${x.a.name}`);
  const found = searchCapabilities([realm], asked.replace(/[._/-]+/g, " "), { limit: 20 }).map((mt) => mt.operation).filter((op) => op.startsWith("object.action."));
  const labels = new Map(open.map((a) => [`object.action.${a.name}`, a.label]));
  const near = [...new Set([...close, ...found])]
    .filter((op) => labels.has(op))
    .slice(0, 5)
    .map((op) => ({ operation: op, label: labels.get(op)! }));
  return new AppError("not_found", `No operation ${operation.slice(0, 120)} in ${realm.manifest.namespace}.${near.length ? ` Did you mean ${near[0]!.operation}?` : ""}`, {
    details: { namespace: realm.manifest.namespace, operation: operation.slice(0, 250), near_matches: near },
  });
}

export const objectSchema = defineTool({
  name: "object_schema",
  input: z.strictObject({
    namespace: namespace.optional(),
    schema_path: z.string().min(1).max(300).optional().describe("Browse a catalog node, e.g. `/discussion`."),
    query: z.string().min(1).max(500).optional().describe("Search by intent, e.g. `reply to a comment`."),
    search_mode: z.enum(["lexical", "semantic", "hybrid", "auto"]).optional(),
    kind: kind.optional(),
    operation: z.string().min(1).max(250).optional().describe("Its contract, e.g. `object.action.reply_comment`."),
    limit: z.number().int().min(1).max(50).optional(),
    materialize: z.boolean().optional(),
  }),
  description: "Find what to call and read its contract before acting: at most one of query, schema_path, kind or operation (+materialize: as a tool).",
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
    if (s.materialize !== undefined && !s.operation) {
      throw new AppError("invalid_input", "materialize needs operation: the action to add as an exact tool, e.g. object.action.reply_comment.", { details: { field: "materialize" } });
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
      if (s.materialize !== undefined) {
        if (s.operation.startsWith("object.action.") && !m.actions.some((a) => `object.action.${a.name}` === s.operation)) throw unknownAction(r.realm, s.operation, grantable);
        const answer = (await r.materialize(s.operation, s.materialize)) as Record<string, unknown>;
        // Whether calling it will run now, ask for consent first, or ask a person each time: said before it is called.
        const mark = markOf(s.operation as OperationKey, allowed, asking);
        if (!answer.materialized || !Object.keys(mark).length) return answer;
        return { ...answer, materialized: { ...(answer.materialized as object), ...mark }, ...("needs_grant" in mark ? { note: NEEDS_GRANT_HINT } : { ask_note: ASK_EACH_TIME_HINT }) };
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
    if (s.schema_path || s.kind || s.operation || s.materialize !== undefined) throw new AppError("invalid_input", "schema_path, kind, operation and materialize need a namespace.");
    return schemaRoot(realms, allowed, grantable);
  },
});
