// The named-services seed's trace over MCP, against the local Slack (dev/fake-slack.ts, as `npm run dev` starts
// it): an agent's search meets gate two, alice connects her Acme workspace through the Connection Hub in
// Chromium, then search → one hit, the channel window at that message → three file refs, three signed URLs →
// three PNGs (by their signature bytes) — no Slack token and no file bytes in any tool result. Then: a
// `missing_scope` answer becomes a claim upgrade one hub visit fixes; a 429 becomes rate_limited with
// Retry-After; a second workspace makes the account ambiguous (the candidates are listed); disconnecting stops
// the old signed URLs.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { devSlack, SLACK_SEED } from "./fixtures/slack";
import { demo, expectAccessible, newActor, screenshot, signInAs } from "./support/helpers";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const base = () => process.env.E2E_BASE_URL!;
const alice = () => ({ authorization: `Bearer ${demo().users.alice!.api_key}` });
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const READS = ["provider.about", "object.schema", "object.list", "object.search", "object.get"];

/** Every tool result text this spec saw: none may carry a Slack token or a file's bytes. */
const seen: string[] = [];

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
  const text = r.content[0]!.text;
  seen.push(text);
  return { isError: r.isError === true, json: JSON.parse(text) as Json };
}

async function slackAccounts(request: APIRequestContext): Promise<{ id: string; label: string; name: string; api: string }[]> {
  const res = await request.get("/api/v1/accounts", { headers: alice() });
  return ((await res.json()) as { accounts: { id: string; label: string; name: string; api: string }[] }).accounts.filter((a) => a.api === "slack");
}

/** At the local Slack's sign-in page: who and which workspace, then Allow. */
async function allowAtSlack(page: Page, workspace: "Acme" | "Beta Labs") {
  await expect(page.getByRole("heading", { name: "Local Slack" })).toBeVisible();
  await page.getByRole("radio", { name: /Alice Owner/ }).check();
  await page.getByRole("radio", { name: workspace, exact: true }).check();
  await page.getByRole("button", { name: "Allow" }).click();
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  // A shared database may hold an earlier run's Slack accounts of alice's.
  for (const a of await slackAccounts(request)) await request.delete(`/api/v1/accounts/${a.id}`, { headers: alice() });
});

test.afterAll(async ({ request }) => {
  await devSlack().setMode("normal");
  for (const a of await slackAccounts(request)) await request.delete(`/api/v1/accounts/${a.id}`, { headers: alice() });
});

test("the seed's trace over MCP: connect in the hub, search → window → three files → three PNGs, never a token or bytes in a result", async ({ page, request }) => {
  const { token } = await newActor(request, "E2E Slack trace", [{ namespace: "slack", operations: READS }]);
  const client = new Client({ name: "realmgate-e2e-slack", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", base()), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const query = { namespace: "slack", kind: "slack.message", query: "макеты in:#launch" };

  // Gate two: no Slack account yet. The demand links the hub.
  const wall = await call(client, "search_objects", query);
  expect(wall.isError).toBe(true);
  expect(wall.json.error).toMatchObject({ code: "needs_connected_account_consent", details: { reason: "connect_required" } });
  const link = new URL(wall.json.error.details.connection_hub_url as string);
  await signInAs(page, "alice", `${link.pathname}${link.search}`);
  await expect(page.getByRole("heading", { name: "Connect an account", level: 1 })).toBeVisible();
  await expectAccessible(page);
  await page.getByRole("button", { name: /^Connect / }).click();
  await allowAtSlack(page, "Acme");
  await page.waitForURL((u) => u.href.startsWith(`${base()}/connections/fix`));
  await expect(page.getByText("Account connected.")).toBeVisible();
  await screenshot(page, "slack-connected");
  const [acme] = await slackAccounts(request);
  expect(acme!.label).toContain("Acme");

  // search → one hit, whose ref is the channel windowed at the message.
  const found = await call(client, "search_objects", query);
  expect(found.isError, JSON.stringify(found.json)).toBe(false);
  expect(found.json.items).toHaveLength(1);
  const hit = found.json.items[0] as { ref: string; summary: string };
  expect(hit.ref).toBe(`slack:${acme!.id}:channel:${SLACK_SEED.channels.launch.id}@${SLACK_SEED.launchMessage.ts}`);
  expect(hit.summary).toContain("Макеты готовы");

  // The window at that message: the message with its three files.
  const window = await call(client, "get_object", { ref: hit.ref });
  expect(window.isError, JSON.stringify(window.json)).toBe(false);
  const message = (window.json.messages as Json[]).find((m) => m.ts === SLACK_SEED.launchMessage.ts)!;
  expect(message.text).toContain("the mockups are ready");
  const files = message.files as { ref: string }[];
  expect(files).toHaveLength(3);

  // Files are a permission of their own (slack:files:read), asked for only now: one hub visit adds it.
  const first = await call(client, "get_object", { ref: files[0]!.ref });
  expect(first.json.error).toMatchObject({ code: "needs_connected_account_consent", details: { reason: "claim_upgrade_required", missing_claims: ["slack:files:read"] } });
  const upgrade = new URL(first.json.error.details.connection_hub_url as string);
  await page.goto(`${upgrade.pathname}${upgrade.search}`);
  await expectAccessible(page);
  await page.getByRole("button", { name: /^Allow / }).click();
  await allowAtSlack(page, "Acme");
  await page.waitForURL((u) => u.href.startsWith(`${base()}/connections/fix`));
  await expect(page.getByText("Permission added.")).toBeVisible();

  // Each file: metadata and a signed URL; fetching it streams a PNG.
  const urls: string[] = [];
  const bodies = new Set<string>();
  for (const f of files) {
    const got = await call(client, "get_object", { ref: f.ref });
    expect(got.isError, JSON.stringify(got.json)).toBe(false);
    expect(got.json).toMatchObject({ kind: "slack.file", mimetype: "image/png", download: { encoding: "url" } });
    const url = got.json.download.url as string;
    expect(new URL(url).origin).toBe(base());
    urls.push(url);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("image/png");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 8)]).toEqual(PNG);
    bodies.add(Buffer.from(bytes).toString("base64"));
  }
  expect(bodies.size).toBe(3);

  // No tool result carried a Slack token or any file's bytes.
  const state = await devSlack().state();
  const tokens = state.tokens.map((t) => t.token);
  for (const text of seen) {
    expect(text).not.toMatch(/xox[pboa]-/);
    for (const t of tokens) expect(text).not.toContain(t);
    for (const b of bodies) expect(text).not.toContain(b.slice(0, 40));
    expect(text).not.toContain("iVBORw0KGgo");
  }
  await client.close();
  test.info().annotations.push({ type: "urls", description: urls.join(" ") });
  // Kept for the last test: disconnecting stops them.
  process.env.E2E_SLACK_OLD_URLS = urls.join(" ");
});

test("a missing_scope answer from Slack becomes a claim upgrade one hub visit fixes", async ({ page, request }) => {
  const { token } = await newActor(request, "E2E Slack files", [{ namespace: "slack", operations: READS }]);
  const agent = { authorization: `Bearer ${token}` };
  const [acme] = await slackAccounts(request);
  // The workspace's admin took files:read away from Realmgate's token (Realmgate still believes it holds it).
  const slack = devSlack();
  const live = (await slack.state()).tokens.filter((t) => t.team === SLACK_SEED.teams.acme.id && t.via === "oauth" && !t.revoked).at(-1)!;
  await slack.setScopes(live.token, live.scopes.filter((s) => s !== "files:read"));
  const file = `slack:${acme!.id}:file:${SLACK_SEED.files[0]!.id}`;
  const get = () => request.post("/api/v1/tools/get_object", { headers: agent, data: { ref: file } });
  const refused = await get();
  expect(refused.status()).toBe(403);
  const body = (await refused.json()) as Json;
  expect(body.error).toMatchObject({ code: "needs_connected_account_consent", details: { reason: "claim_upgrade_required" } });
  expect(JSON.stringify(body.error.details)).toContain("slack:files:read");
  const link = new URL(body.error.details.connection_hub_url as string);
  await signInAs(page, "alice", `${link.pathname}${link.search}`);
  await expectAccessible(page);
  await screenshot(page, "slack-upgrade");
  await page.getByRole("button", { name: /^Allow / }).click();
  await allowAtSlack(page, "Acme");
  await page.waitForURL((u) => u.href.startsWith(`${base()}/connections/fix`));
  await expect(page.getByText("Permission added.")).toBeVisible();
  const fixed = await get();
  expect(fixed.status(), await fixed.text()).toBe(200);
});

test("Slack's 429 is rate_limited with Retry-After; nothing is retried", async ({ request }) => {
  const { token } = await newActor(request, "E2E Slack limits", [{ namespace: "slack", operations: READS }]);
  const slack = devSlack();
  await slack.setMode("ratelimited", { retryAfter: 7 });
  try {
    const before = (await slack.state()).requests.length;
    const res = await request.post("/api/v1/tools/search_objects", { headers: { authorization: `Bearer ${token}` }, data: { namespace: "slack", kind: "slack.message", query: "mockups" } });
    expect(res.status()).toBe(429);
    expect(res.headers()["retry-after"]).toBe("7");
    expect(((await res.json()) as Json).error.code).toBe("rate_limited");
    const calls = (await slack.state()).requests.slice(before).filter((r) => r.method === "search.messages");
    expect(calls.map((r) => r.status)).toEqual([429]);
  } finally {
    await slack.setMode("normal");
  }
});

test("two workspaces: an unnamed account is ambiguous and the candidates are listed; disconnecting stops the old signed URLs", async ({ page, request }) => {
  const { token } = await newActor(request, "E2E Slack two workspaces", [{ namespace: "slack", operations: READS }]);
  const agent = { authorization: `Bearer ${token}` };
  await signInAs(page, "alice", "/connections");
  await expect(page.getByRole("heading", { name: "Connections", level: 1 })).toBeVisible();
  await page.getByLabel("Provider").selectOption({ label: "Local Slack" });
  await page.getByRole("button", { name: "Connect Local Slack" }).click();
  await allowAtSlack(page, "Beta Labs");
  await page.waitForURL((u) => u.href.startsWith(`${base()}/connections`));
  await expect(page.getByRole("list", { name: "Connected accounts" })).toContainText("Beta Labs");
  await expectAccessible(page);
  await screenshot(page, "slack-two-workspaces");

  const list = await request.post("/api/v1/tools/list_objects", { headers: agent, data: { namespace: "slack", kind: "slack.channel" } });
  expect(list.status()).toBe(409);
  const ambiguous = (await list.json()) as Json;
  expect(ambiguous.error.code).toBe("ambiguous_selector");
  const labels = JSON.stringify(ambiguous.error.details);
  expect(labels).toContain("Acme");
  expect(labels).toContain("Beta Labs");

  // Disconnect Acme: the trace's signed URLs stop working before they expire.
  const acme = (await slackAccounts(request)).find((a) => a.label.includes("Acme"))!;
  expect((await request.delete(`/api/v1/accounts/${acme.id}`, { headers: alice() })).status()).toBe(200);
  const old = (process.env.E2E_SLACK_OLD_URLS ?? "").split(" ").filter(Boolean);
  expect(old).toHaveLength(3);
  for (const url of old) expect((await fetch(url)).status).toBe(403);
});
