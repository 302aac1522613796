// DNS rebinding and forwarded headers at /api/mcp: the Host must be one this server serves and a browser Origin
// one of ours; X-Forwarded-* count only behind a trusted proxy. The first case is exactly the official MCP
// conformance suite's `dns-rebinding-protection` request.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { envOverride, makeTenant } from "@/test-support";
import { createActor } from "@/lib/authz/actors";
import { createGrant } from "@/lib/authz/grants";
import { POST } from "./route";

let token: string;
const overrides = envOverride();

beforeAll(async () => {
  const t = await makeTenant({ alice: "owner" });
  const { actor, token: issued } = await createActor(t.db, t.users.alice!, { name: "Rebinding agent", kind: "mcp_client", issue_token: true, token_expires_in_days: null });
  token = issued!.token;
  await createGrant(t.db, t.users.alice!, { actor_id: actor.id, namespace: "docs", operations: ["provider.about"], resource_scope: null, expires: "1d" });
});

afterEach(() => overrides.restore());

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "conformance-dns-rebinding-test", version: "1.0.0" } },
};

/** A POST to /api/mcp as it arrives on this server's socket at `socketHost` (the request URL), with these headers. */
function mcp(socketHost: string, headers: Record<string, string>, body: unknown = initialize): Request {
  return new Request(`http://${socketHost}/api/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

async function expectForbidden(res: Response) {
  expect(res.status).toBe(403);
  expect((await res.json()).error.code).toBe("forbidden");
}

async function expectInitialized(res: Response) {
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body.result.serverInfo.name).toBe("realmgate");
}

describe("DNS rebinding (the conformance suite's scenario)", () => {
  it("refuses Host: evil.example.com with Origin: http://evil.example.com, even with a valid token", async () => {
    await expectForbidden(await POST(mcp("127.0.0.1:3100", { host: "evil.example.com", origin: "http://evil.example.com" })));
  });

  it("refuses a foreign Host without any Origin (a non-browser client naming a host we do not serve)", async () => {
    await expectForbidden(await POST(mcp("127.0.0.1:3100", { host: "evil.example.com" })));
  });

  it.each(["127.0.0.1:3100", "localhost:3100", "[::1]:3100", "127.0.0.2"])("accepts the loopback Host %s with its matching Origin", async (host) => {
    await expectInitialized(await POST(mcp(host, { host, origin: `http://${host}` })));
    // The follow-up notification of the conformance check is accepted too.
    const note = await POST(mcp(host, { host, origin: `http://${host}` }, { jsonrpc: "2.0", method: "notifications/initialized" }));
    expect(note.status).toBeGreaterThanOrEqual(200);
    expect(note.status).toBeLessThan(300);
  });

  it("accepts APP_URL's own host, with or without Origin, and refuses a foreign Origin on it", async () => {
    await expectInitialized(await POST(mcp("realmgate.test", { host: "realmgate.test" })));
    await expectInitialized(await POST(mcp("realmgate.test", { host: "realmgate.test", origin: "http://realmgate.test" })));
    await expectForbidden(await POST(mcp("realmgate.test", { host: "realmgate.test", origin: "http://evil.example.com" })));
    await expectForbidden(await POST(mcp("realmgate.test", { host: "realmgate.test", origin: "null" })));
    // A browser-based MCP client on this machine (the MCP Inspector) may call.
    await expectInitialized(await POST(mcp("realmgate.test", { host: "realmgate.test", origin: "http://localhost:6274" })));
  });

  it("a name in REALMGATE_ALLOWED_HOSTS is served; a look-alike is not", async () => {
    overrides.set({ REALMGATE_ALLOWED_HOSTS: "mcp.example.org, other.example.org:8443" });
    await expectInitialized(await POST(mcp("10.0.0.5:3000", { host: "mcp.example.org", origin: "https://mcp.example.org" })));
    await expectInitialized(await POST(mcp("10.0.0.5:3000", { host: "other.example.org:8443" })));
    await expectForbidden(await POST(mcp("10.0.0.5:3000", { host: "other.example.org:9443" })));
    await expectForbidden(await POST(mcp("10.0.0.5:3000", { host: "mcp.example.org.evil.example.com" })));
  });
});

describe("forwarded headers at /api/mcp", () => {
  it("ignores X-Forwarded-Host unless the proxy is trusted: a served Host cannot be talked into another one", async () => {
    const headers = { host: "realmgate.test", "x-forwarded-host": "evil.example.com", origin: "http://evil.example.com" };
    // Without trust the Host is realmgate.test and the Origin is foreign.
    await expectForbidden(await POST(mcp("realmgate.test", headers)));
    // Trusted, the forwarded host is the one asked for, and it is not one we serve.
    overrides.set({ REALMGATE_TRUST_PROXY: "1" });
    await expectForbidden(await POST(mcp("realmgate.test", headers)));
  });

  it("a foreign Host cannot be excused by an X-Forwarded-Host naming ours unless the proxy is trusted", async () => {
    const headers = { host: "evil.example.com", "x-forwarded-host": "realmgate.test", "x-forwarded-proto": "http", origin: "http://realmgate.test" };
    await expectForbidden(await POST(mcp("127.0.0.1:3100", headers)));
    overrides.set({ REALMGATE_TRUST_PROXY: "1" });
    await expectInitialized(await POST(mcp("127.0.0.1:3100", headers)));
  });
});
