// Pages people trust: every change on the realm page says what happened (saving → saved, or not saved with
// Retry, and the switch back as it was), switching many asks first and can be undone, and GitHub's 1,200+
// operations are searchable by rank and grouped by area with jump links. The curation page fits 360 px.
import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

const refuse = (page: Page, url: string) =>
  page.route(url, (route) =>
    route.request().method() === "PATCH"
      ? route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "service_unavailable", message: "Try later.", details: {}, request_id: "req_e2e" } }) })
      : route.continue(),
  );

async function narrow(page: Page, name: string) {
  await page.setViewportSize({ width: 360, height: 800 });
  await expectAccessible(page);
  await screenshot(page, `${name}-360`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.describe.serial("the realm page and the picker", () => {
  test("a refused save says so and rolls back; Retry saves; bulk asks first and Undo restores", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await signInAs(page, "alice", "/realms/memory");
    await page.getByRole("radio", { name: "Whole workspace (owner)" }).check();
    const search = page.getByRole("switch", { name: "Search remembered items" });
    await expect(search).toHaveAttribute("aria-checked", "true");
    const counts = page.getByTestId("card-counts");
    await expect(counts).not.toContainText("off by the workspace owner");

    // Refused: the row says "Not saved" in words, the switch is back on, and the live region says why.
    await refuse(page, "**/api/v1/ceiling");
    await search.click();
    const row = page.getByRole("listitem").filter({ has: search });
    await expect(row.getByText("Not saved", { exact: true })).toBeVisible();
    await expect(search).toHaveAttribute("aria-checked", "true");
    await expect(page.getByRole("status").filter({ hasText: "Not saved: “Search remembered items” is back on" })).toBeAttached();
    await expect(counts).not.toContainText("off by the workspace owner");
    await expectAccessible(page);
    await screenshot(page, "picker-save-failed");
    await page.unroute("**/api/v1/ceiling");

    // Retry: saved, and the card's counts follow without a reload.
    const saved = page.waitForResponse((r) => r.url().includes("/api/v1/ceiling") && r.request().method() === "PATCH");
    await row.getByRole("button", { name: "Retry: Search remembered items" }).click();
    expect((await saved).status()).toBe(200);
    await expect(row.getByText("Saved", { exact: true })).toBeVisible();
    await expect(search).toHaveAttribute("aria-checked", "false");
    await expect(counts).toContainText("1 off by the workspace owner");

    // Bulk: the question names the count; Cancel changes nothing. Forget (destructive) picks Off / Ask / On.
    const forget = page.getByRole("radiogroup", { name: "Forget an item for good, saying why" });
    const forgetOff = forget.getByRole("radio", { name: "Off" });
    const forgetBefore = await forget.getByRole("radio", { checked: true }).textContent();
    await page.getByRole("button", { name: "All off: destructive operations" }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText(/Turn off \d+ destructive operations for every agent in this workspace\?/);
    await screenshot(page, "picker-bulk-confirm");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(forgetOff).toHaveAttribute("aria-checked", "false");
    // Closed, the dialog gives the focus back to the button that opened it (Escape and confirming alike).
    const allOff = page.getByRole("button", { name: "All off: destructive operations" });
    await expect(allOff).toBeFocused();
    await allOff.press("Enter");
    await expect(dialog).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect(allOff).toBeFocused();

    await allOff.click();
    await page.getByRole("dialog").getByRole("button", { name: /^Yes, turn off/ }).click();
    await expect(page.getByText(/^Saved:/).first()).toBeVisible();
    await expect(allOff).toBeFocused();
    await expect(forgetOff).toHaveAttribute("aria-checked", "true");
    await expect(counts).toContainText(/[3-9] off by the workspace owner/);
    await page.getByRole("button", { name: "Undo" }).click();
    await expect(forget.getByRole("radio", { checked: true })).toHaveText(forgetBefore!);
    // Undo puts back exactly what the bulk change touched: search (not destructive) stays off.
    await expect(search).toHaveAttribute("aria-checked", "false");
    await expect(counts).toContainText("1 off by the workspace owner");
    await page.reload();
    await page.getByRole("radio", { name: "Whole workspace (owner)" }).check();
    await expect(page.getByRole("radiogroup", { name: "Forget an item for good, saying why" }).getByRole("radio", { checked: true })).toHaveText(forgetBefore!);

    // Leave the workspace as it was for the other journeys.
    await page.getByRole("switch", { name: "Search remembered items" }).click();
    await expect(page.getByRole("switch", { name: "Search remembered items" })).toHaveAttribute("aria-checked", "true");
    await expect(page.getByRole("listitem").filter({ has: page.getByRole("switch", { name: "Search remembered items" }) }).getByText("Saved", { exact: true })).toBeVisible();
  });

  test("with GitHub imported: ranked search puts “delete repository” first, areas are jumpable, 1280 and 360 px", async ({ page, request }) => {
    test.setTimeout(240_000);
    const alice = demo().users.alice!;
    const imported = await request.post("/api/v1/realms/import", {
      headers: { authorization: `Bearer ${alice.api_key}` },
      data: { namespace: "ghpicker", spec: fs.readFileSync("node_modules/@octokit/openapi/generated/api.github.com.json", "utf8"), base_url: "https://api.github.com" },
      timeout: 180_000,
    });
    expect([200, 201], await imported.text()).toContain(imported.status());
    const total = ((await imported.json()) as { operations: { total: number } }).operations.total;

    await page.setViewportSize({ width: 1280, height: 800 });
    await signInAs(page, "alice", "/realms/ghpicker");
    // One count: the card and the list say the same number.
    const all = (total + 2).toLocaleString("en-US");
    await expect(page.getByRole("article").getByText(new RegExp(`^${all} operations:`))).toBeVisible();
    await expect(page.getByText(`${all} operations in`)).toBeVisible();

    // Areas: collapsed for a realm this big, listed with counts; a jump link opens one and focuses it.
    const areas = page.getByRole("navigation", { name: "Areas of this realm" });
    await expect(areas.getByRole("link", { name: /^Repos \(\d+\)$/ })).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "picker-github-areas");
    await areas.getByRole("link", { name: /^Repos \(\d+\)$/ }).click();
    const repos = page.getByRole("button", { name: /^Repos \(\d+ operations\)/ });
    await expect(repos).toHaveAttribute("aria-expanded", "true");
    await expect(repos).toBeFocused();
    await expect(page.getByTestId("operation-scroller").getByRole("switch").first()).toBeVisible();
    await screenshot(page, "picker-github-repos");

    // Ranked search: the capability ranker puts repos/delete first.
    await page.getByLabel("Search operations").fill("delete repository");
    await expect(page.getByText(/^Best matches first\./)).toBeVisible();
    const first = page.getByTestId("operation-scroller").locator('li[aria-posinset="1"]');
    await expect(first.locator("code").first()).toHaveText("object.action.repos/delete");
    await expectAccessible(page);
    await screenshot(page, "picker-github-ranked");
    await narrow(page, "picker-github-ranked");
  });

  test("the curation page fits 360 px: each operation a card with the table's controls, and each change says saved or not", async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 800 });
    await signInAs(page, "alice", "/admin/imports/ghpicker");
    const table = page.getByRole("table", { name: "Operations of ghpicker" });
    const card = table.getByTestId("curation-row").first();
    await expect(card).toBeVisible();
    // A card names its controls in words on the screen, with the same accessible names as the table's.
    await expect(card.getByText("Hide from agents")).toBeVisible();
    await expect(card.getByText("Only an exact grant covers it")).toBeVisible();
    await expect(card.getByRole("checkbox", { name: /^Hide / })).toBeVisible();
    await expect(card.getByRole("combobox", { name: /^Risk of / })).toBeVisible();
    await expect(card.getByRole("textbox", { name: /^Label for / })).toBeVisible();
    await expect(card.getByRole("textbox", { name: /^Keywords for / })).toBeVisible();
    await screenshot(page, "curation-360");
    // Nothing shown is wider than the screen (the visually hidden column headers are clipped to 1 px, whatever
    // their rows' boxes say), and the page does not scroll sideways.
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((e) => e.getBoundingClientRect().right > 361 && !e.closest(".sr-only"))
        .slice(0, 5)
        .map((e) => `${e.tagName}.${e.className}`.slice(0, 80)),
    );
    expect(wide).toEqual([]);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await expectAccessible(page);

    await refuse(page, "**/api/v1/realms/ghpicker/operations");
    const hide = page.getByRole("checkbox", { name: /^Hide / }).first();
    // A click, not check(): the refused save puts the box straight back, which check() would call a failure.
    await hide.click();
    await expect(page.getByTestId("curation-status").first()).toContainText("Not saved");
    await expect(hide).not.toBeChecked();
    await expectAccessible(page);
    await screenshot(page, "curation-360-failed");
    await page.unroute("**/api/v1/realms/ghpicker/operations");
    await page.getByTestId("curation-status").first().getByRole("button", { name: "Retry" }).click();
    await expect(page.getByTestId("curation-status").first()).toContainText("Saved");
    await expect(page.getByRole("checkbox", { name: /^Hide / }).first()).toBeChecked();
    // Put it back.
    await page.getByRole("checkbox", { name: /^Hide / }).first().uncheck();
    await expect(page.getByTestId("curation-status").first()).toContainText("Saved: ");

    // At desktop width the same controls sit in a table under visible column headers.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(table.getByRole("columnheader", { name: "Exact grant only" })).toBeVisible();
    await expect(page.getByText("Hide from agents").first()).toBeHidden();
    await expect(page.getByRole("checkbox", { name: /^Hide / }).first()).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "curation-1280");
  });
});
