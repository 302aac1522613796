// The API keys page as a person meets it: a new key is shown once with a Copy button; Revoke asks first (naming
// the key), Cancel and Escape keep it, and Yes revokes it with a notice that takes the keyboard; the "copy it now"
// box goes with its key; dates read as elsewhere in the app ("6 Dec 2026, 08:35"). Each state is checked with axe.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { expectAccessible, screenshot, signInAs } from "./support/helpers";

const base = () => process.env.E2E_BASE_URL!;
/** The app's dates: Intl en-GB, medium date and short time ("6 Dec 2026, 08:35"; September is "Sept"). */
const appDate = /^\d{1,2} [A-Z][a-z]{2,3} \d{4}, \d{2}:\d{2}$/;

const meStatus = async (request: APIRequestContext, key: string) => (await request.get("/api/v1/me", { headers: { authorization: `Bearer ${key}` } })).status();

async function createKey(page: Page, name: string) {
  await page.getByLabel("Key name").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText(`Key “${name}” created — copy it now, it will not be shown again`)).toBeVisible();
  const key = (await page.getByLabel("New API key").textContent())!.trim();
  expect(key).toMatch(/^rgk_/);
  return key;
}

const row = (page: Page, name: string) => page.getByRole("list", { name: "Your API keys" }).getByRole("listitem").filter({ hasText: name });

test.describe.serial("the API keys page", () => {
  test("a new key can be copied, and its dates read as in the rest of the app", async ({ page, request }) => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: base() });
    await signInAs(page, "alice", "/settings/api-keys");
    await expect(page.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
    const key = await createKey(page, "e2e copy me");
    expect(await meStatus(request, key)).toBe(200);

    const copy = page.getByRole("button", { name: "Copy the key “e2e copy me”" });
    await expect(copy).toBeVisible();
    await copy.click();
    await expect(copy).toHaveText("Copied");
    await expect(page.getByText("Copied to the clipboard.")).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await expectAccessible(page);

    // "Created 6 Dec 2026, 08:35 · last used 6 Dec 2026, 08:35", not "12/6/2026, 8:39:48 AM" (reloaded: the call
    // above is now its last use).
    await page.reload();
    const mine = row(page, "e2e copy me");
    await expect(mine).toHaveCount(1);
    const times = mine.locator("time");
    await expect(times).toHaveCount(2); // created, and last used by the call above
    for (const t of await times.all()) {
      await expect(t).toHaveText(appDate);
      expect(Number.isNaN(Date.parse((await t.getAttribute("datetime"))!))).toBe(false);
    }
    await expect(mine).not.toContainText(/\d{1,2}\/\d{1,2}\/\d{4}|AM|PM/);
  });

  test("Revoke asks first: Cancel and Escape keep the key, Yes revokes it, says so, and keeps the keyboard on the page", async ({ page, request }) => {
    await signInAs(page, "alice", "/settings/api-keys");
    const key = await createKey(page, "e2e revoke me");
    const box = page.getByText("Key “e2e revoke me” created — copy it now, it will not be shown again");
    const revoke = page.getByRole("button", { name: "Revoke key e2e revoke me" });
    const dialog = page.getByRole("dialog", { name: "Revoke the key “e2e revoke me”?" });

    // The question names the key; Cancel, which has the focus, keeps it and returns to its Revoke button.
    await revoke.click();
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("cannot be undone");
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await expectAccessible(page);
    await screenshot(page, "api-keys-revoke-dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(revoke).toBeFocused();
    await expect(box).toBeVisible();
    expect(await meStatus(request, key)).toBe(200);

    // Escape cancels too.
    await page.keyboard.press("Enter");
    await expect(dialog).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect(revoke).toBeFocused();
    expect(await meStatus(request, key)).toBe(200);

    // A failure is said in plain words in the dialog, which stays for another try.
    await page.route("**/api/v1/api-keys/*", (route) =>
      route.request().method() === "DELETE"
        ? route.fulfill({ status: 503, json: { error: { code: "unavailable", message: "The database is busy; try again in a moment.", request_id: "req_e2e" } } })
        : route.fallback(),
    );
    // All from the keyboard: Enter on Revoke, Tab from Cancel to Yes, Enter.
    const yes = dialog.getByRole("button", { name: "Yes, revoke the key" });
    await page.keyboard.press("Enter");
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(yes).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(dialog.getByRole("alert")).toContainText("The key was not revoked");
    await expect(dialog.getByRole("alert")).toContainText("The database is busy; try again in a moment.");
    await expect(dialog).toBeVisible();
    expect(await meStatus(request, key)).toBe(200);
    await page.unroute("**/api/v1/api-keys/*");

    // The keyboard is still on Yes: Enter again, and this time it works.
    await expect(yes).toBeFocused();
    await expectAccessible(page);
    await page.keyboard.press("Enter");
    await expect(dialog).toHaveCount(0);
    const notice = page.getByRole("status").filter({ hasText: "Key “e2e revoke me” revoked" });
    await expect(notice).toBeVisible();
    await expect(notice).toBeFocused();
    expect(await page.evaluate(() => document.activeElement !== document.body && document.activeElement !== null)).toBe(true);
    await expect(row(page, "e2e revoke me")).toContainText("Revoked");
    await expect(row(page, "e2e revoke me").getByRole("button", { name: /Revoke/ })).toHaveCount(0);
    await expect(row(page, "e2e revoke me").locator("time")).toHaveCount(3); // created, last used (the calls above), revoked
    for (const t of await row(page, "e2e revoke me").locator("time").all()) await expect(t).toHaveText(appDate);

    // The "copy it now" box went with its key.
    await expect(box).toHaveCount(0);
    await expect(page.getByLabel("New API key")).toHaveCount(0);
    await expect(page.getByText(key)).toHaveCount(0);
    expect(await meStatus(request, key)).toBe(401);
    await expectAccessible(page);
    await screenshot(page, "api-keys-revoked");
  });

  test("revoking another key leaves the just-created key's box in place", async ({ page }) => {
    await signInAs(page, "alice", "/settings/api-keys");
    await createKey(page, "e2e older");
    const newer = await createKey(page, "e2e newer");
    await page.getByRole("button", { name: "Revoke key e2e older" }).click();
    await page.getByRole("dialog", { name: "Revoke the key “e2e older”?" }).getByRole("button", { name: "Yes, revoke the key" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Key “e2e older” revoked" })).toBeFocused();
    await expect(page.getByLabel("New API key")).toHaveText(newer);
    await expect(page.getByRole("button", { name: "Copy the key “e2e newer”" })).toBeVisible();
  });
});
