// One operation of the document → its card (what capability search and people read: action name, method and
// path, group, summary, risk, input fields, a digest and a hash) and its exact contract (the payload's JSON
// Schema with the `$defs` it reaches, where each field goes in the request, the media types it answers with).
import { inputHash, shareParts, type ContractParts } from "./contract-json";
import { actionNameOf, riskOfMethod } from "./naming";
import { headerNotes } from "./notes";
import type { CompiledOperation, HttpMethod, OperationCard, OperationContract } from "./operation-types";
import { planRequest, type OperationSite } from "./request-plan";
import { responseShape } from "./response-shape";
import { SchemaCompiler, typeWord, type DocSchemas } from "./schema";
import { isObject, type JsonObject } from "./spec";
import { shortText } from "./text";

export type OpInput = OperationSite & { schemas: DocSchemas; method: HttpMethod; usedActions: Set<string>; tags: Map<string, string> };

/** The card and contract of one operation, or null when it is dropped or cannot be named (an issue). */
export function compileOperation({ schemas, path, method, op, shared, at, issues, warn, drop, usedActions, tags: tagDocs }: OpInput): CompiledOperation | null {
  const spec = schemas.spec;
  const deps = new Set<string>();
  const compiler = new SchemaCompiler(schemas, warn, deps);
  const request = planRequest({ compiler, resolve: spec.resolve, path, op, shared, at, issues, warn, drop });
  if (!request) return null;
  const { properties, required, plans, example, body, fieldNotes, paramTexts } = request;

  const schemaParts: JsonObject = { type: "object", additionalProperties: false, properties, ...(required.length ? { required } : {}) };
  // Every def this operation reaches, converted once per document and shared by every contract that lists it.
  schemas.drain();
  const defPointers = schemas.closure(deps);
  const inputSchema: JsonObject = { ...schemaParts };
  if (defPointers.length) inputSchema.$defs = Object.fromEntries(defPointers.map((p) => [schemas.defs.get(p)!.name, schemas.defs.get(p)!.schema]));

  const rawId = typeof op.operationId === "string" ? op.operationId : null;
  const { action, usable } = actionNameOf(rawId, method, path, usedActions, warn);
  if (!usable) {
    issues.push({ path: at, message: `the operation cannot be named (${JSON.stringify(action.slice(0, 80))})` });
    return null;
  }

  const vendor = isObject(op["x-github"]) ? op["x-github"] : {};
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
  const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === "string") : [];
  const summary = shortText(op.summary, 160) || shortText(op.description, 160) || `${method} ${path}`;
  const fields = Object.keys(properties);
  const digest = fields
    .map((f) => `${f}${required.includes(f) ? "*" : ""}: ${typeWord(properties[f], compiler)}`)
    .join(", ");
  const contract: OperationContract = {
    method,
    path,
    params: plans,
    body,
    input_schema: inputSchema,
    example,
    accepts: successMedia(op.responses, spec.resolve),
  };
  // What comes back, and what the document's prose gets wrong about a call through Realmgate: not part of the
  // input hash (they change no call's meaning).
  const returns = responseShape(op.responses, spec.resolve);
  if (returns) contract.returns = returns;
  if (Object.keys(fieldNotes).length) contract.field_notes = fieldNotes;
  const requestNotes = headerNotes(typeof op.description === "string" ? op.description : undefined, ...paramTexts);
  if (requestNotes.length) contract.request_notes = requestNotes;
  const parts: ContractParts = { doc: schemas, schema: schemaParts, defs: defPointers };
  shareParts(contract, parts);
  const card: OperationCard = {
    action,
    operation_id: rawId,
    method,
    path,
    tag: tags[0] ?? null,
    category: str(vendor.category) ?? str(op["x-category"]),
    subcategory: str(vendor.subcategory) ?? str(op["x-subcategory"]),
    group_description: (tags[0] && tagDocs.get(tags[0])) || "",
    summary,
    description: shortText(op.description),
    risk: riskOfMethod(method),
    deprecated: op.deprecated === true,
    input_fields: fields,
    required_fields: required,
    input_digest: digest.length > 400 ? `${digest.slice(0, 399)}…` : digest,
    input_hash: inputHash(parts, plans, body),
    scopes: scopesOf(op.security ?? spec.doc.security),
    auth_declared: declaresAuth(op.security ?? spec.doc.security, spec.doc),
  };
  return { card, contract };
}

/**
 * Whether the service expects a credential for this operation: a security requirement that asks for something
 * (`[]` and `[{}]`, anonymous allowed, do not), or — where the document states no requirement at all — security
 * schemes it defines (many documents, TMDB's among them, define their key and never require it).
 */
function declaresAuth(security: unknown, doc: JsonObject): boolean {
  if (security === undefined) {
    const components = isObject(doc.components) ? doc.components : {};
    return isObject(components.securitySchemes) && Object.keys(components.securitySchemes).length > 0;
  }
  return Array.isArray(security) && security.length > 0 && security.every((req) => isObject(req) && Object.keys(req).length > 0);
}

function scopesOf(security: unknown): string[] {
  if (!Array.isArray(security)) return [];
  const out = new Set<string>();
  for (const req of security) if (isObject(req)) for (const v of Object.values(req)) if (Array.isArray(v)) for (const s of v) if (typeof s === "string") out.add(s);
  return [...out];
}

function successMedia(responses: unknown, resolve: (r: string) => unknown): string[] {
  if (!isObject(responses)) return [];
  const out = new Set<string>();
  for (const [code, r] of Object.entries(responses)) {
    if (!/^2/.test(code)) continue;
    const resp = isObject(r) && typeof r.$ref === "string" ? resolve(r.$ref) : r;
    if (isObject(resp) && isObject(resp.content)) for (const t of Object.keys(resp.content)) out.add(t);
  }
  return [...out].slice(0, 8);
}
