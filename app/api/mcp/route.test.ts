// The MCP route handler end to end in-process (real database, real SDK transport): authentication variants,
// limits, scopes, and the JSON-RPC answers.
import { randomBytes } from "node:crypto";
import { decodeProtectedHeader, SignJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { frozenClock, makeTenant, type TestTenant } from "@/test-support";
import { createActor } from "@/lib/authz/actors";
import { createApiKey } from "@/lib/authz/api-keys";
import { createGrant } from "@/lib/authz/grants";
import { deriveKey } from "@/lib/delivery/keys";
import { reloadEnv } from "@/lib/env";
import { registerClient } from "@/lib/mcp/clients";
import { mcpResourceUrl, oauthIssuer, protectedResourceMetadataUrl } from "@/lib/mcp/config";
import { checkAuthorizationRequest, decideAuthorization, exchangeCode } from "@/lib/mcp/oauth";
import { mintAccessToken, s256 } from "@/lib/mcp/tokens";
import { toolNames } from "@/lib/tools/schemas";
import { DELETE, GET, POST } from "./route";

let t: TestTenant;
let actorToken: string;

beforeAll(async () => {
  t = await makeTenant();
  const { actor, token } = await createActor(t.db, t.users.alice!, { name: "Narrow agent", kind: "hosted_agent", issue_token: true, token_expires_in_days: null });
  actorToken = token!.token;
  await createGrant(t.db, t.users.alice!, { actor_id: actor.id, namespace: "docs", operations: ["provider.about", "object.search", "object.get"], resource_scope: null, expires: "1d" });
});

afterEach(() => {
  delete process.env.MCP_RATE_LIMIT_PER_MINUTE;
  reloadEnv();
});

const url = () => mcpResourceUrl();
let nextId = 1;
function rpc(method: string, params: Record<string, unknown> | undefined, headers: Record<string, string>, target = url()) {
  return new Request(target, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, ...(params ? { params } : {}) }),
  });
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function expect401(res: Response, invalidToken: boolean) {
  expect(res.status).toBe(401);
  const header = res.headers.get("www-authenticate")!;
  expect(header).toContain(`resource_metadata="${protectedResourceMetadataUrl()}"`);
  expect(header.includes('error="invalid_token"')).toBe(invalidToken);
  expect((await res.json()).error.code).toBe("unauthenticated");
}

/** A token signed with the server's key and kid, with the given audience and expiry. */
async function forged(aud: string | null, exp = Math.floor(Date.now() / 1000) + 300, signKey?: Uint8Array) {
  const kid = decodeProtectedHeader((await mintAccessToken({ actorId: "act_x", tenantId: t.tenantId, clientId: "cli_x", familyId: "rft_x", scopes: [] })).token).kid!;
  let jwt = new SignJWT({ tid: t.tenantId, client_id: "cli_x", fid: "rft_x", scope: "realms:read" })
    .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid })
    .setIssuer(oauthIssuer())
    .setSubject("act_x")
    .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
    .setJti("j")
    .setExpirationTime(exp);
  if (aud) jwt = jwt.setAudience(aud);
  return jwt.sign(signKey ?? new Uint8Array(deriveKey("mcp-token")));
}

describe("authentication", () => {
  it("no token: 401 pointing at the protected resource metadata (no error code, per RFC 6750)", async () => {
    await expect401(await POST(rpc("tools/list", undefined, {})), false);
  });

  it.each([
    ["a token for another audience", () => forged("https://other.example/api/mcp")],
    ["a token with no audience", () => forged(null)],
    ["an expired token", () => forged(mcpResourceUrl(), Math.floor(Date.now() / 1000) - 1)],
    ["a token signed by an unknown key", () => forged(mcpResourceUrl(), undefined, new Uint8Array(randomBytes(32)))],
    ["a personal API key", async () => (await createApiKey(t.db, t.users.alice!, "k")).key],
    ["an unknown actor token", async () => `rga_${randomBytes(32).toString("base64url")}`],
  ])("%s: 401 invalid_token with resource_metadata", async (_name, token) => {
    await expect401(await POST(rpc("tools/list", undefined, bearer(await token()))), true);
  });

  it("a token in the query string is refused even alongside a valid header", async () => {
    await expect401(await POST(rpc("tools/list", undefined, bearer(actorToken), `${url()}?access_token=${actorToken}`)), true);
  });

  it("a browser request from another origin is refused", async () => {
    const res = await POST(rpc("tools/list", undefined, { ...bearer(actorToken), origin: "https://evil.example" }));
    expect(res.status).toBe(403);
  });
});

describe("the protocol", () => {
  it.each([
    ["2025-11-25", "2025-11-25"],
    ["2025-06-18", "2025-06-18"],
    ["2024-11-05", "2024-11-05"],
    ["1999-01-01", "2025-11-25"],
  ])("initialize asking for %s negotiates %s, and issues no session", async (asked, agreed) => {
    const res = await POST(rpc("initialize", { protocolVersion: asked, capabilities: {}, clientInfo: { name: "t", version: "1" } }, bearer(actorToken)));
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const body = await res.json();
    expect(body.result).toMatchObject({ protocolVersion: agreed, serverInfo: { name: "realmgate" }, capabilities: { tools: {} } });
  });

  it("tools/list is all nine tools even for a narrowly granted actor, with JSON Schemas and one-line descriptions", async () => {
    const body = await (await POST(rpc("tools/list", undefined, bearer(actorToken)))).json();
    const tools = body.result.tools as { name: string; description: string; inputSchema: { type: string } }[];
    // The write tools are listed though it holds only reads: calling one asks the user (consent_required), below.
    expect(tools.map((x) => x.name)).toEqual(toolNames);
    expect(tools.find((x) => x.name === "delete_object")).toMatchObject({ annotations: { destructiveHint: true } });
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description).not.toContain("\n");
    }
  });

  it("a call without a grant is a tool error carrying the REST error body, connection hub link included", async () => {
    const res = await POST(rpc("tools/call", { name: "list_objects", arguments: { namespace: "docs", kind: "docs.document" } }, { ...bearer(actorToken), "x-request-id": "req_testconsent01" }));
    // The request id is ours, whatever the client sent; the client's is echoed apart.
    const requestId = res.headers.get("x-request-id")!;
    expect(requestId).toMatch(/^req_/);
    expect(requestId).not.toBe("req_testconsent01");
    expect(res.headers.get("x-client-request-id")).toBe("req_testconsent01");
    const { result } = await res.json();
    expect(result.isError).toBe(true);
    // The error body once, as the text content: no structuredContent repeating it.
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toHaveLength(1);
    expect(JSON.parse(result.content[0].text)).toEqual({
      error: { code: "consent_required", message: expect.any(String), details: expect.objectContaining({ connection_hub_url: expect.stringContaining("/consent/ccr_") }), request_id: requestId },
    });
  });

  it("an unknown tool is a protocol error", async () => {
    const body = await (await POST(rpc("tools/call", { name: "drop_tables", arguments: {} }, bearer(actorToken)))).json();
    expect(body.error.code).toBe(-32602);
  });

  it("GET and DELETE answer 405: there are no sessions or server streams", async () => {
    for (const handler of [GET, DELETE]) {
      const res = await handler(new Request(url(), { headers: bearer(actorToken) }));
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });
});

describe("limits", () => {
  it("bodies over 1 MiB are refused with 413 before parsing", async () => {
    const req = new Request(url(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(actorToken) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(1_100_000) } }),
    });
    const res = await POST(req);
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("payload_too_large");
  });

  it("each actor is rate limited in PostgreSQL: 429 with Retry-After", async () => {
    const agent = async (name: string) =>
      (await createActor(t.db, t.users.bob!, { name, kind: "automation", issue_token: true, token_expires_in_days: null })).token!.token;
    const busy = await agent("Busy agent");
    process.env.MCP_RATE_LIMIT_PER_MINUTE = "2";
    reloadEnv();
    // The clock stands still: two requests fit in the window, the third is refused.
    const clock = frozenClock();
    onTestFinished(() => clock.restore());
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await POST(rpc("tools/list", undefined, bearer(busy)))).status);
    const last = await POST(rpc("tools/list", undefined, bearer(busy)));
    expect([...statuses, last.status]).toEqual([200, 200, 429]);
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await last.json()).error).toMatchObject({ code: "rate_limited", details: { limit: 2, window_seconds: 60 } });
    // Another actor counts on its own.
    expect((await POST(rpc("tools/list", undefined, bearer(await agent("Quiet agent"))))).status).toBe(200);
  });
});

describe("OAuth access tokens", () => {
  async function oauthToken(ops: string[], scope: string) {
    const redirectUri = "http://127.0.0.1:41000/cb";
    const { client_id } = await registerClient(t.db, { redirect_uris: [redirectUri], client_name: "Route test" });
    const verifier = randomBytes(32).toString("base64url");
    const p = { response_type: "code", client_id, redirect_uri: redirectUri, code_challenge: s256(verifier), code_challenge_method: "S256", scope, resource: mcpResourceUrl() };
    const check = await checkAuthorizationRequest(t.db, p, "");
    if (!check.ok) throw new Error("bad request");
    const out = (await decideAuthorization(t.db, t.users.alice!, check.request, { decision: "approve", operations: ops, expires: "1h" })) as { redirect: string };
    const code = new URL(out.redirect).searchParams.get("code")!;
    return exchangeCode(t.db, { code, clientId: client_id, redirectUri, codeVerifier: verifier });
  }

  it("authenticate, list the tools and call an approved one", async () => {
    const tokens = await oauthToken(["docs provider.about", "docs object.search"], "realms:read");
    const list = await (await POST(rpc("tools/list", undefined, bearer(tokens.access_token)))).json();
    expect(list.result.tools.map((x: { name: string }) => x.name)).toEqual(toolNames);
    const about = await (await POST(rpc("tools/call", { name: "provider_about", arguments: { namespace: "docs" } }, bearer(tokens.access_token)))).json();
    expect(about.result.isError).toBeFalsy();
    // The result once, as JSON text: no structuredContent sending the same bytes again.
    expect(about.result.structuredContent).toBeUndefined();
    expect(about.result.content).toHaveLength(1);
    expect(JSON.parse(about.result.content[0].text)).toMatchObject({ namespace: "docs", title: "Docs" });
  });

  it("a write call with a read-only token is 403 insufficient_scope, with the scope to ask for", async () => {
    const tokens = await oauthToken(["docs object.get"], "realms:read");
    const res = await POST(rpc("tools/call", { name: "object_action", arguments: { action: "reply_comment", ref: "docs:thread:thr_x", payload: { body: "hi" } } }, bearer(tokens.access_token)));
    expect(res.status).toBe(403);
    expect((await res.json()).error).toMatchObject({ code: "insufficient_scope", details: { required_scope: "realms:write", granted_scopes: ["realms:read"] } });
    const header = res.headers.get("www-authenticate")!;
    expect(header).toContain('error="insufficient_scope"');
    expect(header).toContain('scope="realms:read realms:write"');
    expect(header).toContain("resource_metadata=");
    const upsert = await POST(rpc("tools/call", { name: "upsert_object", arguments: { namespace: "docs", kind: "docs.document", fields: { title: "x" } } }, bearer(tokens.access_token)));
    expect(upsert.status).toBe(403);
  });
});
