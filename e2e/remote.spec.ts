// A remote realm end to end: the example freight provider (examples/freight) runs as its own process, registered
// itself in the demo tenant with a one-time token, and an agent that never saw it does the recipe's task over MCP
// from the answers alone: the realms, the schema root, a capability search, the exact contract, an overdue shipment,
// a reschedule (consent, then success), a proof of delivery through an upload slot, and its bytes back through a
// Realmgate link. Then: the provider killed → provider_unavailable within its timeout, and back → it works again;
// the card reads well to a person; discovery names the owner of a ref.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { freightControl } from "./fixtures/freight";
import { demo, expectAccessible, newActor, screenshot, signInAs } from "./support/helpers";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const base = () => process.env.E2E_BASE_URL!;
const alice = () => ({ authorization: `Bearer ${demo().users.alice!.api_key}` });
const READS = ["provider.about", "object.schema", "object.list", "object.search", "object.get"];
/** A minimal PDF: what a driver's phone would upload as a proof of delivery. */
const POD = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n");

test.describe.configure({ mode: "serial" });

let calls = 0;
let bytes = 0;
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
  const text = r.content[0]!.text;
  calls++;
  bytes += text.length;
  return { isError: r.isError === true, json: JSON.parse(text) as Json };
}

async function waitForFreight(request: import("@playwright/test").APIRequestContext) {
  await freightControl().ready();
  await expect.poll(async () => (await request.get("/api/v1/realms/freight", { headers: alice() })).status(), { timeout: 60_000 }).toBe(200);
}

test("an agent that never saw freight does the recipe over MCP: search, contract, overdue shipment, reschedule after consent, proof of delivery", async ({ request, page }) => {
  await waitForFreight(request);
  const { token } = await newActor(request, "E2E Dispatch helper", [{ namespace: "freight", operations: [...READS, "object.action.attach_pod"] }]);
  const client = new Client({ name: "realmgate-e2e-freight", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", base()), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));

  // What is there? The realms, then freight's schema root.
  const about = await call(client, "provider_about", {});
  expect((about.json.realms as Json[]).map((r) => r.namespace)).toContain("freight");
  const root = await call(client, "object_schema", { namespace: "freight" });
  expect(root.isError, JSON.stringify(root.json)).toBe(false);

  // Search by intent, then the exact contract of what it found.
  const found = await call(client, "object_schema", { namespace: "freight", query: "reschedule a shipment" });
  expect(found.isError, JSON.stringify(found.json)).toBe(false);
  expect(JSON.stringify(found.json)).toContain("object.action.reschedule");
  const contract = await call(client, "object_schema", { namespace: "freight", operation: "object.action.reschedule" });
  expect(contract.isError, JSON.stringify(contract.json)).toBe(false);
  expect(JSON.stringify(contract.json)).toContain("due_at");

  // An overdue shipment.
  const overdue = await call(client, "list_objects", { namespace: "freight", kind: "freight.shipment", filter: { overdue_days: 1 } });
  expect(overdue.isError, JSON.stringify(overdue.json)).toBe(false);
  const items = overdue.json.items as { ref: string; label: string }[];
  expect(items.length).toBeGreaterThan(0);
  const shipment = items[0]!.ref;
  expect(shipment).toMatch(/^freight:shipment:/);

  // Reschedule: not granted → consent (alice approves exactly this) → the retry runs, inside the provider's rules.
  const due = new Date(Date.now() + 3 * 86_400_000).toISOString();
  const reschedule = { ref: shipment, action: "reschedule", payload: { due_at: due, reason: "Carrier confirmed a new slot" } };
  const asked = await call(client, "object_action", reschedule);
  expect(asked.isError).toBe(true);
  expect(asked.json.error.code).toBe("consent_required");
  // The consent page reads the new due date as a date and time, not as the ISO text the agent sent.
  await signInAs(page, "alice", new URL(asked.json.error.details.connection_hub_url as string).pathname);
  const askedCall = page.getByRole("region", { name: "The request that asked for this" });
  await expect(askedCall.locator(`time[datetime="${due}"]`)).toBeVisible();
  await expect(askedCall.getByText(due)).toHaveCount(0);
  const approve = await request.post(`/api/v1/consent-requests/${asked.json.error.details.consent_request_id}`, { headers: alice(), data: { decision: "approve", expires: "1h" } });
  expect(approve.status(), await approve.text()).toBe(200);
  const done = await call(client, "object_action", reschedule);
  expect(done.isError, JSON.stringify(done.json)).toBe(false);
  const after = await call(client, "get_object", { ref: shipment });
  expect(Date.parse(after.json.due_at as string)).toBe(Date.parse(due));

  // A proof of delivery through an upload slot: the bytes go to Realmgate's slot, never through a tool result.
  const slot = await call(client, "object_action", { ref: shipment, action: "attach_pod", payload: { filename: "pod-signed.pdf", content_type: "application/pdf" } });
  expect(slot.isError, JSON.stringify(slot.json)).toBe(false);
  const upload = slot.json.upload as { method: string; url: string };
  expect(upload.method).toBe("PUT");
  expect(new URL(upload.url).origin).toBe(base());
  const put = await fetch(upload.url, { method: "PUT", headers: { "content-type": "application/pdf" }, body: POD });
  expect(put.status, await put.clone().text()).toBe(200);
  const made = (await put.json()) as { document: string };
  expect(made.document).toMatch(/^freight:document:/);
  // Once only.
  expect((await fetch(upload.url, { method: "PUT", headers: { "content-type": "application/pdf" }, body: POD })).status).toBe(403);

  // Its bytes come back through a Realmgate link that streams from the provider.
  const doc = await call(client, "get_object", { ref: made.document });
  expect(doc.isError, JSON.stringify(doc.json)).toBe(false);
  const link = doc.json.content as { encoding: string; url: string };
  expect(link.encoding).toBe("url");
  const got = await fetch(link.url);
  expect(got.status).toBe(200);
  expect(Buffer.from(await got.arrayBuffer()).equals(POD)).toBe(true);
  expect(JSON.stringify(doc.json)).not.toContain("%PDF");

  test.info().annotations.push({ type: "agent", description: `${calls} tool calls, ${bytes} bytes of answers` });
  console.log(`[remote] the recipe took ${calls} tool calls and ${bytes} bytes of answers`);
  await client.close();
});

test("killing the freight process: provider_unavailable within its timeout; back up, it answers again", async ({ request }) => {
  await waitForFreight(request);
  const { token } = await newActor(request, "E2E Freight outage", [{ namespace: "freight", operations: READS }]);
  const list = () => request.post("/api/v1/tools/list_objects", { headers: { authorization: `Bearer ${token}` }, data: { namespace: "freight", kind: "freight.carrier" } });
  expect((await list()).status()).toBe(200);
  await freightControl().stop();
  try {
    const started = Date.now();
    const down = await list();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(down.status()).toBe(502);
    expect((await down.json()).error).toMatchObject({ code: "provider_unavailable", details: { provider: "freight", reason: "unreachable" } });
  } finally {
    await freightControl().start();
  }
  await expect.poll(async () => (await list()).status(), { timeout: 20_000 }).toBe(200);
});

test("discovery names the realm that owns a ref, a kind or an operation; the card reads well to alice", async ({ page, request }) => {
  await waitForFreight(request);
  const byRef = await request.get("/api/v1/realms/resolve?ref=freight:shipment:abc123", { headers: alice() });
  expect(await byRef.json()).toMatchObject({ matches: [{ namespace: "freight", realm_type: "remote", kind: "freight.shipment" }] });
  const byOp = await request.get("/api/v1/realms/resolve?operation=object.action.assign_carrier", { headers: alice() });
  expect((await byOp.json()).matches.map((m: Json) => m.namespace)).toEqual(["freight"]);
  const reserved = await request.get("/api/v1/realms/resolve?ref=resolve:x:y", { headers: alice() });
  expect(reserved.status()).toBe(404);

  await page.setViewportSize({ width: 1280, height: 900 });
  await signInAs(page, "alice", "/realms/freight");
  await expect(page.getByRole("heading", { level: 1 })).toContainText(/Freight/);
  await expect(page.getByText("Remote service").first()).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "remote-freight-realm-1280");
  await page.setViewportSize({ width: 360, height: 800 });
  await expectAccessible(page);
  await screenshot(page, "remote-freight-realm-360");
});
