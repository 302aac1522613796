// Remote providers in the UI: alice (owner) registers a provider by URL — a tiny one this spec serves on
// 127.0.0.1 — sees its signing secret once, finds its realm card; an invalid manifest shows its problems and
// registers nothing; a one-time token comes with the provider's instructions (and works); "Check manifest now"
// says unchanged / updated / now unavailable; removal asks first and takes the realm away. Bob (member) is told
// only an owner registers providers. Axe clean in light and dark at 1280 and 360 px.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { remoteManifestDocument } from "./fixtures/remote-manifest";
import { accessibleEveryWay, demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

// Unique to this spec: other specs share the database.
const NS = "tickets_e2e";
const SELF_NS = "tickets_e2e_self";
const TITLE = "Ticket desk (e2e)";
const SELF_TITLE = "Self-registered desk (e2e)";

/** What the provider serves at /good: its version can move on, or its manifest can break (the check reports it). */
const state = { version: "1", broken: false };
let server: http.Server;
let base = "";

/** A manifest that fails: not a remote realm, and a ref_pattern that is no template of the namespace. */
function invalidDocument() {
  const d = remoteManifestDocument("tickets_bad_e2e");
  return { ...d, manifest: { ...d.manifest, realm_type: "native", kinds: d.manifest.kinds.map((k) => ({ ...k, ref_pattern: "ticket-<id>" })) } };
}

function manifestFor(path: string): unknown {
  if (path === "/good/manifest") return state.broken ? invalidDocument() : remoteManifestDocument(NS, state.version);
  if (path === "/bad/manifest") return invalidDocument();
  if (path === "/self/manifest") {
    const d = remoteManifestDocument(SELF_NS);
    return { ...d, manifest: { ...d.manifest, service_card: { ...d.manifest.service_card, title: SELF_TITLE } } };
  }
  return null;
}

test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const doc = req.method === "GET" ? manifestFor(path) : null;
    // Signed operations are not this spec's subject: an honest liveness answer is enough for any page that asks.
    const body = doc ?? (req.method === "POST" && path.includes("/ops/") ? { manifest_version: state.version, result: { status: "ok", notes: [] } } : null);
    res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(body ?? { error: { code: "not_found", message: "no such path" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

const alice = () => ({ authorization: `Bearer ${demo().users.alice!.api_key}` });

async function removeOurs(request: APIRequestContext) {
  const res = await request.get("/api/v1/remote-providers", { headers: alice() });
  const { providers } = (await res.json()) as { providers: { id: string; namespace: string }[] };
  for (const p of providers.filter((x) => x.namespace === NS || x.namespace === SELF_NS)) await request.delete(`/api/v1/remote-providers/${p.id}`, { headers: alice() });
}

test.afterAll(async ({ request }) => {
  await removeOurs(request);
  await new Promise((r) => server.close(r));
});


test("an owner registers, checks and removes a remote provider in the UI", async ({ page, request }) => {
  test.setTimeout(240_000);
  await removeOurs(request);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInAs(page, "alice", "/admin/providers");
  await expect(page.getByRole("heading", { level: 1, name: "Remote providers" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Providers" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Loading the registered providers" })).toHaveCount(0);
  await expectAccessible(page);
  await screenshot(page, "providers-start");

  // An invalid manifest: every problem listed, nothing registered.
  const url = page.getByLabel("Provider URL");
  await url.fill(`${base}/bad`);
  await page.getByRole("button", { name: "Register provider" }).click();
  const refused = page.getByRole("alert").filter({ hasText: "Nothing was registered" });
  await expect(refused).toBeVisible();
  await expect(refused).toContainText('manifest.realm_type must be "remote"');
  await expect(refused).toContainText('its ref_pattern "ticket-<id>" must start with "tickets_bad_e2e:"');
  const none = (await (await request.get("/api/v1/remote-providers", { headers: alice() })).json()) as { providers: { namespace: string }[] };
  expect(none.providers.map((p) => p.namespace)).not.toContain("tickets_bad_e2e");

  // The valid one: registered, the secret shown once with what the provider needs beside it.
  await url.fill(`${base}/good`);
  await page.getByRole("button", { name: "Register provider" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Registered ${TITLE} as “${NS}”` })).toBeVisible();
  await expect(refused).toHaveCount(0);
  await expect(page.getByText("The signing secret is shown once")).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Signing secret" })).toHaveValue(/^rgs_/);
  await expect(page.getByRole("textbox", { name: "Registration id" })).toHaveValue(/^rrp_/);
  await expect(page.getByRole("textbox", { name: "Tenant id" })).toHaveValue(demo().tenant.id);
  await expect(url).toHaveValue("");

  const item = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: `${TITLE} ${NS}`, exact: true }) });
  await expect(item.getByRole("link", { name: TITLE })).toHaveAttribute("href", `/realms/${NS}`);
  await expect(item).toContainText("Active");
  await expect(item).toContainText(`${base}/good`);
  await expect(item).toContainText("version 1 · 1 kind · 1 action");
  await expect(item).toContainText("By URL");

  // Self-registration: a one-time token with the exact call the provider makes; the token works once.
  await page.getByRole("button", { name: "Mint a registration token" }).click();
  const token = await page.getByRole("textbox", { name: "Registration token" }).inputValue();
  expect(token).toMatch(/^rgr_/);
  const origin = new URL(page.url()).origin;
  await expect(page.getByText(`POST ${origin}/api/v1/remote-providers/register`)).toBeVisible();
  await expect(page.getByText("Authorization: Bearer <token>")).toBeVisible();
  await expect(page.getByText(`REALMGATE_REGISTRATION_TOKEN=${token}`)).toBeVisible();
  await expect(page.getByText(`REALMGATE_URL=${origin}`)).toBeVisible();
  const self = await request.post("/api/v1/remote-providers/register", { headers: { authorization: `Bearer ${token}` }, data: { url: `${base}/self` } });
  expect(self.status(), await self.text()).toBe(201);
  const again = await request.post("/api/v1/remote-providers/register", { headers: { authorization: `Bearer ${token}` }, data: { url: `${base}/self` } });
  expect(again.status()).toBe(401);

  // Check now: unchanged, then updated when the provider's version moves on, then unavailable when it breaks.
  const check = item.getByRole("button", { name: `Check manifest now for ${TITLE}` });
  await check.click();
  await expect(item.getByRole("status")).toContainText("Manifest unchanged (version 1)");
  state.version = "2";
  await check.click();
  await expect(item.getByRole("status")).toContainText("Manifest updated: version 2 is in use");
  await expect(item).toContainText("version 2 · 1 kind · 1 action");
  state.broken = true;
  await check.click();
  await expect(item.getByRole("status")).toContainText(`${TITLE} is now unavailable`);
  await expect(item.getByRole("status")).toContainText('manifest.realm_type must be "remote"');
  await expect(item).toContainText("Unavailable");
  await expect(item).toContainText("Why: manifest.realm_type must be");
  await expect(check).toBeFocused();

  await accessibleEveryWay(page, "providers-owner");

  state.broken = false;
  await check.click();
  await expect(item.getByRole("status")).toContainText("Manifest updated");
  await expect(item).toContainText("Active");

  // The secret was shown once: a reload has it no more, the registration stays.
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Remote providers" })).toBeVisible();
  await expect(item.getByRole("link", { name: TITLE })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Signing secret" })).toHaveCount(0);
  await expect(page.getByText(/^rgs_/)).toHaveCount(0);
  const selfItem = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: `${SELF_TITLE} ${SELF_NS}`, exact: true }) });
  await expect(selfItem).toContainText("Registered itself");

  // Its realm card is on /realms.
  await page.goto("/realms");
  await expect(page.getByRole("article", { name: TITLE }).first()).toBeVisible();
  await expect(page.getByRole("article", { name: TITLE }).first()).toContainText("Remote service");

  // Removal asks first, naming the provider and what happens; Cancel changes nothing and returns focus.
  await page.goto("/admin/providers");
  const removeButton = item.getByRole("button", { name: `Remove ${TITLE}` });
  await removeButton.click();
  const dialog = page.getByRole("dialog", { name: `Remove ${TITLE}?` });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("agents lose it at once, and grants to it cover nothing");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await expectAccessible(page);
  await screenshot(page, "providers-remove-dialog");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(removeButton).toBeFocused();

  await removeButton.click();
  await dialog.getByRole("button", { name: `Yes, remove ${TITLE}` }).click();
  await expect(page.getByRole("status").filter({ hasText: `Removed ${TITLE}` })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: `Removed ${TITLE}` })).toBeFocused();
  await expect(item).toHaveCount(0);
  await expect(page.getByRole("link", { name: TITLE, exact: true })).toHaveCount(0);
  await page.goto("/realms");
  await expect(page.getByRole("heading", { level: 1, name: "Realms" })).toBeVisible();
  await expect(page.getByRole("article", { name: TITLE })).toHaveCount(0);
  await expect(page.getByRole("article", { name: SELF_TITLE })).toBeVisible();

  // The rest goes the same way; the list ends empty with its empty state.
  await page.goto("/admin/providers");
  await page.getByRole("button", { name: `Remove ${SELF_TITLE}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: `Yes, remove ${SELF_TITLE}` }).click();
  await expect(page.getByRole("status").filter({ hasText: `Removed ${SELF_TITLE}` })).toBeVisible();
  const left = (await (await request.get("/api/v1/remote-providers", { headers: alice() })).json()) as { providers: unknown[] };
  if (left.providers.length === 0) await expect(page.getByText("No provider registered yet")).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "providers-after-remove");
});

test("a member is told only an owner registers providers", async ({ page }) => {
  test.setTimeout(120_000);
  await signInAs(page, "bob", "/admin/providers");
  await expect(page.getByRole("heading", { level: 1, name: "Remote providers" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Only a workspace owner registers providers" })).toBeVisible();
  await expect(page.getByLabel("Provider URL")).toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Providers" })).toHaveCount(0);
  await accessibleEveryWay(page, "providers-member");
});
