// Importing an OpenAPI service as a realm: alice (owner) uploads the Helpdesk document in the UI, previews and
// applies it, curates an operation; then an agent-style caller finds an operation by capability search,
// runs it against the local Helpdesk service, and sees the service's 5xx come back as provider_unavailable.
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { startHelpdeskServer, type HelpdeskServer } from "../lib/realms/openapi/fixtures/helpdesk-server";
import { demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

type Json = Record<string, unknown>;
let helpdesk: HelpdeskServer;

test.beforeAll(async () => {
  helpdesk = await startHelpdeskServer();
});
test.afterAll(async () => {
  await helpdesk.close();
});

async function tool(request: APIRequestContext, key: string, name: string, input: unknown) {
  const res = await request.post(`/api/v1/tools/${name}`, { headers: { authorization: `Bearer ${key}` }, data: input });
  return { status: res.status(), body: (await res.json()) as Json };
}

test("an owner imports a service in the UI, curates it, and its operations run through the nine tools", async ({ page, request }) => {
  await signInAs(page, "alice", "/admin/imports");
  await expect(page.getByRole("heading", { name: "Imported services" })).toBeVisible();
  await expectAccessible(page);

  await page.getByLabel("Namespace").fill("helpdesk");
  await page.getByLabel(/OpenAPI document file/).setInputFiles(path.join(process.cwd(), "lib/realms/openapi/fixtures/helpdesk.yaml"));
  await page.getByLabel("Service base URL (optional)").fill(helpdesk.baseUrl);
  await page.getByLabel("Kind").selectOption("header");
  await page.getByLabel("Header name").fill("X-Api-Key");
  await page.getByLabel("Key", { exact: true }).fill("desk-secret");

  await page.getByRole("button", { name: "Preview changes" }).click();
  await expect(page.getByText(/Preview: importing Helpdesk as “helpdesk”/)).toBeVisible();
  await expect(page.getByText("Added (12):")).toBeVisible();
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByText(/Imported Helpdesk as “helpdesk” \(version 1\)/)).toBeVisible();
  await expect(page.getByRole("link", { name: "Curate Helpdesk" })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "openapi-import");

  // Curation: hide the destructive operation; agents stop seeing it on their next call.
  await page.getByRole("link", { name: "Curate its operations" }).click();
  await expect(page.getByRole("heading", { name: "Curate helpdesk" })).toBeVisible();
  await page.getByLabel("Find operations").fill("delete");
  await expect(page.getByText("1 of 12 operations match")).toBeVisible();
  // A controlled checkbox: the optimistic update lands a moment after the click.
  await page.getByLabel("Hide tickets/delete").click();
  await expect(page.getByLabel("Hide tickets/delete")).toBeChecked();
  await expect(page.getByText("1 hidden")).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "openapi-curate");

  const key = demo().users.alice!.api_key;
  // Searched within the imported realm: the shared e2e database holds other imported services by now.
  const found = await tool(request, key, "object_schema", { namespace: "helpdesk", query: "find a person by name" });
  expect(found.status).toBe(200);
  expect((found.body.matches as Json[])[0]).toMatchObject({ namespace: "helpdesk", operation: "object.action.GET/search/person", endpoint: "GET /search/person" });

  const contract = await tool(request, key, "object_schema", { namespace: "helpdesk", operation: "object.action.GET/search/person" });
  expect(contract.body).toMatchObject({ tool: "object_action", risk: "read", payload_schema: { required: ["q"] } });

  const ran = await tool(request, key, "object_action", { namespace: "helpdesk", action: "GET/search/person", payload: { q: "ada" } });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  expect(ran.body).toMatchObject({ status: 200, body: { items: [{ login: "ada" }] } });
  const seen = helpdesk.requests.at(-1)!;
  expect(seen.url).toBe("/api/v2/search/person?q=ada");
  expect(seen.headers["x-api-key"]).toBe("desk-secret");

  const bad = await tool(request, key, "object_action", { namespace: "helpdesk", action: "people/get", payload: { login: "../admin" } });
  expect(bad.status).toBe(400);
  expect((bad.body.error as Json).code).toBe("invalid_input");

  const hidden = await tool(request, key, "object_action", { namespace: "helpdesk", action: "tickets/delete", payload: { ticket_id: 1 } });
  expect(hidden.status).toBe(400);

  helpdesk.down = true;
  try {
    const down = await tool(request, key, "object_action", { namespace: "helpdesk", action: "meta/status" });
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({ code: "provider_unavailable", details: { status: 503, service_message: "The desk is down for maintenance" } });
  } finally {
    helpdesk.down = false;
  }
});

test("the capability picker stays usable for GitHub's 1,000+ operations: virtualized, searchable, keyboard, bulk", async ({ page, request }) => {
  const alice = demo().users.alice!;
  const spec = (await import("node:fs")).readFileSync("node_modules/@octokit/openapi/generated/api.github.com.json", "utf8");
  const imported = await request.post("/api/v1/realms/import", {
    headers: { authorization: `Bearer ${alice.api_key}` },
    data: { namespace: "github", spec, base_url: "https://api.github.com" },
    timeout: 120_000,
  });
  expect(imported.status(), await imported.text()).toBe(201);
  const total = ((await imported.json()) as { operations: { total: number } }).operations.total;
  expect(total).toBeGreaterThan(1000);

  await signInAs(page, "alice", "/realms/github");
  await page.getByRole("radio", { name: "Whole workspace (owner)" }).check();
  const scroller = page.getByTestId("operation-scroller");
  await expect(scroller).toBeVisible();
  // A realm this big starts with its areas collapsed: open the biggest one.
  await page.getByRole("navigation", { name: "Areas of this realm" }).getByRole("link", { name: /^Repos \(\d+\)$/ }).click();
  // Only a window of rows exists in the page, however many operations there are.
  const rendered = await scroller.getByRole("switch").count();
  expect(rendered).toBeGreaterThan(3);
  expect(rendered).toBeLessThan(80);
  await expectAccessible(page);
  await screenshot(page, "realm-github");

  // The keyboard reaches the last operation: End scrolls it into existence and focuses it.
  // A row's control: a read's switch, or the picked mode of Off / Ask / On (the row's one tab stop).
  const control = '[role="switch"], [role="radio"][tabindex="0"]';
  await scroller.locator(control).first().focus();
  await page.keyboard.press("End");
  // The last operation shown (the open area's last): no control follows it, only closed areas' headings.
  await expect(scroller.locator('li:has([role="switch"], [role="radio"])').last().locator(control)).toBeFocused();
  await expect(page.locator(":focus")).toHaveAttribute("role", /^(switch|radio)$/);

  // Search narrows the list to what a person asks for.
  await page.getByLabel("Search operations").fill("issue comment");
  await expect(page.getByText(/Showing [\d,]+ of [\d,]+ operations\.$/)).toBeVisible();
  await expect(page.getByRole("switch", { name: /comment/i }).first()).toBeVisible();
  await page.getByLabel("Search operations").fill("");

  // Bulk: every destructive GitHub operation off for the workspace's agents, in one save.
  const saved = page.waitForResponse((r) => r.url().includes("/api/v1/ceiling") && r.request().method() === "PATCH");
  await page.getByRole("button", { name: "All off: destructive operations" }).click();
  await page.getByRole("dialog").getByRole("button", { name: /^Yes, turn off/ }).click();
  expect((await saved).status()).toBe(200);
  const states = (await (await request.get("/api/v1/ceiling?namespace=github", { headers: { authorization: `Bearer ${alice.api_key}` } })).json()) as {
    operations: { operation: string; ceiling: boolean }[];
  };
  const deleteRepo = states.operations.find((o) => o.operation === "object.action.repos/delete")!;
  const getRepo = states.operations.find((o) => o.operation === "object.action.repos/get")!;
  expect(deleteRepo.ceiling).toBe(false);
  expect(getRepo.ceiling).toBe(true);
});
