// The tool catalog: a tool is listed for a caller only if some realm allows one of its operation keys for
// them. Its size does not depend on the number of realms: nine tools at most, each defined once.
import type { Executor } from "@/db/client";
import { allowedOperations } from "@/lib/authz/allowed";
import type { AuthContext } from "@/lib/authz/context";
import { listRealms } from "@/lib/realms/registry";
import { toolDescriptions, toolJsonSchema, toolNames, toolOperation, type ToolName } from "./schemas";

export type ToolEntry = { name: ToolName; description: string; inputSchema: Record<string, unknown> };

export function toolEntry(name: ToolName): ToolEntry {
  return { name, description: toolDescriptions[name], inputSchema: toolJsonSchema(name) };
}

export async function allowedToolNames(db: Executor, auth: AuthContext): Promise<ToolName[]> {
  const allowed = await allowedOperations(db, auth, await listRealms(db, auth.tenantId));
  const ops = new Set<string>();
  for (const set of allowed.values()) for (const op of set) ops.add(op);
  return toolNames.filter((t) =>
    t === "object_action" ? [...ops].some((o) => o.startsWith("object.action.")) : ops.has(toolOperation[t as Exclude<ToolName, "object_action">]),
  );
}

export async function toolCatalogFor(db: Executor, auth: AuthContext): Promise<ToolEntry[]> {
  return (await allowedToolNames(db, auth)).map(toolEntry);
}
