// One MCP HTTP request, checked from scratch every time (no sessions): the token (never from the query
// string), the caller's live state, the per-actor rate limit, the body bound, the OAuth scope of each tool
// call; then a fresh MCP server and stateless Streamable HTTP transport answer it.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { getDb, type Db, type Executor } from "@/db/client";
import { bearerToken, contextForBearer } from "@/lib/authz/authenticate";
import { ACTOR_TOKEN_PREFIX } from "@/lib/authz/actors";
import { API_KEY_PREFIX } from "@/lib/authz/api-keys";
import type { AuthContext } from "@/lib/authz/context";
import { AppError, isAppError } from "@/lib/errors";
import { readBodyBytes } from "@/lib/http/body";
import { parseJsonText } from "@/lib/input/json";
import { assertServedHost, clientRequestIdOf, isServedOrigin } from "@/lib/http/forwarded";
import { assertCleanText } from "@/lib/input/text";
import { actionOperationKey, baseOperationRisk, type BaseOperationKey } from "@/lib/realms/contract";
import { findRealm } from "@/lib/realms/registry";
import { resolveOperation } from "@/lib/tools/operation";
import { MCP_MAX_BODY_BYTES, MCP_REQUEST_TIMEOUT_MS, protectedResourceMetadataUrl, rateLimits, scopeForRisk, scopesSupported } from "./config";
import { actorForAccessToken } from "./oauth";
import { callerBucket, enforceRateLimit } from "@/lib/limits/rate-limit";
import { quoted, scopeRefusal } from "./scope";
import { changesToolList, mcpServerFor } from "./server";
import { isToolName } from "@/lib/tools/schemas";
import { heldExactTool } from "@/lib/working-set/store";
import { looksLikeJwt, TokenRejected } from "./tokens";


/** 401 with the discovery pointer (RFC 9728 §5.1) an MCP client follows to start OAuth. */
export function mcpUnauthenticated(message: string, tokenPresented: boolean): AppError {
  const parts = [
    ...(tokenPresented ? [`error="invalid_token"`, `error_description="${quoted(message)}"`] : []),
    `resource_metadata="${protectedResourceMetadataUrl()}"`,
    `scope="${scopesSupported.join(" ")}"`,
  ];
  return new AppError("unauthenticated", message, { headers: { "WWW-Authenticate": `Bearer ${parts.join(", ")}` }, details: { resource_metadata: protectedResourceMetadataUrl() } });
}

export type McpCaller = { auth: AuthContext; scopes: string[] | null };

/** The caller of an MCP request: an actor token, or an OAuth access token for this server. Nothing else. */
export async function authenticateMcp(db: Db, req: Request, requestId: string): Promise<McpCaller> {
  if (new URL(req.url).searchParams.has("access_token")) {
    throw mcpUnauthenticated("Tokens in the URL are refused: send `Authorization: Bearer <token>`.", true);
  }
  let token: string | null;
  try {
    token = bearerToken(req);
  } catch {
    throw mcpUnauthenticated("The Authorization header must be `Bearer <token>`.", true);
  }
  if (token === null) throw mcpUnauthenticated("Send `Authorization: Bearer <token>`: an actor token (rga_…) or an OAuth access token from this server.", false);
  if (looksLikeJwt(token)) {
    try {
      const caller = await actorForAccessToken(db, token, requestId);
      if (!caller) throw mcpUnauthenticated("This connection was revoked, or its approval ended. Connect again.", true);
      return caller;
    } catch (err) {
      if (err instanceof TokenRejected) throw mcpUnauthenticated(err.message, true);
      throw err;
    }
  }
  if (token.startsWith(`${ACTOR_TOKEN_PREFIX}_`)) {
    try {
      return { auth: await contextForBearer(db, token, requestId), scopes: null };
    } catch (err) {
      if (isAppError(err) && err.code === "unauthenticated") throw mcpUnauthenticated("The actor token is unknown, expired or revoked.", true);
      throw err;
    }
  }
  if (token.startsWith(`${API_KEY_PREFIX}_`)) {
    throw mcpUnauthenticated("Personal API keys act as you and are not accepted here: an MCP client is a delegated actor. Use an actor token (rga_…) or connect with OAuth.", true);
  }
  throw mcpUnauthenticated("The bearer token is not one this server issued.", true);
}

type JsonRpcRequest = { jsonrpc: "2.0"; id?: string | number; method: string; params?: Record<string, unknown> };
const asMessages = (body: unknown): JsonRpcRequest[] => (Array.isArray(body) ? body : [body]).filter((m): m is JsonRpcRequest => typeof m === "object" && m !== null);

/**
 * The OAuth scope a tool call needs: by the risk of its operation (resolved as the dispatcher resolves it); null
 * when the dispatcher will refuse the call anyway.
 */
export async function scopeForCall(db: Executor, tenantId: string, name: unknown, args: unknown, actorId?: string): Promise<string | null> {
  if (typeof name !== "string") return null;
  // An exact tool of the caller's working set needs the scope of the action it stands for.
  if (!isToolName(name)) {
    if (!actorId) return null;
    const held = await heldExactTool(db, { tenantId, actorId }, name);
    return held ? scopeForCall(db, tenantId, "object_action", { namespace: held.namespace, action: held.operation.slice("object.action.".length) }) : null;
  }
  const r = resolveOperation(name, args);
  if (!r.operation) return null;
  if (!r.operation.startsWith("object.action.")) return scopeForRisk(baseOperationRisk[r.operation as BaseOperationKey]);
  // An action's risk is the realm's to say.
  if ("error" in r || r.namespace === null) return null;
  const realm = await findRealm(db, tenantId, r.namespace);
  const action = realm?.manifest.actions.find((x) => actionOperationKey(x.name) === r.operation);
  if (!action) return null;
  return scopeForRisk(action.risk);
}

async function assertScopes(db: Executor, caller: McpCaller, messages: JsonRpcRequest[]) {
  if (caller.scopes === null) return;
  for (const m of messages) {
    if (m.method !== "tools/call") continue;
    const needed = await scopeForCall(db, caller.auth.tenantId, m.params?.name, m.params?.arguments, caller.auth.kind === "actor" ? caller.auth.actorId : undefined);
    if (needed && !caller.scopes.includes(needed)) throw await scopeRefusal(db, caller.auth, caller.scopes, needed, m.params?.name);
  }
}

/**
 * The spec's DNS-rebinding guard: the Host must be one this server serves (APP_URL's, an alias, loopback), and a
 * browser Origin, when present, one of those too. Forwarded headers count only behind a trusted proxy.
 */
function assertOrigin(req: Request) {
  assertServedHost(req);
  const origin = req.headers.get("origin");
  if (origin === null) return;
  if (!isServedOrigin(origin)) throw new AppError("forbidden", "Cross-origin MCP requests from browsers are refused.", { details: { origin: origin.slice(0, 200) } });
}

export async function handleMcpPost(req: Request, requestId: string): Promise<Response> {
  assertOrigin(req);
  const db = await getDb();
  const caller = await authenticateMcp(db, req, requestId);
  const clientRequestId = clientRequestIdOf(req);
  if (clientRequestId) caller.auth = { ...caller.auth, clientRequestId };
  const bytes = await readBodyBytes(req, MCP_MAX_BODY_BYTES);
  const body = parseJsonText(new TextDecoder().decode(bytes));
  // Before anything reads a namespace or a ref out of it (scopeForCall): no NUL or lone surrogate anywhere.
  assertCleanText(body, "MCP request");
  const messages = asMessages(body);
  const principal = caller.auth.kind === "actor" ? caller.auth.actorId : caller.auth.userId;
  // A batch counts as many requests as it carries.
  // One budget per caller across MCP and REST (`callerBucket`), so a second transport does not double it.
  await enforceRateLimit(db, callerBucket(principal), rateLimits().mcp, "requests", new Date(), Math.max(1, messages.filter((m) => m.id !== undefined).length));
  await assertScopes(db, caller, messages);

  const server = mcpServerFor(caller.auth, caller.scopes);
  // A call that may change the tool list is answered as an SSE stream: notifications/tools/list_changed, then its result.
  const streams = messages.some((m) => m.method === "tools/call" && changesToolList(m.params?.name, m.params?.arguments));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streams, maxRequestBodySize: MCP_MAX_BODY_BYTES });
  await server.connect(transport);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError("service_unavailable", "The MCP request timed out.", { details: { timeout_ms: MCP_REQUEST_TIMEOUT_MS + 5000 } })), MCP_REQUEST_TIMEOUT_MS + 5000);
    });
    const res = await Promise.race([transport.handleRequest(req, { parsedBody: body }), timeout]);
    const headers = new Headers(res.headers);
    headers.set("cache-control", "no-store");
    return new Response(await res.text(), { status: res.status, headers });
  } finally {
    clearTimeout(timer);
    await server.close().catch(() => {});
  }
}

/** GET (a server-to-client stream) and DELETE (ending a session) need sessions; this server keeps none. */
export function mcpMethodNotAllowed(): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this MCP server is stateless; POST JSON-RPC messages." }, id: null },
    { status: 405, headers: { allow: "POST" } },
  );
}
