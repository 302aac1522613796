// The Agents page as people meet it: alice creates an agent, grants it docs search from the page, copies the MCP
// configuration it shows, and an MCP client with that URL and token gets through; after a revoke, the agent's
// denial links to the grant, which she grants again in one click (no consent request). And the OAuth consent
// page with GitHub imported stays under three screens with its areas collapsed, and works from the keyboard.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test, type Page } from "@playwright/test";
import { demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

const base = () => process.env.E2E_BASE_URL!;
const aliceKey = () => ({ authorization: `Bearer ${demo().users.alice!.api_key}` });

async function narrow(page: Page, name: string) {
  await page.setViewportSize({ width: 360, height: 800 });
  await expectAccessible(page);
  await screenshot(page, `${name}-360`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function mcpSearch(url: string, headers: Record<string, string>) {
  const client = new Client({ name: "agents-grant-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  try {
    const r = (await client.callTool({ name: "search_objects", arguments: { namespace: "docs", query: "Q3" } })) as { isError?: boolean; content: { text: string }[] };
    return { isError: !!r.isError, json: JSON.parse(r.content[0]!.text) as { error?: { code: string; details: Record<string, string> } } };
  } finally {
    await client.close().catch(() => {});
  }
}

test.describe.serial("the Agents page", () => {
  const shared: { url?: string; headers?: Record<string, string> } = {};

  test("alice creates an agent, grants it docs search here, and the MCP configuration shown works", async ({ page }) => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: base() });
    await signInAs(page, "alice", "/agents");
    await page.getByLabel("Name", { exact: true }).fill("Grant page helper");
    await page.getByRole("button", { name: "Create agent" }).click();

    // The configuration holds the just-created token; the copy is what is shown.
    const cursor = page.getByLabel(/^Cursor configuration for Grant page helper/);
    await expect(cursor).toBeVisible();
    const config = JSON.parse(await cursor.inputValue()) as { mcpServers: { realmgate: { url: string; headers: Record<string, string> } } };
    expect(config.mcpServers.realmgate.url).toBe(`${base()}/api/mcp`);
    expect(config.mcpServers.realmgate.headers.Authorization).toMatch(/^Bearer rga_/);
    await page.getByRole("button", { name: "Copy the Cursor configuration for Grant page helper" }).click();
    await expect(page.getByText("Copied to the clipboard.")).toBeVisible();
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as typeof config;
    expect(copied).toEqual(config);
    await expect(page.getByLabel(/^Claude Code configuration for Grant page helper/)).toHaveValue(new RegExp(`^claude mcp add --transport http realmgate ${base()}/api/mcp --header "Authorization: Bearer rga_`));
    shared.url = copied.mcpServers.realmgate.url;
    shared.headers = copied.mcpServers.realmgate.headers;

    // Before any grant, the call is refused.
    expect((await mcpSearch(shared.url, shared.headers)).json.error?.code).toBe("consent_required");

    const card = page.getByRole("article", { name: "Grant page helper" });
    await card.getByRole("button", { name: "Grant Grant page helper access" }).click();
    await card.getByLabel("Realm").selectOption({ label: "Docs" });
    await card.getByRole("checkbox", { name: "Search documents and comment threads" }).check();
    await card.getByRole("button", { name: "Grant 1 operation" }).click();
    await expect(card.getByText(/^Saved: Grant page helper can now use 1 operation in Docs/)).toBeVisible();
    await expect(card.locator("[data-grant-id]").first()).toContainText("Search documents and comment threads");

    const ok = await mcpSearch(shared.url, shared.headers);
    expect(ok.isError).toBe(false);
    await expectAccessible(page);
    await screenshot(page, "agents-grant");
    await narrow(page, "agents-grant");
  });

  test("after a revoke, the denial links to the grant and one click grants it again, with no consent request", async ({ page, request }) => {
    const grants = (await (await request.get("/api/v1/grants", { headers: aliceKey() })).json()).grants as { id: string; actor_id: string; operations: string[]; status: string }[];
    const actors = (await (await request.get("/api/v1/actors", { headers: aliceKey() })).json()).actors as { id: string; name: string }[];
    const helper = actors.find((a) => a.name === "Grant page helper")!;
    const live = grants.find((g) => g.actor_id === helper.id && g.status === "live")!;
    expect((await request.delete(`/api/v1/grants/${live.id}`, { headers: aliceKey(), data: { reason: "Checking the re-grant" } })).status()).toBe(200);
    const pendingBefore = (await (await request.get("/api/v1/consent-requests?status=pending", { headers: aliceKey() })).json()).consent_requests.length;

    const denied = await mcpSearch(shared.url!, shared.headers!);
    expect(denied.json.error?.code).toBe("grant_revoked");
    const link = new URL(denied.json.error!.details.connection_hub_url!);
    expect(`${link.pathname}${link.search}`).toBe(`/agents?grant=${live.id}`);
    expect((await (await request.get("/api/v1/consent-requests?status=pending", { headers: aliceKey() })).json()).consent_requests.length).toBe(pendingBefore);

    await signInAs(page, "alice", `${link.pathname}${link.search}`);
    const item = page.locator(`#grant-${live.id}`);
    await expect(item).toBeVisible();
    await expect(item).toContainText("Revoked");
    await expect(item).toContainText("by you");
    await expect(item).toContainText("Checking the re-grant");
    await item.getByRole("button", { name: /^Grant the Docs grant again/ }).click();
    await expect(item.getByText("Saved: Grant page helper has the same operations and scope again.")).toBeVisible();
    expect((await mcpSearch(shared.url!, shared.headers!)).isError).toBe(false);
    await expectAccessible(page);
    await screenshot(page, "agents-regrant");
  });
});

test("the OAuth consent page with GitHub imported: under three screens with areas collapsed, operable by keyboard", async ({ page, request }) => {
  test.setTimeout(240_000);
  const namespace = "github_consent";
  if ((await request.get(`/api/v1/realms/${namespace}`, { headers: aliceKey() })).status() !== 200) {
    const spec = (await import("node:fs")).readFileSync("node_modules/@octokit/openapi/generated/api.github.com.json", "utf8");
    const imported = await request.post("/api/v1/realms/import", { headers: aliceKey(), data: { namespace, spec, base_url: "https://api.github.com" }, timeout: 180_000 });
    expect(imported.status(), await imported.text()).toBe(201);
  }
  const reg = await request.post("/api/oauth/register", { data: { client_name: "E2E big consent client", redirect_uris: ["http://127.0.0.1:9/callback"] } });
  expect(reg.status()).toBe(201);
  const { client_id } = (await reg.json()) as { client_id: string };
  const url = new URL("/oauth/authorize", base());
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id,
    redirect_uri: "http://127.0.0.1:9/callback",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    scope: "realms:read realms:write",
    state: "s",
    resource: `${base()}/api/mcp`,
  }))
    url.searchParams.set(k, v);
  // Afterwards the workspace turns the copy off for agents, so the consent pages of later journeys do not offer it.
  test.info().attach("namespace", { body: namespace });
  try {
    await consentPageChecks(page, url, namespace);
  } finally {
    const states = (await (await request.get(`/api/v1/ceiling?namespace=${namespace}`, { headers: aliceKey() })).json()) as { operations: { operation: string }[] };
    const off = await request.patch("/api/v1/ceiling", { headers: aliceKey(), data: { namespace, changes: states.operations.map((o) => ({ operation: o.operation, enabled: false })) } });
    expect(off.status(), await off.text()).toBe(200);
  }
});

async function consentPageChecks(page: Page, url: URL, namespace: string) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signInAs(page, "alice", `${url.pathname}${url.search}`);
  await expect(page.getByRole("heading", { name: "Connect E2E big consent client" })).toBeVisible();
  const github = page.locator(`[data-realm="${namespace}"]`);
  await expect(github).toContainText(/\d+ operations in GitHub/);
  expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(3 * 800);
  await expectAccessible(page);
  await screenshot(page, "oauth-consent-github");

  // Keyboard: open GitHub's areas, open the first area, tick an operation, select none.
  const showAreas = github.getByRole("button", { name: /^Show the \d+ areas of GitHub/ });
  await showAreas.focus();
  await page.keyboard.press("Enter");
  await expect(github.getByRole("button", { name: /^Hide the \d+ areas of GitHub/ })).toHaveAttribute("aria-expanded", "true");
  const firstArea = github.locator("[data-group] button[aria-expanded]").first();
  await firstArea.focus();
  await page.keyboard.press("Enter");
  await expect(firstArea).toHaveAttribute("aria-expanded", "true");
  const box = github.getByRole("checkbox").first();
  const name = (await box.evaluate((el) => (el as HTMLInputElement).labels?.[0]?.textContent ?? ""))!;
  await expect(github.getByRole("checkbox", { name, exact: true }).first()).toBeVisible(); // the risk is not in the name
  const was = await box.isChecked();
  await box.focus();
  await page.keyboard.press("Space");
  expect(await box.isChecked()).toBe(!was);
  await expectAccessible(page);
  await narrow(page, "oauth-consent-github");
}
