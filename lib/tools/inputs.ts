// The pieces tool inputs are built from: strict, bounded, each described once for a model. Descriptions are
// kept to what a correct first call needs; the rest (paging, retries, selectors, files) is in provider_about's
// rules (TOOL_RULES in ./describe.ts), so the catalog sent on every turn stays small (catalog-size.test.ts).
import { z } from "zod";

/**
 * Values an agent copies from Realmgate's own answers (namespaces, refs, kinds, cursors): their length bounds
 * still hold, but the tool catalog leaves them out (an issued value always fits); `object_schema(namespace,
 * operation)` shows a tool's input with every bound.
 */
const issuedSchemas = new WeakSet<object>();
const issue = <T extends z.ZodType>(s: T): T => (issuedSchemas.add(s), s);
export const isIssued = (s: object): boolean => issuedSchemas.has(s);

export const namespace = issue(z.string().min(2).max(31));
export const ref = issue(z.string().min(3).max(512).describe("A ref exactly as a tool returned it."));
export const kind = issue(z.string().min(3).max(80));
export const cursor = issue(z.string().min(1).max(2000));
export const limit = z.number().int().min(1).max(100).optional();
const filterValue = z.union([z.string().max(500), z.number(), z.boolean(), z.array(z.string().max(500)).max(50)]);
export const filter = z.record(z.string().max(64), filterValue).optional().describe("Filters the kind declares.");
export const selector = z
  .record(z.string().max(64), z.string().min(1).max(500))
  .describe("Instead of ref: name the object as a person would, e.g. `{\"title\": \"Q3 plan\"}` (with its kind).");
/**
 * After `approval_required`: the approval that lets this exact call run once (explained once, in provider_about's
 * rules). Its shape is checked by the dispatcher (APPROVAL_ID), not here: the catalog stays within its budget.
 */
export const approvalId = z.string().optional();
export const APPROVAL_ID = /^apr_[0-9a-z]{1,40}$/;
export const idempotencyKey = z.string().min(8).max(128).regex(/^[\x21-\x7e]+$/).optional().describe("Makes a retry safe: replays the first result.");
export const payload = z.record(z.string(), z.unknown()).optional();
