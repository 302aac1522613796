// The MCP server for one authenticated caller, built per request (the transport is stateless): tools/list is
// the tool catalog (the nine tools, less any the owner and the grantor turned off everywhere), tools/call is the
// same dispatcher REST uses. Every result is its JSON once, as one text content: no tool declares an output schema,
// so structuredContent would only send the same bytes twice. Denials and failures become tool errors whose text is
// exactly the REST error body, so an agent can relay the fix.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AuthContext } from "@/lib/authz/context";
import { AppError, toErrorBody } from "@/lib/errors";
import { logServerError } from "@/lib/server-log";
import { getDb } from "@/db/client";
import type { ToolEntry } from "@/lib/tools/catalog";
import type { ToolAnnotations } from "@/lib/tools/define";
import { dispatch } from "@/lib/tools/dispatch";
import { catalogOf } from "@/lib/tools/working-set";
import type { ExactToolEntry } from "@/lib/working-set/exact-tool";
import pkg from "@/package.json";
import type { Risk } from "@/lib/realms/contract";
import { MCP_REQUEST_TIMEOUT_MS, scopeForRisk } from "./config";
import { scopeRefusal } from "./scope";

const INSTRUCTIONS =
  "Realmgate exposes your user's realms (docs, boards, memory, connected services) through nine generic tools. " +
  "Start with provider_about; find an operation with object_schema (query), and read its exact contract before acting. " +
  "Refs are opaque: pass them back as given. Every tool you could be granted is listed. Each result is one JSON document in the text content (there is no structuredContent). " +
  "When a call is refused (isError), its error.details says which wall stopped it, who can open it and where (url or connection_hub_url): show that to your user instead of retrying.";

/** A tool as MCP lists it, with hints for clients that auto-approve reads (true of the caller's realms: toolsFor). */
export function mcpTool(t: ToolEntry, annotations?: ToolAnnotations): Tool {
  return { name: t.name, description: t.description, inputSchema: t.inputSchema as Tool["inputSchema"], ...(annotations ? { annotations } : {}) };
}

/** An exact tool of the caller's working set, as MCP lists it (after the generic tools). */
export const mcpExactTool = (t: ExactToolEntry): Tool => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema as Tool["inputSchema"], annotations: t.annotations });

/** tools/list: the generic tools the caller could be granted, then its working set, in a stable order. */
export async function listTools(auth: AuthContext): Promise<Tool[]> {
  const c = await catalogOf(await getDb(), auth, new Date());
  return [...c.generic.map((t) => mcpTool(t.entry, t.annotations)), ...c.exact.map((t) => mcpExactTool(t.entry))];
}

/** Whether a tools/call may change the caller's tool list (object_schema with materialize): answered as an SSE stream. */
export const changesToolList = (name: unknown, args: unknown): boolean =>
  name === "object_schema" && typeof args === "object" && args !== null && (args as Record<string, unknown>).materialize !== undefined;

export function toolResult(result: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(result) }] };
}

export function toolError(err: unknown, requestId: string): CallToolResult {
  const { status, body } = toErrorBody(err, requestId);
  if (status >= 500) logServerError(err, requestId, "MCP tools/call");
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AppError("service_unavailable", `The call did not finish within ${ms / 1000} s. It may still complete; retry with the same idempotency_key to be safe.`, {
            details: { timeout_ms: ms },
          }),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function callTool(
  auth: AuthContext,
  name: string,
  args: Record<string, unknown>,
  timeoutMs = MCP_REQUEST_TIMEOUT_MS,
  onListChanged?: () => Promise<void>,
  scopes: string[] | null = null,
): Promise<CallToolResult> {
  try {
    // An exact tool needs its action's scope, checked when it runs (a batch may have materialized it just before).
    const exactToolCheck = scopes
      ? async (risk: Risk) => {
          const needed = scopeForRisk(risk);
          if (!scopes.includes(needed)) throw await scopeRefusal(await getDb(), auth, scopes, needed, name);
        }
      : undefined;
    const result = await withTimeout(dispatch(auth, name, args, { exactToolCheck }), timeoutMs);
    // A materialize that changed the working set: the notification goes out before the result, so the client re-lists.
    if (onListChanged && changesToolList(name, args) && (result as { list_changed?: unknown }).list_changed === true) await onListChanged();
    return toolResult(result);
  } catch (err) {
    // An unknown tool is a protocol error (the caller misread tools/list, or its exact tool lapsed), not a tool result.
    if (err instanceof AppError && err.code === "not_found" && err.details.unknown_tool === true) throw new McpError(ErrorCode.InvalidParams, err.message);
    return toolError(err, auth.requestId);
  }
}

/** `scopes`: an OAuth connection's approved scopes (null: an actor token, bounded by its grants alone). */
export function mcpServerFor(auth: AuthContext, scopes: string[] | null = null): Server {
  const server = new Server({ name: "realmgate", title: "Realmgate", version: pkg.version }, { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTools(auth) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) =>
    callTool(auth, req.params.name, req.params.arguments ?? {}, MCP_REQUEST_TIMEOUT_MS, () => extra.sendNotification({ method: "notifications/tools/list_changed" }), scopes),
  );
  return server;
}
