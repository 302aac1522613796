// The tool catalog (`GET /api/v1/tools`, MCP `tools/list`): the nine tools, the same for every caller, each
// defined once (./defs). It depends neither on realms nor on grants: what a caller may do is per realm and
// operation, said by provider_about and object_schema (needs_grant), and a call without a grant is answered
// consent_required with a link for the user, so an agent holding only read grants still sees the write tools.
// The catalog is sent to a model on every turn: `catalogBytes` is its size, held under CATALOG_BUDGET_BYTES.
import { canonicalJson } from "@/lib/canonical-json";
import { toolDescriptions, toolJsonSchema, toolNames, type ToolName } from "./schemas";

export type ToolEntry = { name: ToolName; description: string; inputSchema: Record<string, unknown> };

/** What the catalog may weigh, in bytes of canonical JSON (catalog-size.test.ts, `npm run bench:catalog`). */
export const CATALOG_BUDGET_BYTES = 6144;

export function toolEntry(name: ToolName): ToolEntry {
  return { name, description: toolDescriptions[name], inputSchema: toolJsonSchema(name, { lean: true }) };
}

let catalog: ToolEntry[] | undefined;

/** Every caller's tool catalog, in the order of ./defs. */
export function toolCatalog(): ToolEntry[] {
  return (catalog ??= toolNames.map(toolEntry));
}

/** Bytes of a value as a model is sent it, measured as canonical JSON (sorted keys, no whitespace). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(canonicalJson(value));

/** The catalog's size: what `npm run bench:catalog` reports and catalog-size.test.ts holds to the budget. */
export const catalogBytes = (): number => jsonBytes(toolCatalog());
