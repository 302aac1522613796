// From a checked OpenAPI document to one light card and one exact contract per operation. The card is what
// capability search and people read (id, method + path, group, summary, risk, input field names, a digest);
// the contract is what execution needs (a self-contained JSON Schema of the payload, and where each payload
// field goes in the request). Shared component schemas become `$defs`, so cyclic refs stay refs.
//
// Cost: each `$ref` target is converted once per document (and its canonical and JSON text made once), then
// every operation's contract lists the `$defs` it reaches — so 1,000 operations sharing a 200-schema chain
// convert 200 schemas, not 200,000. All the work counts against a CompileBudget when one is given.
//
// The parts: operation-types.ts (what compiling gives), schema.ts (schema shaping and `$defs`),
// request-plan.ts (parameters and bodies), naming.ts (action names and risk), operation.ts (one operation's card
// and contract), contract-json.ts (a contract's hash and JSON text); this file builds the catalog of them.
import type { CompileBudget } from "./budget";
import { compileOperation } from "./operation";
import type { CompiledOperation, CompiledSpec, HttpMethod } from "./operation-types";
import { paramsOf } from "./request-plan";
import { DocSchemas } from "./schema";
import { HTTP_METHODS, isObject, type JsonObject, type LoadedSpec, type SpecIssue, specError } from "./spec";
import { firstSentence, MAX_PURPOSE, shortText } from "./text";

export type { BodyEncoding, BodyPlan, CompiledOperation, CompiledSpec, HttpMethod, OperationCard, OperationContract, ParamLocation, ParamPlan } from "./operation-types";
export { contractJson } from "./contract-json";
export { fallbackActionName, riskOfMethod } from "./naming";
export { shortText } from "./text";

const MAX_WARNINGS = 200;

function serverUrls(doc: JsonObject): string[] {
  if (!Array.isArray(doc.servers)) return [];
  const out: string[] = [];
  for (const s of doc.servers) {
    if (!isObject(s) || typeof s.url !== "string") continue;
    // Server variables take their defaults.
    const vars = isObject(s.variables) ? s.variables : {};
    out.push(s.url.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = vars[name];
      return isObject(v) && typeof v.default === "string" ? v.default : "";
    }));
  }
  return out;
}

/** Capability search's words for one card (optional fields): the operation's whole description, all paragraphs. */
function withSearchDescription(compiled: CompiledOperation, op: JsonObject): CompiledOperation {
  const whole = typeof op.description === "string" ? shortText(op.description.replace(/\n\s*\n/g, "\n"), 1500) : "";
  if (whole && whole !== compiled.card.description) compiled.card.search_description = whole;
  return compiled;
}

/**
 * Cards and contracts for every operation. Fatal problems throw `invalid_input`; quirks become warnings; an
 * operation that cannot be called safely is dropped, with a warning. With a budget, the work counts against it.
 */
export function compileSpec(spec: LoadedSpec, budget?: CompileBudget): CompiledSpec {
  const doc = spec.doc;
  const issues: SpecIssue[] = [];
  const warnings: SpecIssue[] = [];
  const dropped: { at: string; reason: string }[] = [];
  const warnAt = (path: string, message: string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push({ path, message });
  };
  const schemas = new DocSchemas(spec, warnAt, budget);
  const info = isObject(doc.info) ? doc.info : {};
  const tags = new Map<string, string>();
  if (Array.isArray(doc.tags)) for (const t of doc.tags) if (isObject(t) && typeof t.name === "string") tags.set(t.name, shortText(t.description, 200));

  const operations: CompiledOperation[] = [];
  const usedActions = new Set<string>();
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = (isObject(rawItem) && typeof rawItem.$ref === "string" ? spec.resolve(rawItem.$ref) : rawItem) as JsonObject;
    const shared = paramsOf(item.parameters, spec.resolve, `paths.${path}.parameters`, issues);
    for (const lower of HTTP_METHODS) {
      const op = item[lower];
      if (op === undefined) continue;
      const at = `paths.${path}.${lower}`;
      if (!isObject(op)) {
        issues.push({ path: at, message: "must be an Operation object" });
        continue;
      }
      const method = lower.toUpperCase() as HttpMethod;
      const warn = (message: string) => warnAt(at, message);
      const drop = (reason: string) => {
        dropped.push({ at, reason });
        warn(`${reason}; the operation is not imported`);
      };
      const compiled = compileOperation({ schemas, path, method, op, shared, at, issues, warn, drop, usedActions, tags });
      if (compiled) operations.push(withSearchDescription(compiled, op));
    }
  }
  if (issues.length) throw specError(`The document cannot be imported: ${issues[0]!.path}: ${issues[0]!.message}.`, issues);
  return {
    title: typeof info.title === "string" && info.title.trim() ? info.title.trim().slice(0, 80) : "Imported service",
    // The purpose: the first sentence of the document's prose, never a heading ("## Welcome").
    description: firstSentence(info.description, MAX_PURPOSE),
    servers: serverUrls(doc),
    tags,
    operations,
    warnings,
    dropped,
  };
}
