// Search first, then a few exact tools, through the official MCP SDK client against the running app: an agent
// searches, materializes two reads (an imported service's) and one write (docs), is told each time that its tool
// list changed (notifications/tools/list_changed, on the SSE stream before the result), re-lists, calls the exact
// write (consent, then success) and an exact read (against the local service), then materializes a second write
// and the proof shows the first evicted.
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { startHelpdeskServer, type HelpdeskServer } from "../lib/realms/openapi/fixtures/helpdesk-server";
import { demo, newActor } from "./support/helpers";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const base = () => process.env.E2E_BASE_URL!;
const aliceKey = () => ({ authorization: `Bearer ${demo().users.alice!.api_key}` });
let helpdesk: HelpdeskServer;
// Its own namespace: the e2e database is shared with other specs (and may hold an earlier run's imports).
const ns = `ws${Date.now().toString(36)}`;

test.beforeAll(async ({ request }) => {
  helpdesk = await startHelpdeskServer();
  const spec = fs.readFileSync(path.join(process.cwd(), "lib/realms/openapi/fixtures/helpdesk.yaml"), "utf8");
  const res = await request.post("/api/v1/realms/import", {
    headers: aliceKey(),
    data: { namespace: ns, spec, base_url: helpdesk.baseUrl, credential: { type: "header", name: "X-Api-Key", value: "desk-secret" } },
  });
  expect(res.status(), await res.text()).toBe(201);
});
test.afterAll(async () => {
  await helpdesk.close();
});

const call = async (client: Client, name: string, args: Record<string, unknown>) => {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
  return { isError: r.isError === true, json: JSON.parse(r.content[0]!.text) as Json };
};

test("an MCP agent materializes two reads and a write, is told the list changed, calls them, and a second write evicts the first", async ({ request }) => {
  const { token } = await newActor(request, `E2E working set ${ns}`, [
    { namespace: ns, operations: ["object.action.tickets/list", "object.action.tickets/get"] },
    { namespace: "docs", operations: ["object.search", "object.get"] },
  ]);
  const client = new Client({ name: "realmgate-e2e-working-set", version: "1.0.0" });
  const changed: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed.push(Date.now()));
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", base()), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  const generic = (await client.listTools()).tools.map((t) => t.name);
  expect(generic).toHaveLength(9);

  // Search first.
  const found = await call(client, "object_schema", { namespace: ns, query: "list tickets" });
  expect(found.json.matches[0].operation).toBe("object.action.tickets/list");

  // Two reads: each answer names the tool and its bytes, and the client hears that its list changed.
  const list = await call(client, "object_schema", { namespace: ns, operation: "object.action.tickets/list", materialize: true });
  expect(list.isError, JSON.stringify(list.json)).toBe(false);
  expect(list.json.materialized).toMatchObject({ slot: "read" });
  expect(list.json.list_changed).toBe(true);
  const get = await call(client, "object_schema", { namespace: ns, operation: "object.action.tickets/get", materialize: true });
  expect(get.json.catalog).toMatchObject({ reads: 2, writes: 0, budget_bytes: 16384 });
  const reply = await call(client, "object_schema", { namespace: "docs", operation: "object.action.reply_comment", materialize: true });
  expect(reply.json.materialized).toMatchObject({ name: "docs_reply_comment", title: "Reply", slot: "write" });
  expect(reply.json.catalog).toMatchObject({ reads: 2, writes: 1 });
  expect(reply.json.catalog.catalog_bytes).toBeLessThanOrEqual(16384);
  await expect.poll(() => changed.length).toBe(3);

  const listed = (await client.listTools()).tools;
  const names = listed.map((t) => t.name);
  expect(names.slice(0, 9)).toEqual(generic);
  expect(names.slice(9)).toEqual([list.json.materialized.name, get.json.materialized.name, "docs_reply_comment"]);
  const exactReply = listed.find((t) => t.name === "docs_reply_comment")!;
  expect(exactReply.title).toBe("Reply");
  expect(exactReply.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  expect(exactReply.inputSchema).toMatchObject({ required: ["body", "ref"] });
  expect(listed.find((t) => t.name === list.json.materialized.name)!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });

  // The exact write: consent first (the same wall object_action meets), then it runs.
  const threads = await call(client, "search_objects", { namespace: "docs", kind: "docs.comment_thread", query: "beta" });
  const threadRef = threads.json.items[0].ref as string;
  const asked = await call(client, "docs_reply_comment", { ref: threadRef, body: "Agreed (exact tool, via MCP)." });
  expect(asked.isError).toBe(true);
  expect(asked.json.error.code).toBe("consent_required");
  const consentId = asked.json.error.details.consent_request_id as string;
  const approved = await request.post(`/api/v1/consent-requests/${consentId}`, { headers: aliceKey(), data: { decision: "approve" } });
  expect(approved.status(), await approved.text()).toBe(200);
  const done = await call(client, "docs_reply_comment", { ref: threadRef, body: "Agreed (exact tool, via MCP)." });
  expect(done.isError, JSON.stringify(done.json)).toBe(false);
  const thread = await call(client, "get_object", { ref: threadRef });
  expect(JSON.stringify(thread.json)).toContain("exact tool, via MCP");

  // An exact read runs against the imported service.
  const tickets = await call(client, list.json.materialized.name, {});
  expect(tickets.isError, JSON.stringify(tickets.json)).toBe(false);
  expect(helpdesk.requests.some((r) => r.method === "GET" && r.url.startsWith("/api/v2/tickets"))).toBe(true);

  // A second write replaces the first: the proof says so, and the list shows it.
  const resolve = await call(client, "object_schema", { namespace: "docs", operation: "object.action.resolve_thread", materialize: true });
  expect(resolve.json.evicted).toEqual([expect.objectContaining({ name: "docs_reply_comment", reason: "slot_full" })]);
  await expect.poll(() => changed.length).toBe(4);
  expect((await client.listTools()).tools.map((t) => t.name).slice(9)).toEqual([list.json.materialized.name, get.json.materialized.name, "docs_resolve_thread"]);
  // The evicted tool is gone: calling it is an unknown tool (a protocol error), with the way back in its message.
  await expect(client.callTool({ name: "docs_reply_comment", arguments: { ref: threadRef, body: "x" } })).rejects.toThrow(/materialize/);
  await client.close();
});

test("the materializing answer is an SSE stream: the list_changed notification comes before the result", async ({ request }) => {
  const { token } = await newActor(request, `E2E working set SSE ${ns}`, []);
  const res = await fetch(new URL("/api/mcp", base()), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "object_schema", arguments: { namespace: "docs", operation: "object.action.export", materialize: true } } }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const events = (await res.text())
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as Json);
  expect(events.map((e) => e.method ?? `result ${e.id}`)).toEqual(["notifications/tools/list_changed", "result 7"]);
  // Any other call is plain JSON, as before.
  const plain = await fetch(new URL("/api/mcp", base()), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list" }),
  });
  expect(plain.headers.get("content-type")).toContain("application/json");
  const tools = ((await plain.json()) as Json).result.tools as { name: string }[];
  expect(tools.map((t) => t.name)).toContain("docs_export");
});
