// A contract's canonical hash and JSON text, assembled from the text of each shared `$def` (made once per
// document) rather than from the whole contract, which repeats every def it reaches.
import { createHash } from "node:crypto";
import { canonicalJson } from "@/lib/canonical-json";
import type { BodyPlan, OperationContract, ParamPlan } from "./operation-types";
import type { DocSchemas } from "./schema";
import type { JsonObject } from "./spec";

/**
 * How a contract is made of shared parts: the input schema without `$defs`, and the pointers of the defs it
 * lists. Kept beside each compiled contract so its canonical hash and its JSON are assembled from each def's
 * text, made once per document.
 */
export type ContractParts = { doc: DocSchemas; schema: JsonObject; defs: string[] };
const partsOf = new WeakMap<OperationContract, ContractParts>();

/** `{"$defs":{…},` + the rest: canonical JSON sorts keys, and `$` sorts before every letter. */
function canonicalInputSchema(parts: ContractParts): string {
  const rest = canonicalJson(parts.schema);
  if (!parts.defs.length) return rest;
  const entries = parts.defs.map((p) => [parts.doc.defs.get(p)!.name, p] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{"$defs":{${entries.map(([name, p]) => `${JSON.stringify(name)}:${parts.doc.canonOf(p)}`).join(",")}},${rest.slice(1)}`;
}

/**
 * The contract as JSON text, the same as `JSON.stringify(contract)` but with each shared def's text made
 * once per document (a contract repeats every def it reaches, so this is most of the bytes).
 */
export function contractJson(contract: OperationContract): string {
  const parts = partsOf.get(contract);
  if (!parts || !parts.defs.length) return JSON.stringify(contract);
  const { input_schema: _schema, example, accepts, returns, field_notes, request_notes, ...head } = contract;
  const schema = JSON.stringify(parts.schema);
  const defs = parts.defs.map((p) => `${JSON.stringify(parts.doc.defs.get(p)!.name)}:${parts.doc.jsonOf(p)}`).join(",");
  const inputSchema = `${schema.slice(0, -1)},"$defs":{${defs}}}`;
  // The members set after the contract is made (operation.ts), in that order, as JSON.stringify writes them.
  const tail = JSON.stringify({ returns, field_notes, request_notes });
  return `${JSON.stringify(head).slice(0, -1)},"input_schema":${inputSchema},"example":${JSON.stringify(example)},"accepts":${JSON.stringify(accepts)}${tail === "{}" ? "" : `,${tail.slice(1, -1)}`}}`;
}

/** Remember how `contract` is made of shared parts, for contractJson. */
export function shareParts(contract: OperationContract, parts: ContractParts): void {
  partsOf.set(contract, parts);
}

/** = sha256(canonicalJson({ s: inputSchema, p: plans, b: body })), with each def's canonical text made once; 16 hex digits. */
export function inputHash(parts: ContractParts, plans: ParamPlan[], body: BodyPlan | null): string {
  return createHash("sha256").update(`{"b":${canonicalJson(body)},"p":${canonicalJson(plans)},"s":${canonicalInputSchema(parts)}}`).digest("hex").slice(0, 16);
}
