// The REST tool route in-process: an actor's calls share one rate budget with its MCP calls.
import { afterEach, describe, expect, it, vi } from "vitest";
import { frozenClock, makeTenant } from "@/test-support";
import { createActor } from "@/lib/authz/actors";
import { createGrant } from "@/lib/authz/grants";
import { reloadEnv } from "@/lib/env";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { mcpResourceUrl } from "@/lib/mcp/config";
import { POST } from "./route";

afterEach(() => {
  vi.useRealTimers();
  delete process.env.MCP_RATE_LIMIT_PER_MINUTE;
  reloadEnv();
});

const restCall = (token: string) =>
  POST(new Request("http://realmgate.test/api/v1/tools/provider_about", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: "{}" }), {
    params: Promise.resolve({ tool: "provider_about" }),
  });
const mcpCall = (token: string) =>
  mcpPost(
    new Request(mcpResourceUrl(), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
  );

describe("POST /api/v1/tools/:tool", () => {
  it("limits each actor across REST and MCP together: 429 with Retry-After", async () => {
    const t = await makeTenant({ alice: "owner" });
    const { actor, token } = await createActor(t.db, t.users.alice!, { name: "Two-transport agent", kind: "automation", issue_token: true, token_expires_in_days: null });
    await createGrant(t.db, t.users.alice!, { actor_id: actor.id, namespace: "docs", operations: ["provider.about"], resource_scope: null, expires: "1d" });
    process.env.MCP_RATE_LIMIT_PER_MINUTE = "3";
    reloadEnv();
    // The clock stands still: all four calls land in the same one-minute window.
    frozenClock();
    const statuses = [(await restCall(token!.token)).status, (await restCall(token!.token)).status, (await mcpCall(token!.token)).status];
    const fourth = await mcpCall(token!.token);
    // Separate budgets would let the MCP calls through; one shared budget of 3 refuses the fourth call.
    expect([...statuses, fourth.status]).toEqual([200, 200, 200, 429]);
    expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("answers a person's API key without counting against any actor", async () => {
    const t = await makeTenant({ alice: "owner" });
    const { createApiKey } = await import("@/lib/authz/api-keys");
    const { key } = await createApiKey(t.db, t.users.alice!, "k");
    process.env.MCP_RATE_LIMIT_PER_MINUTE = "1";
    reloadEnv();
    for (let i = 0; i < 3; i++) expect((await restCall(key)).status).toBe(200);
  });
});
