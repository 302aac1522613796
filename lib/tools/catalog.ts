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
import { riskOf, type OperationKey, type Realm } from "@/lib/realms/contract";
import { listRealms } from "@/lib/realms/registry";
import type { ToolAnnotations } from "./define";
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
  return (await toolsFor(db, auth)).map(({ entry }) => entry);
}

/**
 * The caller's tools with MCP hints that are true of what it could reach: a tool's own hints (get_object only
 * reads, delete_object destroys, and deleting twice changes nothing more), and for object_action those of the
 * actions the caller could be granted — read-only when every one only reads, destructive when one is. A tool is
 * open-world when a realm it reaches acts on an outside service (connected, imported, remote).
 */
export async function toolsFor(db: Executor, auth: AuthContext): Promise<{ entry: ToolEntry; annotations: ToolAnnotations }[]> {
  const realms = await listRealms(db, auth.tenantId);
  return toolsFrom(realms, await grantableOperations(db, auth, realms));
}

/** toolsFor, from the tenant's realms and what the caller could be granted in each. */
export function toolsFrom(realms: Realm[], grantable: Map<string, ReadonlySet<OperationKey>>): { entry: ToolEntry; annotations: ToolAnnotations }[] {
  const byNs = new Map(realms.map((r) => [r.manifest.namespace, r]));
  const reach = (name: ToolName) => {
    const op = toolDef(name).operation;
    const out: { realm: Realm; op: OperationKey }[] = [];
    for (const [ns, set] of grantable) {
      const realm = byNs.get(ns);
      if (!realm) continue;
      if (typeof op === "string") {
        if (set.has(op)) out.push({ realm, op });
      } else for (const o of set) if (o.startsWith("object.action.")) out.push({ realm, op: o });
    }
    return out;
  };
  const out: { entry: ToolEntry; annotations: ToolAnnotations }[] = [];
  for (const entry of toolCatalog()) {
    const reached = reach(entry.name);
    if (!reached.length) continue;
    const own = toolDef(entry.name).annotations ?? {};
    const openWorld = reached.some(({ realm }) => realm.manifest.realm_type !== "native");
    if (typeof toolDef(entry.name).operation === "string") {
      out.push({ entry, annotations: { ...own, openWorldHint: openWorld } });
      continue;
    }
    const risks = new Set(reached.map(({ realm, op }) => riskOf(realm.manifest, op)));
    const readOnly = risks.size === 1 && risks.has("read");
    out.push({ entry, annotations: readOnly ? { readOnlyHint: true, openWorldHint: openWorld } : { readOnlyHint: false, destructiveHint: risks.has("destructive"), idempotentHint: false, openWorldHint: openWorld } });
  }
  return out;
}

/** Bytes of a value as a model is sent it, measured as canonical JSON (sorted keys, no whitespace). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(canonicalJson(value));

/** The catalog's size: what `npm run bench:catalog` reports and catalog-size.test.ts holds to the budget. */
export const catalogBytes = (): number => jsonBytes(toolCatalog());
