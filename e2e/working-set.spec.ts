// Working sets as people see them: alice's agent adds two docs actions as exact tools over REST; its card on the
// Agents page shows both by title with their sizes and the catalog meter; Remove takes one out (said, and gone
// from the agent's own tool list); the owner changes the catalog budget; the realm page's selected-only switch
// toggles with feedback. Both pages pass axe. The database is shared with other specs: everything here is found by
// its own names, and the budget and the switch are put back.
import { expect, test, type APIRequestContext } from "@playwright/test";
import { demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const aliceKey = () => demo().users.alice!.api_key;
const agentName = `Working set agent ${Date.now().toString(36)}`;

async function toolNames(request: APIRequestContext, token: string): Promise<string[]> {
  const res = await request.get("/api/v1/tools", { headers: bearer(token) });
  expect(res.status()).toBe(200);
  return ((await res.json()).tools as { name: string }[]).map((t) => t.name);
}

test.describe.serial("an agent's working set", () => {
  const shared: { token?: string; id?: string } = {};

  test.afterAll(async ({ request }) => {
    // Put back what other specs may rely on, whatever happened above.
    await request.patch("/api/v1/tenant/settings", { headers: bearer(aliceKey()), data: { catalog_budget_bytes: 16384 } });
    await request.patch("/api/v1/ceiling", { headers: bearer(aliceKey()), data: { namespace: "docs", selected_only: false } });
  });

  test("the Agents page shows the tools it added, by title with sizes and the meter; Remove takes one out", async ({ page, request }) => {
    const created = await request.post("/api/v1/actors", { headers: bearer(aliceKey()), data: { name: agentName, kind: "hosted_agent" } });
    expect(created.status()).toBe(201);
    const body = await created.json();
    shared.id = body.actor.id as string;
    shared.token = body.token.token as string;
    for (const operation of ["object.action.export", "object.action.reply_comment"]) {
      const res = await request.post("/api/v1/tools/object_schema", { headers: bearer(shared.token), data: { namespace: "docs", operation, materialize: true } });
      const answer = await res.json();
      expect(res.status(), JSON.stringify(answer)).toBe(200);
      expect(answer.list_changed).toBe(true);
    }
    expect((await toolNames(request, shared.token)).slice(9)).toEqual(["docs_export", "docs_reply_comment"]);

    await signInAs(page, "alice", "/agents");
    const card = page.getByRole("article", { name: agentName });
    const set = card.getByRole("region", { name: "Working set" });
    await expect(set.getByRole("meter", { name: /^Catalog: \d+(\.\d)? KB of 16 KB$/ })).toBeVisible();
    await expect(set.getByText("Reads 1 of 3 · Writes 1 of 1")).toBeVisible();
    const tools = set.getByRole("list", { name: `Exact tools of ${agentName}` });
    const exportRow = tools.getByRole("listitem").filter({ hasText: "docs_export" });
    const replyRow = tools.getByRole("listitem").filter({ hasText: "docs_reply_comment" });
    await expect(exportRow).toContainText("Export");
    await expect(exportRow).toContainText("in Docs");
    await expect(exportRow).toContainText(/\d+(\.\d)? KB · last used/);
    await expect(replyRow).toContainText("Reply");
    await expect(replyRow).toContainText(/\d+(\.\d)? KB/);
    await expect(set.getByText(/^Largest tools:/)).toBeVisible();
    await expect(set.getByText(/^Lapses .* unless .* uses one of its tools first \(a set lasts 30 minutes after its last use\)\.$/)).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "working-set-agents");
    await set.screenshot({ path: "e2e/artifacts/screenshots/working-set-card.png" });
    await page.setViewportSize({ width: 360, height: 800 });
    await expectAccessible(page);
    await set.screenshot({ path: "e2e/artifacts/screenshots/working-set-card-360.png" });
    await page.setViewportSize({ width: 1280, height: 800 });

    await set.getByRole("button", { name: `Remove Export (Docs) from ${agentName}'s working set` }).click();
    await expect(card.getByRole("status").filter({ hasText: `Removed “Export” (Docs) from ${agentName}'s working set` })).toBeVisible();
    await expect(tools.getByRole("listitem")).toHaveCount(1);
    await expect(exportRow).toHaveCount(0);
    await expect(set.getByText("Reads 0 of 3 · Writes 1 of 1")).toBeVisible();
    // Focus landed on what was said, and the agent's own list lost the tool.
    await expect(card.getByRole("status").filter({ hasText: "Removed" })).toBeFocused();
    expect((await toolNames(request, shared.token)).slice(9)).toEqual(["docs_reply_comment"]);
    await expectAccessible(page);
  });

  test("the owner changes the catalog budget, and each agent's meter measures against it", async ({ page }) => {
    await signInAs(page, "alice", "/agents");
    const budget = page.getByRole("region", { name: "Catalog budget for agents" });
    const select = budget.getByLabel("Budget per agent");
    await expect(select).toHaveValue("16384");
    await select.selectOption({ label: "24 KB" });
    // The first save fails on the way: it says so, keeps the budget, and Retry saves it.
    let failed = false;
    await page.route("**/api/v1/tenant/settings", async (route) => {
      if (failed || route.request().method() !== "PATCH") return route.fallback();
      failed = true;
      await route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "service_unavailable", message: "The database is unavailable right now.", details: {} } }) });
    });
    await budget.getByRole("button", { name: "Save" }).click();
    await expect(budget.getByRole("status")).toHaveText(/^Not saved: The database is unavailable right now\. The budget stays 16 KB; 24 KB was not applied\.$/);
    await budget.getByRole("button", { name: "Retry" }).click();
    await expect(budget.getByRole("status")).toHaveText("Saved: every agent's tool list may now weigh up to 24 KB.");
    await expect(budget.getByRole("button", { name: "Retry" })).toHaveCount(0);
    const set = page.getByRole("article", { name: agentName }).getByRole("region", { name: "Working set" });
    await expect(set.getByRole("meter", { name: /^Catalog: \d+(\.\d)? KB of 24 KB$/ })).toBeVisible();
    await expectAccessible(page);
    await budget.screenshot({ path: "e2e/artifacts/screenshots/working-set-budget.png" });

    // Back to the default for the rest of the run.
    await select.selectOption({ label: "16 KB (default)" });
    await budget.getByRole("button", { name: "Save" }).click();
    await expect(budget.getByRole("status")).toHaveText("Saved: every agent's tool list may now weigh up to 16 KB.");
  });

  test("the realm page's owner switch: agents act only on operations they selected", async ({ page, request }) => {
    await signInAs(page, "alice", "/realms/docs");
    const only = page.getByRole("switch", { name: "Agents act only on operations they selected" });
    await expect(only).toHaveAttribute("aria-checked", "false");
    await expect(page.getByText("An agent must add an action to its working set before calling it.")).toBeVisible();
    await expectAccessible(page);
    await only.click();
    await expect(page.getByText("Saved: in Docs, agents now act only on actions they added to their working set.")).toBeVisible();
    await expect(only).toHaveAttribute("aria-checked", "true");
    const ceiling = await (await request.get("/api/v1/ceiling?namespace=docs", { headers: bearer(aliceKey()) })).json();
    expect(ceiling.selected_only).toBe(true);
    await expectAccessible(page);
    await screenshot(page, "working-set-selected-only");

    await only.focus();
    await page.keyboard.press("Space");
    await expect(page.getByText("Saved: in Docs, agents may call any action they are granted, selected or not.")).toBeVisible();
    await expect(only).toHaveAttribute("aria-checked", "false");
  });
});
