// Ask each time on the realm page: an operation that changes things picks Off / Ask / On (a read keeps its
// switch). The owner sets Ask for the whole workspace and sees it saved, on the card by name, and kept after a
// reload; by keyboard too; a refused save moves back and Retry saves; "Ask for all" by risk asks first and Undo
// puts back exactly the modes there were. A member sees the owner's Ask bound their own choice (On cannot be
// picked) and turns it off for their agents. Every state is scanned with axe at 1280 and 360 px, light and dark.
import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { demo, expectAccessible, signInAs } from "./support/helpers";

const SHOTS = "/tmp/shots-modes";
/** A write operation of Boards nothing else in the suite changes. */
const OP = "Put people on a card or take them off";
const OTHER_WRITE = "Move a card to another column or place";

async function shot(page: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

/** No serious axe violation at 1280 and 360 px, in light and dark; a screenshot of each. */
async function everyWay(page: Page, name: string) {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await expectAccessible(page);
      await shot(page, `${name}-${width}-${colorScheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 900 });
}

const modes = (page: Page, name = OP) => page.getByRole("radiogroup", { name });
const picked = (page: Page, name = OP) => modes(page, name).getByRole("radio", { checked: true });
const rowOf = (page: Page, name = OP) => page.getByRole("listitem").filter({ has: modes(page, name) });
/** How many operations the card says ask each time (0 when it says nothing). */
const askingCount = async (page: Page) => {
  const line = page.getByTestId("card-asking");
  if (!(await line.count())) return 0;
  return Number((await line.textContent())!.match(/^(\d+) asks? each time/)![1]);
};
const ceilingSaved = (page: Page) => page.waitForResponse((r) => r.url().includes("/api/v1/ceiling") && r.request().method() === "PATCH");

test.describe.serial("ask each time on the realm page", () => {
  test.afterAll(async ({ request }) => {
    // Put Boards back as the other journeys expect it: no narrowing by bob, on for the workspace.
    const { alice, bob } = demo().users;
    const body = { namespace: "board", changes: [{ operation: "object.action.assign", mode: "on" }] };
    expect((await request.patch("/api/v1/choices", { headers: { authorization: `Bearer ${bob!.api_key}` }, data: body })).status()).toBe(200);
    expect((await request.patch("/api/v1/ceiling", { headers: { authorization: `Bearer ${alice!.api_key}` }, data: body })).status()).toBe(200);
  });

  test("the owner sets an operation to ask: saved, named on the card, kept after a reload", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await signInAs(page, "alice", "/realms/board");
    await page.getByRole("radio", { name: "Whole workspace (owner)" }).check();
    await expect(picked(page)).toHaveText("On");
    // A read keeps its on/off switch: it never asks.
    await expect(page.getByRole("switch", { name: "List boards, columns or cards" })).toBeVisible();
    await expect(page.getByRole("radiogroup", { name: "List boards, columns or cards" })).toHaveCount(0);
    const before = await askingCount(page);

    const saved = ceilingSaved(page);
    await modes(page).getByRole("radio", { name: "Ask" }).click();
    expect((await saved).status()).toBe(200);
    await expect(rowOf(page).getByText("Saved", { exact: true })).toBeVisible();
    await expect(picked(page)).toHaveText("Ask");
    await expect(page.getByRole("status").filter({ hasText: `Saved: “${OP}” set to ask each time for the whole workspace.` })).toBeAttached();
    // The card follows without a reload, naming what asks.
    await expect.poll(() => askingCount(page)).toBe(before + 1);
    await expect(page.getByTestId("card-asking")).toContainText(before + 1 > 3 ? "more" : OP);

    // By keyboard: left and right pick the neighbouring mode, and each pick is saved.
    await picked(page).focus();
    let next = ceilingSaved(page);
    await page.keyboard.press("ArrowLeft");
    await expect(modes(page).getByRole("radio", { name: "Off" })).toBeFocused();
    await expect(picked(page)).toHaveText("Off");
    expect((await next).status()).toBe(200);
    await expect(page.getByTestId("card-counts")).toContainText(/\d+ off by the workspace owner/);
    next = ceilingSaved(page);
    await page.keyboard.press("ArrowRight");
    await expect(picked(page)).toHaveText("Ask");
    expect((await next).status()).toBe(200);
    await expect(rowOf(page).getByText("Saved", { exact: true })).toBeVisible();

    // Refused: the row says so, the control is back at Ask, and Retry saves.
    await page.route("**/api/v1/ceiling", (route) =>
      route.request().method() === "PATCH"
        ? route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "service_unavailable", message: "Try later.", details: {}, request_id: "req_e2e" } }) })
        : route.continue(),
    );
    await modes(page).getByRole("radio", { name: "On" }).click();
    await expect(rowOf(page).getByText("Not saved", { exact: true })).toBeVisible();
    await expect(picked(page)).toHaveText("Ask");
    await expect(page.getByRole("status").filter({ hasText: `Not saved: “${OP}” is back to ask each time.` })).toBeAttached();
    await shot(page, "owner-refused");
    await page.unroute("**/api/v1/ceiling");
    next = ceilingSaved(page);
    await rowOf(page).getByRole("button", { name: `Retry: ${OP}` }).click();
    expect((await next).status()).toBe(200);
    await expect(picked(page)).toHaveText("On");
    next = ceilingSaved(page);
    await modes(page).getByRole("radio", { name: "Ask" }).click();
    expect((await next).status()).toBe(200);
    await expect(rowOf(page).getByText("Saved", { exact: true })).toBeVisible();

    // Many at once: "Ask for all" write operations asks first, naming the count; Undo puts back exactly what was.
    await expect(picked(page, OTHER_WRITE)).toHaveText("On");
    await page.getByRole("button", { name: "Ask for all: write operations" }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText(/^Set \d+ write operations? to ask each time for every agent in this workspace\?/);
    await shot(page, "owner-bulk-confirm");
    await dialog.getByRole("button", { name: /^Yes, set \d+ write operations? to ask each time/ }).click();
    await expect(page.getByText(/^Saved:/).first()).toBeVisible();
    await expect(picked(page, OTHER_WRITE)).toHaveText("Ask");
    await page.getByRole("button", { name: "Undo" }).click();
    await expect(picked(page, OTHER_WRITE)).toHaveText("On");
    // The one that asked before the bulk change still asks.
    await expect(picked(page)).toHaveText("Ask");
    await expect(page.getByText(/^Undone:/)).toBeAttached();
    await expect.poll(() => askingCount(page)).toBe(before + 1);

    await page.reload();
    await page.getByRole("radio", { name: "Whole workspace (owner)" }).check();
    await expect(picked(page)).toHaveText("Ask");
    await expect(picked(page, OTHER_WRITE)).toHaveText("On");
    await everyWay(page, "owner-workspace");

    // Her own agents: bounded by what she set for everyone.
    await page.getByRole("radio", { name: "My agents" }).check();
    await expect(picked(page)).toHaveText("Ask");
    await expect(modes(page).getByRole("radio", { name: "On" })).toHaveAttribute("aria-disabled", "true");
    await expect(rowOf(page).getByText("You set this to ask for the whole workspace: here you can turn it off, not on.")).toBeVisible();

    // The grid's card says which ask.
    await page.goto("/realms");
    const card = page.getByRole("article", { name: "Boards" });
    await expect(card.getByTestId("card-asking")).toContainText(/^\d+ asks? each time: /);
    await everyWay(page, "owner-grid");
  });

  test("a member sees the owner's ask bound their choice, and turns it off for their agents", async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInAs(page, "bob", "/realms/board");
    await expect(page.getByRole("radio", { name: "Whole workspace (owner)" })).toHaveCount(0);
    await expect(picked(page)).toHaveText("Ask");
    const on = modes(page).getByRole("radio", { name: "On" });
    await expect(on).toHaveAttribute("aria-disabled", "true");
    await expect(on).toBeDisabled();
    await expect(rowOf(page).getByText("The owner set this to ask: you can turn it off, not on.")).toBeVisible();
    // On cannot be picked, by mouse or keyboard (right from Ask finds nothing looser to pick).
    await on.click({ force: true });
    await picked(page).focus();
    await page.keyboard.press("ArrowRight");
    await expect(picked(page)).toHaveText("Ask");
    const before = await askingCount(page);
    await everyWay(page, "member-bounded");

    const saved = page.waitForResponse((r) => r.url().includes("/api/v1/choices") && r.request().method() === "PATCH");
    await modes(page).getByRole("radio", { name: "Off" }).click();
    expect((await saved).status()).toBe(200);
    await expect(rowOf(page).getByText("Saved", { exact: true })).toBeVisible();
    await expect(picked(page)).toHaveText("Off");
    await expect(page.getByTestId("card-counts")).toContainText(/\d+ off by you/);
    await expect.poll(() => askingCount(page)).toBe(before - 1);

    await page.reload();
    await expect(picked(page)).toHaveText("Off");
    // Still bounded: Ask and Off can be picked, On cannot.
    await expect(modes(page).getByRole("radio", { name: "Ask" })).not.toHaveAttribute("aria-disabled", "true");
    await expect(modes(page).getByRole("radio", { name: "On" })).toHaveAttribute("aria-disabled", "true");
    await everyWay(page, "member-off");
    await context.close();
  });
});
