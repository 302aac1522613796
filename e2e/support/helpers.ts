import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type APIRequestContext, type Page } from "@playwright/test";

export type Demo = {
  tenant: { id: string; slug: string };
  users: Record<string, { email: string; role: string; api_key: string; user_id: string; password: string }>;
  agent: { actor_id: string; token: string };
} & Record<string, unknown>;

export const demo = (): Demo => JSON.parse(fs.readFileSync(path.join(process.env.E2E_DATA_DIR!, "demo.json"), "utf8"));

/** Sign in through the local OpenID Connect issuer, as a person would. */
export async function signInAs(page: Page, login: "alice" | "bob" | "sam" | string, returnTo = "/") {
  await page.goto(returnTo);
  await expect(page).toHaveURL(/\/signin/);
  await page.getByRole("button", { name: "Continue with Local SSO" }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: /sign-in/i }).click();
  const consent = page.getByRole("button", { name: "Continue" });
  if (await consent.isVisible({ timeout: 3000 }).catch(() => false)) await consent.click();
  await page.waitForURL((u) => !u.href.includes("/signin") && u.href.startsWith(process.env.E2E_BASE_URL!), { timeout: 20_000 });
}

/** Wait (up to 5 s) for the page to have a title; a page that never gets one is left for axe to report. */
const titled = (page: Page) => page.waitForFunction(() => document.title.trim() !== "", undefined, { timeout: 5000 }).catch(() => {});

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** No serious or critical axe violations on the current page. */
export async function expectAccessible(page: Page) {
  // A page refreshed after a change streams its <title> back in a moment later: measure once it is there (a page
  // that never gets one still fails, below).
  await titled(page);
  // A colour scheme or state just changed: let running transitions finish (axe measured a button mid-fade once).
  await page
    .evaluate(async () => {
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      const finite = document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity);
      await Promise.all(finite.map((a) => a.finished.catch(() => null)));
    })
    .catch(() => {});
  let bad = await seriousViolations(page);
  // A refresh that started after the wait above (router.refresh() once a change is saved) takes the streamed <title>
  // out for a moment and puts it back: when that is all axe found, measure once more when the title is back. A page
  // that has no title still fails here.
  if (bad.length === 1 && bad[0]!.id === "document-title") {
    await titled(page);
    bad = await seriousViolations(page);
  }
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
}

/**
 * Dark and light, 1280 and 360 px: axe clean, nothing wider than a phone at 360 px, and a screenshot of each
 * (`<prefix>-<scheme>-<width>.png`).
 */
export async function accessibleEveryWay(page: Page, prefix: string) {
  for (const scheme of ["dark", "light"] as const) {
    // Reduced motion: no colour transition is caught half-way by the contrast check.
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      // Nothing hovered: the mouse rests where the last click left it, maybe over a button after a reflow.
      await page.mouse.move(0, 0);
      await expectAccessible(page);
      if (width === 360) {
        // Nothing pushes the page sideways on a phone; the failure names what sticks out.
        const wide = await page.evaluate(() => ({
          scroll: document.scrollingElement!.scrollWidth,
          inner: window.innerWidth,
          culprits: [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
            .slice(-3)
            .map((e) => `${e.tagName.toLowerCase()}.${String(e.className).slice(0, 60)} “${(e.textContent ?? "").slice(0, 40)}”`),
        }));
        expect(wide.scroll, `${prefix} at 360 px (${scheme}): ${wide.culprits.join("; ")}`).toBeLessThanOrEqual(wide.inner);
      }
      await screenshot(page, `${prefix}-${scheme}-${width}`);
    }
  }
}

export async function screenshot(page: Page, name: string) {
  fs.mkdirSync("e2e/artifacts/screenshots", { recursive: true });
  await page.screenshot({ path: `e2e/artifacts/screenshots/${name}.png`, fullPage: true });
}

/** A fresh agent of alice's with an actor token, granted these operations (each for a day). */
export async function newActor(request: APIRequestContext, name: string, grants: { namespace: string; operations: string[] }[]) {
  const alice = { authorization: `Bearer ${demo().users.alice!.api_key}` };
  const created = await request.post("/api/v1/actors", { headers: alice, data: { name, kind: "hosted_agent" } });
  expect(created.status()).toBe(201);
  const { actor, token } = await created.json();
  for (const g of grants) {
    const res = await request.post("/api/v1/grants", { headers: alice, data: { actor_id: actor.id, ...g, expires: "1d" } });
    expect(res.status(), await res.text()).toBe(201);
  }
  return { actorId: actor.id as string, token: token.token as string };
}

/** At a local provider's consent screen (dev/fake-gmail, the local Slack): sign in if asked, then approve. */
export async function approveAtProvider(page: Page, login: string) {
  const loginField = page.locator('input[name="login"]');
  const consent = page.getByRole("button", { name: "Continue" });
  await expect(loginField.or(consent)).toBeVisible();
  if (await loginField.isVisible()) {
    await loginField.fill(login);
    await page.locator('input[name="password"]').fill("any password");
    await page.getByRole("button", { name: /sign-in/i }).click();
  }
  await consent.click();
}
