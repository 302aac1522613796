// The tool catalog (`GET /api/v1/tools`, MCP `tools/list`): of the nine tools (each defined once, ./defs), those
// the caller could be granted somewhere — a tool is listed when some realm's owner ceiling and (for an agent) its
// grantor's choices leave one of its operations on, whether or not the agent holds a grant yet: calling without
// one answers consent_required with a link for the user, so an agent holding only read grants still sees the
// write tools. Only a tool turned off everywhere is left out. The catalog is sent to a model on every turn:
// `catalogBytes` is the full catalog's size, held under CATALOG_BUDGET_BYTES.
import type { Executor } from "@/db/client";
import { grantableOperations } from "@/lib/authz/allowed";
import type { AuthContext } from "@/lib/authz/context";
import { canonicalJson } from "@/lib/canonical-json";
import { listRealms } from "@/lib/realms/registry";
import { toolDef, toolDescriptions, toolJsonSchema, toolNames, type ToolName } from "./schemas";

export type ToolEntry = { name: ToolName; description: string; inputSchema: Record<string, unknown> };

/** What the catalog may weigh, in bytes of canonical JSON (catalog-size.test.ts, `npm run bench:catalog`). */
export const CATALOG_BUDGET_BYTES = 6144;

export function toolEntry(name: ToolName): ToolEntry {
  return { name, description: toolDescriptions[name], inputSchema: toolJsonSchema(name, { lean: true }) };
}

let catalog: ToolEntry[] | undefined;

/** The full tool catalog, in the order of ./defs. */
export function toolCatalog(): ToolEntry[] {
  return (catalog ??= toolNames.map(toolEntry));
}

/** The tools listed for this caller: those with an operation it could be granted in some realm. */
export async function toolCatalogFor(db: Executor, auth: AuthContext): Promise<ToolEntry[]> {
  const grantable = await grantableOperations(db, auth, await listRealms(db, auth.tenantId));
  const ops = new Set<string>();
  for (const set of grantable.values()) for (const op of set) ops.add(op);
  // A tool whose operation comes from its input (object_action's action) is listed when any action is on.
  const listed = (name: ToolName) => {
    const op = toolDef(name).operation;
    return typeof op === "string" ? ops.has(op) : [...ops].some((o) => o.startsWith("object.action."));
  };
  return toolCatalog().filter((e) => listed(e.name));
}

/** Bytes of a value as a model is sent it, measured as canonical JSON (sorted keys, no whitespace). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(canonicalJson(value));

/** The catalog's size: what `npm run bench:catalog` reports and catalog-size.test.ts holds to the budget. */
export const catalogBytes = (): number => jsonBytes(toolCatalog());
