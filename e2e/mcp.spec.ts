// The MCP gateway against the running app, through the official SDK client: actor tokens, the realm walk,
// structured consent errors, and the OAuth 2.1 flows (dynamic registration and Client ID Metadata
// Documents) with the consent page approved in a real browser.
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { auth, UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { expect, test, type Page } from "@playwright/test";
import { demo, expectAccessible, newActor, screenshot, signInAs } from "./support/helpers";

const base = () => process.env.E2E_BASE_URL!;
const mcpUrl = () => new URL("/api/mcp", base());
const aliceKey = () => ({ authorization: `Bearer ${demo().users.alice!.api_key}` });

/** A tool result as an agent reads it: the one text content, parsed (there is no structuredContent). */
type ToolOut = { isError?: boolean; json?: Record<string, unknown> };

async function mcpClient(opts: { token?: string; authProvider?: OAuthClientProvider }) {
  const client = new Client({ name: "realmgate-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(mcpUrl(), {
    ...(opts.token ? { requestInit: { headers: { authorization: `Bearer ${opts.token}` } } } : {}),
    ...(opts.authProvider ? { authProvider: opts.authProvider } : {}),
  });
  await client.connect(transport);
  return { client, transport };
}

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<ToolOut> => {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: unknown };
  expect(r.structuredContent, "results are sent once, as text").toBeUndefined();
  expect(r.content).toHaveLength(1);
  return { isError: r.isError, json: JSON.parse(r.content[0]!.text) as Record<string, unknown> };
};

/** A local loopback server: the OAuth redirect target (and, optionally, a Client ID Metadata Document). */
async function loopback(doc?: (base: string) => Record<string, unknown>) {
  const codes: URL[] = [];
  const waiters: ((u: URL) => void)[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", `http://${req.headers.host}`);
    if (u.pathname === "/client.json" && doc) {
      res.setHeader("content-type", "application/json");
      return void res.end(JSON.stringify(doc(`http://${req.headers.host}`)));
    }
    if (u.pathname === "/callback") {
      const waiter = waiters.shift();
      if (waiter) waiter(u);
      else codes.push(u);
      res.setHeader("content-type", "text/html");
      return void res.end("<!doctype html><title>Connected</title><h1>You can close this window.</h1>");
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    redirectUri: `${origin}/callback`,
    nextCallback: () => new Promise<URL>((r) => (codes.length ? r(codes.shift()!) : waiters.push(r))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** An in-memory OAuthClientProvider, as a native MCP client would keep it. */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  discovery?: OAuthDiscoveryState;
  constructor(
    readonly redirectUrl: string,
    readonly clientName = "E2E OAuth client",
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.clientName, redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(i: OAuthClientInformationMixed) {
    this.info = i;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  redirectToAuthorization(u: URL) {
    this.authorizationUrl = u;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(s: OAuthDiscoveryState) {
    this.discovery = s;
  }
  /** As native clients do: the SDK drops what the server refused (invalid_grant → the tokens) and starts over. */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "client") this.info = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = "";
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
  discoveryState() {
    return this.discovery;
  }
}

async function rawMcp(token: string, body: Record<string, unknown>, path = "/api/mcp") {
  return fetch(new URL(path, base()), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...body }),
  });
}

async function approveInBrowser(page: Page, authorizationUrl: URL, check: (page: Page) => Promise<void> = async () => {}) {
  await signInAs(page, "alice", `${authorizationUrl.pathname}${authorizationUrl.search}`);
  await check(page);
  await page.getByRole("button", { name: "Approve" }).click();
}

const tokenPost = (form: Record<string, string>) =>
  fetch(new URL("/api/oauth/token", base()), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) });

test.describe("MCP gateway with actor tokens", () => {
  test("a narrowly granted actor lists all nine tools and walks the docs realm; a missing grant is a structured consent error", async ({ request }) => {
    const { token } = await newActor(request, "E2E docs agent", [
      { namespace: "docs", operations: ["provider.about", "object.schema", "object.search", "object.get", "object.action.reply_comment"] },
    ]);
    const { client } = await mcpClient({ token });
    expect(client.getServerVersion()).toMatchObject({ name: "realmgate" });

    const { tools } = await client.listTools();
    // The same nine for every caller: what it may use is provider_about's and object_schema's answer.
    expect(tools.map((t) => t.name)).toEqual(["provider_about", "object_schema", "list_objects", "search_objects", "get_object", "object_action", "upsert_object", "host_file", "delete_object"]);
    expect(tools.every((t) => t.inputSchema.type === "object" && t.description && !t.description.includes("\n"))).toBe(true);

    // about → schema query → exact contract → search → get → action
    const about = await call(client, "provider_about", { namespace: "docs" });
    expect(about.json).toMatchObject({ namespace: "docs", title: "Docs" });
    const found = await call(client, "object_schema", { namespace: "docs", query: "reply to a comment" });
    const match = (found.json!.matches as { operation: string }[])[0]!;
    expect(match.operation).toBe("object.action.reply_comment");
    const contract = await call(client, "object_schema", { namespace: "docs", operation: match.operation });
    expect(contract.json).toMatchObject({ tool: "object_action", action: "reply_comment", payload_schema: { type: "object" } });
    const q3 = await call(client, "search_objects", { namespace: "docs", query: "Q3" });
    expect((q3.json!.items as { label: string }[]).map((i) => i.label)).toContain("Q3 planning");
    const threads = await call(client, "search_objects", { namespace: "docs", kind: "docs.comment_thread", query: "beta" });
    const threadRef = (threads.json!.items as { ref: string }[])[0]!.ref;
    const thread = await call(client, "get_object", { ref: threadRef });
    expect(thread.isError).toBeFalsy();
    expect(JSON.stringify(thread.json)).toContain("Beta in August");
    const reply = await call(client, "object_action", { action: "reply_comment", ref: threadRef, payload: { body: "Agreed — September is safer. (via MCP)" } });
    expect(reply.isError, JSON.stringify(reply)).toBeFalsy();
    const after = await call(client, "get_object", { ref: threadRef });
    expect(JSON.stringify(after.json)).toContain("(via MCP)");

    // Not granted: the same error body REST gives, with the Connection Hub link to relay.
    const denied = await call(client, "list_objects", { namespace: "docs", kind: "docs.document" });
    expect(denied.isError).toBe(true);
    const error = (denied.json as { error: { code: string; details: Record<string, unknown>; request_id: string } }).error;
    expect(error.code).toBe("consent_required");
    expect(error.details.connection_hub_url).toMatch(new RegExp(`^${base()}/consent/ccr_`));
    expect(error.request_id).toMatch(/^req_/);
    const rest = await request.post("/api/v1/tools/list_objects", { headers: { authorization: `Bearer ${token}` }, data: { namespace: "docs", kind: "docs.document" } });
    expect(rest.status()).toBe(403);
    const restError = (await rest.json()).error;
    expect({ ...restError, request_id: "x" }).toEqual({ ...error, request_id: "x" });
    await client.close();
  });

  test("memory and board answer through MCP too", async ({ request }) => {
    const ops = ["provider.about", "object.search", "object.get"];
    const { token } = await newActor(request, "E2E reader", [
      { namespace: "memory", operations: ops },
      { namespace: "board", operations: ops },
    ]);
    const { client } = await mcpClient({ token });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["provider_about", "object_schema", "list_objects", "search_objects", "get_object", "object_action", "upsert_object", "host_file", "delete_object"]);
    // Every realm it could be granted is listed (describing needs no grant); using docs still asks, below.
    const realms = await call(client, "provider_about", {});
    expect((realms.json!.realms as { namespace: string }[]).map((r) => r.namespace)).toEqual(expect.arrayContaining(["board", "docs", "mail", "memory"]));
    const cards = await call(client, "search_objects", { namespace: "board", query: "launch" });
    const card = (cards.json!.items as { ref: string; label: string }[]).find((i) => i.label === "Book the launch venue")!;
    expect((await call(client, "get_object", { ref: card.ref })).isError).toBeFalsy();
    const memories = await call(client, "search_objects", { namespace: "memory", query: "press kit" });
    expect((memories.json!.items as { label: string }[]).length).toBeGreaterThan(0);
    const docs = await call(client, "search_objects", { namespace: "docs", query: "Q3" });
    expect((docs.json as { error: { code: string } }).error.code).toBe("consent_required");
    await client.close();
  });

  test("an operation that asks each time: the SDK client gets approval_required, the person approves the page in the browser, the retry runs once", async ({ page, request }) => {
    const { token } = await newActor(request, "E2E tidy-up agent", [{ namespace: "docs", operations: ["provider.about", "object.search", "object.get"] }]);
    const made = await request.post("/api/v1/tools/upsert_object", { headers: aliceKey(), data: { namespace: "docs", kind: "docs.document", fields: { title: "Scratch notes to remove" } } });
    const ref = ((await made.json()) as { ref: string }).ref;
    const { client } = await mcpClient({ token });
    // The hints are true of this agent's realms: deleting is destructive, and deleting twice changes nothing more.
    const del = (await client.listTools()).tools.find((t) => t.name === "delete_object")!;
    expect(del.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });

    // The demo asks before deleting a document: nothing runs, the error names the page for the person.
    const asked = await call(client, "delete_object", { ref });
    expect(asked.isError).toBe(true);
    const error = (asked.json as { error: { code: string; details: { approval_id: string; approval_url: string; retry_hint: string } } }).error;
    expect(error.code).toBe("approval_required");
    expect(error.details.retry_hint).toBe("retry_after_approval");
    expect(error.details.approval_url).toBe(`${base()}/approvals/${error.details.approval_id}`);
    expect((await call(client, "delete_object", { ref, approval_id: error.details.approval_id })).json).toMatchObject({ error: { code: "approval_required" } });

    await signInAs(page, "alice", new URL(error.details.approval_url).pathname);
    await expect(page.getByRole("heading", { level: 1, name: "Approve one call from E2E tidy-up agent?" })).toBeVisible();
    await expect(page.getByRole("region", { name: "What it will do" }).getByText("“Scratch notes to remove”")).toBeVisible();
    await page.getByRole("button", { name: "Approve this one call" }).click();
    await expect(page.getByText("The agent can now run this call once — it has until")).toBeVisible();

    const ran = await call(client, "delete_object", { ref, approval_id: error.details.approval_id });
    expect(ran.isError, JSON.stringify(ran.json)).toBeFalsy();
    const again = await call(client, "delete_object", { ref, approval_id: error.details.approval_id });
    expect(again.json).toEqual(ran.json);
    const gone = await request.post("/api/v1/tools/get_object", { headers: aliceKey(), data: { ref } });
    expect(gone.status()).toBe(404);
    // Another input under the same approval is not the approved call.
    const other = await call(client, "delete_object", { ref: ref.replace(/.$/, ref.endsWith("a") ? "b" : "a"), approval_id: error.details.approval_id });
    expect((other.json as { error: { code: string } }).error.code).toBe("approval_mismatch");
    await client.close();
  });

  test("bad credentials answer 401 with the resource metadata pointer", async () => {
    const foreign = `eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6Im1jcC0wIn0.${Buffer.from(JSON.stringify({ sub: "act_x", aud: mcpUrl().href, exp: 4102444800 })).toString("base64url")}.c2ln`;
    for (const res of [
      await rawMcp(foreign, { method: "tools/list" }),
      await rawMcp(demo().users.alice!.api_key, { method: "tools/list" }), // a personal key acts as a person, not an agent
      await fetch(new URL(`/api/mcp?access_token=${foreign}`, base()), { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${base()}/.well-known/oauth-protected-resource/api/mcp"`);
      expect((await res.json()).error.code).toBe("unauthenticated");
    }
  });
});

test.describe("MCP gateway with OAuth 2.1", () => {
  test("the SDK's OAuth client: discovery, registration, PKCE, consent in the browser, tool call, refresh, revoke", async ({ page, request }) => {
    const cb = await loopback();
    try {
      const prm = await (await fetch(new URL("/.well-known/oauth-protected-resource/api/mcp", base()))).json();
      expect(prm).toMatchObject({ resource: mcpUrl().href, authorization_servers: [base()], scopes_supported: ["realms:read", "realms:write"] });
      expect(await (await fetch(new URL("/.well-known/oauth-protected-resource", base()))).json()).toEqual(prm);
      const asm = await (await fetch(new URL("/.well-known/oauth-authorization-server", base()))).json();
      expect(asm).toMatchObject({ issuer: base(), code_challenge_methods_supported: ["S256"], client_id_metadata_document_supported: true, registration_endpoint: `${base()}/api/oauth/register` });

      const provider = new MemoryProvider(cb.redirectUri);
      await expect(mcpClient({ authProvider: provider })).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.info?.client_id).toMatch(/^cli_/); // registered dynamically
      const authUrl = provider.authorizationUrl!;
      expect(authUrl.origin + authUrl.pathname).toBe(`${base()}/oauth/authorize`);
      expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authUrl.searchParams.get("resource")).toBe(mcpUrl().href);

      const callback = cb.nextCallback();
      await approveInBrowser(page, authUrl, async (p) => {
        await expect(p.getByRole("heading", { name: "Connect E2E OAuth client" })).toBeVisible();
        // Nothing but discovery is ticked for the person; the default expiry is one day.
        await expect(p.getByRole("checkbox", { name: "Search documents and comment threads" })).not.toBeChecked();
        await expect(p.getByRole("checkbox", { name: /Reply in a comment thread/ })).not.toBeChecked();
        await expect(p.getByRole("radio", { name: "1 day" })).toBeChecked();
        await p.getByRole("checkbox", { name: "Search documents and comment threads" }).check();
        await p.getByRole("checkbox", { name: /^Read a document, tab/ }).check();
        await p.getByRole("checkbox", { name: /Reply in a comment thread/ }).check();
        await expectAccessible(p);
        await screenshot(p, "mcp-consent");
      });
      const back = await callback;
      expect(back.searchParams.get("iss")).toBe(base());
      expect(provider.saved).toBeUndefined(); // the SDK exchanges the code in finishAuth
      await new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }).finishAuth(back.searchParams.get("code")!);
      expect(provider.saved).toMatchObject({ token_type: "Bearer", scope: "realms:read realms:write", refresh_token: expect.stringMatching(/^rgr_/) });

      const { client } = await mcpClient({ authProvider: provider });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(["provider_about", "object_schema", "list_objects", "search_objects", "get_object", "object_action", "upsert_object", "host_file", "delete_object"]);
      const q3 = await call(client, "search_objects", { namespace: "docs", query: "Q3" });
      expect(q3.isError).toBeFalsy();

      // Refresh: the SDK rotates the pair; the new access token works.
      const before = provider.saved!;
      expect(await auth(provider, { serverUrl: mcpUrl() })).toBe("AUTHORIZED");
      expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);
      expect(provider.saved!.access_token).not.toBe(before.access_token);
      expect((await rawMcp(provider.saved!.access_token, { method: "tools/list" })).status).toBe(200);

      // Revoking the actor cuts the client off at its next request, and refreshing stops.
      const actors = (await (await request.get("/api/v1/actors", { headers: aliceKey() })).json()).actors as { id: string; kind: string; name: string; revoked_at: string | null }[];
      const actor = actors.find((a) => a.kind === "mcp_client" && a.name === "E2E OAuth client" && !a.revoked_at)!;
      expect((await request.post(`/api/v1/actors/${actor.id}/revoke`, { headers: aliceKey(), data: { reason: "e2e" } })).status()).toBe(200);
      const cut = await rawMcp(provider.saved!.access_token, { method: "tools/list" });
      expect(cut.status).toBe(401);
      expect(cut.headers.get("www-authenticate")).toContain("resource_metadata=");
      const refreshAgain = await tokenPost({ grant_type: "refresh_token", refresh_token: provider.saved!.refresh_token!, client_id: provider.info!.client_id });
      expect(await refreshAgain.json()).toMatchObject({ error: "invalid_grant" });
      await client.close().catch(() => {});
    } finally {
      await cb.close();
    }
  });

  test("a Client ID Metadata Document client, read-only: code replay, insufficient scope, refresh reuse revokes the family", async ({ page }) => {
    const cb = await loopback((origin) => ({ client_id: `${origin}/client.json`, client_name: "E2E metadata client", redirect_uris: [`${origin}/callback`], token_endpoint_auth_method: "none" }));
    try {
      const clientId = `${cb.origin}/client.json`;
      const verifier = randomBytes(32).toString("base64url");
      const authUrl = new URL("/oauth/authorize", base());
      for (const [k, v] of Object.entries({
        response_type: "code",
        client_id: clientId,
        redirect_uri: cb.redirectUri,
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
        scope: "realms:read",
        state: "e2e-state",
        resource: mcpUrl().href,
      })) authUrl.searchParams.set(k, v);
      const callback = cb.nextCallback();
      await approveInBrowser(page, authUrl, async (p) => {
        await expect(p.getByRole("heading", { name: "Connect E2E metadata client" })).toBeVisible();
        await expect(p.getByText(`is identified by ${cb.origin.replace("http://", "")}/client.json`)).toBeVisible();
        await expect(p.getByText("changes data", { exact: true })).toHaveCount(0);
        await expect(p.getByText("This app asked only to read")).toBeVisible();
        await p.getByRole("checkbox", { name: "Search documents and comment threads" }).first().check();
        await p.getByRole("checkbox", { name: /^Read a document, tab/ }).check();
      });
      const back = await callback;
      expect(back.searchParams.get("state")).toBe("e2e-state");
      const code = back.searchParams.get("code")!;
      const exchange = { grant_type: "authorization_code", code, client_id: clientId, redirect_uri: cb.redirectUri, code_verifier: verifier, resource: mcpUrl().href };
      const first = await tokenPost(exchange);
      expect(first.status).toBe(200);
      const tokens = await first.json();
      expect(tokens.scope).toBe("realms:read");
      const replay = await tokenPost(exchange);
      expect(replay.status).toBe(400);
      expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
      // The replay revoked what the code produced: connect again for the rest.
      expect((await rawMcp(tokens.access_token, { method: "tools/list" })).status).toBe(401);

      const verifier2 = randomBytes(32).toString("base64url");
      authUrl.searchParams.set("code_challenge", createHash("sha256").update(verifier2).digest("base64url"));
      const callback2 = cb.nextCallback();
      await page.goto(`${authUrl.pathname}${authUrl.search}`);
      await page.getByRole("button", { name: "Approve" }).click();
      const code2 = (await callback2).searchParams.get("code")!;
      const t1 = await (await tokenPost({ ...exchange, code: code2, code_verifier: verifier2 })).json();
      expect(t1.access_token, JSON.stringify(t1)).toBeTruthy();
      const list = await (await rawMcp(t1.access_token, { method: "tools/list" })).json();
      // Read operations only, yet all nine tools are listed: a write answers insufficient_scope (below), the step-up signal.
      const listed = list.result.tools.map((t: { name: string }) => t.name);
      expect(listed).toEqual(["provider_about", "object_schema", "list_objects", "search_objects", "get_object", "object_action", "upsert_object", "host_file", "delete_object"]);

      const t2 = await (await tokenPost({ grant_type: "refresh_token", refresh_token: t1.refresh_token, client_id: clientId })).json();
      expect(t2.refresh_token).not.toBe(t1.refresh_token);
      expect((await rawMcp(t2.access_token, { method: "tools/list" })).status).toBe(200);

      // A write on a read-only connection: insufficient_scope, and the step-up signal on the next refresh.
      const scoped = await rawMcp(t2.access_token, { method: "tools/call", params: { name: "object_action", arguments: { action: "reply_comment", ref: "docs:thread:thr_aaaaaaaaaaaaaaaaaaaa", payload: { body: "hi" } } } });
      expect(scoped.status).toBe(403);
      expect((await scoped.json()).error.code).toBe("insufficient_scope");
      expect(scoped.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
      expect(scoped.headers.get("www-authenticate")).toContain('scope="realms:read realms:write"');
      const stepUp = await (await tokenPost({ grant_type: "refresh_token", refresh_token: t2.refresh_token, client_id: clientId })).json();
      expect(stepUp).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("step_up_required") });
      expect((await rawMcp(t2.access_token, { method: "tools/list" })).status).toBe(401);

      // Reuse of a rotated refresh token is still refused.
      const reuse = await tokenPost({ grant_type: "refresh_token", refresh_token: t1.refresh_token, client_id: clientId });
      expect(await reuse.json()).toMatchObject({ error: "invalid_grant" });
    } finally {
      await cb.close();
    }
  });

  test("step-up with the SDK: a read-only connection hits a write, the person approves the write in the browser, and the retry succeeds — one actor", async ({ page, request }) => {
    const cb = await loopback();
    try {
      const provider = new MemoryProvider(cb.redirectUri, "E2E step-up client");
      await expect(mcpClient({ authProvider: provider })).rejects.toBeInstanceOf(UnauthorizedError);
      let callback = cb.nextCallback();
      await approveInBrowser(page, provider.authorizationUrl!, async (p) => {
        await p.getByRole("checkbox", { name: "Search documents and comment threads" }).check();
      });
      await new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }).finishAuth((await callback).searchParams.get("code")!);
      expect(provider.saved?.scope).toBe("realms:read"); // only reads were approved

      const first = await mcpClient({ authProvider: provider });
      const found = await call(first.client, "search_objects", { namespace: "docs", query: "beta", kind: "docs.comment_thread" });
      const thread = ((found.json?.items as { ref: string }[]) ?? [])[0]!.ref;
      expect(thread).toMatch(/^docs:thread:/);
      const firstAuthUrl = provider.authorizationUrl!.href;
      // The write needs realms:write: the SDK refreshes (invalid_grant: the step-up signal), drops its tokens and
      // starts a new authorization asking for the scope the server named.
      await expect(call(first.client, "object_action", { ref: thread, action: "reply_comment", payload: { body: "Stepped up." } })).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.authorizationUrl!.href).not.toBe(firstAuthUrl);
      expect(provider.authorizationUrl!.searchParams.get("scope")).toBe("realms:read realms:write");
      await first.client.close().catch(() => {});

      callback = cb.nextCallback();
      await page.goto(`${provider.authorizationUrl!.pathname}${provider.authorizationUrl!.search}`);
      await expect(page.getByText("You connected E2E step-up client before")).toBeVisible();
      await expect(page.getByText("(already approved)").first()).toBeVisible();
      await page.getByRole("checkbox", { name: /Reply in a comment thread/ }).check();
      await expectAccessible(page);
      await screenshot(page, "mcp-step-up");
      await page.getByRole("button", { name: "Approve" }).click();
      await new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }).finishAuth((await callback).searchParams.get("code")!);
      expect(provider.saved?.scope).toBe("realms:read realms:write");

      const second = await mcpClient({ authProvider: provider });
      const replied = await call(second.client, "object_action", { ref: thread, action: "reply_comment", payload: { body: "Stepped up." } });
      expect(replied.isError, JSON.stringify(replied)).toBeFalsy();
      await second.client.close().catch(() => {});

      const actors = (await (await request.get("/api/v1/actors", { headers: aliceKey() })).json()).actors as { kind: string; name: string; revoked_at: string | null }[];
      expect(actors.filter((a) => a.kind === "mcp_client" && a.name === "E2E step-up client" && !a.revoked_at)).toHaveLength(1);
    } finally {
      await cb.close();
    }
  });

  test("a redirect URI the client did not register stops at an error page, without redirecting", async ({ page }) => {
    const reg = await fetch(new URL("/api/oauth/register", base()), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "E2E mismatch client", redirect_uris: ["http://127.0.0.1:9/callback"] }),
    });
    expect(reg.status).toBe(201);
    const { client_id } = await reg.json();
    const url = new URL("/oauth/authorize", base());
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id,
      redirect_uri: "https://evil.example/callback",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    })) url.searchParams.set(k, v);
    await signInAs(page, "alice", `${url.pathname}${url.search}`);
    await expect(page.getByRole("heading", { name: "This connection request was stopped" })).toBeVisible();
    expect(page.url().startsWith(base())).toBe(true);
    await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
    await expectAccessible(page);

    // The consent page is never framed, and its form post is accepted only from Realmgate's own pages,
    // carrying a consent request signed for this person.
    const shown = await page.request.get(`${url.pathname}${url.search}`);
    expect(shown.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(shown.headers()["x-frame-options"]).toBe("DENY");
    const crossSite = await page.request.post("/api/oauth/authorize", { form: { request: "x", decision: "approve" }, headers: { origin: "https://evil.example" }, maxRedirects: 0 });
    expect(crossSite.status()).toBe(403);
    const forged = await page.request.post("/api/oauth/authorize", { form: { request: "forged", decision: "approve" }, headers: { origin: base() }, maxRedirects: 0 });
    expect(forged.status()).toBe(303);
    expect(forged.headers().location).toBe("/oauth/authorize?notice=expired");
  });
});
