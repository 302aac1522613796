// The tool catalog: a tool is listed for a caller only if some realm allows one of its operation keys for
// them. Its size does not depend on the number of realms: nine tools at most, each defined once (./defs).
import type { Executor } from "@/db/client";
import { allowedOperations } from "@/lib/authz/allowed";
import type { AuthContext } from "@/lib/authz/context";
import { listRealms } from "@/lib/realms/registry";
import { toolDef, toolDescriptions, toolJsonSchema, toolNames, type ToolName } from "./schemas";

export type ToolEntry = { name: ToolName; description: string; inputSchema: Record<string, unknown> };

export function toolEntry(name: ToolName): ToolEntry {
  return { name, description: toolDescriptions[name], inputSchema: toolJsonSchema(name) };
}

export async function allowedToolNames(db: Executor, auth: AuthContext): Promise<ToolName[]> {
  const allowed = await allowedOperations(db, auth, await listRealms(db, auth.tenantId));
  const ops = new Set<string>();
  for (const set of allowed.values()) for (const op of set) ops.add(op);
  // A tool whose operation comes from its input (object_action's action) is listed when any action is allowed.
  return toolNames.filter((t) => {
    const op = toolDef(t).operation;
    return typeof op === "string" ? ops.has(op) : [...ops].some((o) => o.startsWith("object.action."));
  });
}

export async function toolCatalogFor(db: Executor, auth: AuthContext): Promise<ToolEntry[]> {
  return (await allowedToolNames(db, auth)).map(toolEntry);
}
