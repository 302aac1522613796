// The dark theme beyond the support journey: the demo owner's main pages (home, realms, a realm, agents,
// connections, a consent screen, imported services and a curate view) in the dark scheme — and the light one
// beside it — at 1280 and 360 px, each axe clean and none wider than a phone's screen.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { accessibleEveryWay, demo, signInAs } from "./support/helpers";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
// Letters only: a realm's namespace takes no digits.
const ns = `dark${Date.now().toString(36).slice(-5).replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)]!)}`;

const spec = {
  openapi: "3.0.3",
  info: { title: "Night shelter", version: "1.0.0" },
  servers: [{ url: "https://night.example.test" }],
  paths: {
    "/beds": {
      get: { operationId: "listBeds", summary: "List free beds", responses: { "200": { description: "The beds" } } },
      post: { operationId: "bookBed", summary: "Book a bed for tonight", responses: { "201": { description: "Booked" } } },
    },
    "/beds/{bed_id}": {
      delete: {
        operationId: "releaseBed",
        summary: "Release a booked bed",
        parameters: [{ name: "bed_id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "204": { description: "Released" } },
      },
    },
  },
};

/** A consent screen, made the cheap way: a new agent asks for something it was never granted. */
async function consentPath(request: APIRequestContext, apiKey: string): Promise<string> {
  const made = await request.post("/api/v1/actors", { headers: bearer(apiKey), data: { name: "Night reader", kind: "hosted_agent" } });
  expect(made.status()).toBe(201);
  const token = ((await made.json()) as { token: { token: string } }).token.token;
  const asked = await request.post("/api/v1/tools/list_objects", { headers: bearer(token), data: { namespace: "memory", kind: "memory.item" } });
  expect(asked.status()).toBe(403);
  const body = (await asked.json()) as { error: { code: string; details: { connection_hub_url: string } } };
  expect(body.error.code).toBe("consent_required");
  return new URL(body.error.details.connection_hub_url).pathname;
}


const pages: { name: string; path: () => string; heading: RegExp | string; ready?: (page: Page) => Promise<void> }[] = [
  { name: "home", path: () => "/", heading: /Welcome/ },
  { name: "realms", path: () => "/realms", heading: "Realms" },
  { name: "realm", path: () => "/realms/memory", heading: /Memory/ },
  { name: "agents", path: () => "/agents", heading: "Agents" },
  {
    name: "connections",
    path: () => "/connections",
    heading: "Connections",
    ready: (page) => expect(page.getByText(/Loading your connected accounts/)).toHaveCount(0),
  },
  { name: "consent", path: () => made.consent, heading: /Night reader wants to use Memory/ },
  { name: "imports", path: () => "/admin/imports", heading: "Imported services", ready: (page) => expect(page.getByRole("link", { name: "Curate Night shelter" })).toBeVisible() },
  { name: "curate", path: () => `/admin/imports/${ns}`, heading: `Curate ${ns}`, ready: (page) => expect(page.getByText(/of 3 operations match/)).toBeVisible() },
];

const made = { consent: "" };

test.describe.serial("the dark theme on the owner's main pages", () => {
  test.beforeAll(async ({ request }) => {
    const alice = demo().users.alice!;
    const imported = await request.post("/api/v1/realms/import", { headers: bearer(alice.api_key), data: { namespace: ns, spec: JSON.stringify(spec) } });
    expect(imported.status(), await imported.text()).toBe(201);
    made.consent = await consentPath(request, alice.api_key);
  });

  for (const p of pages) {
    test(`${p.name}: axe clean in dark and light at 1280 and 360 px, and no wider than a phone`, async ({ page }) => {
      test.setTimeout(120_000);
      await page.emulateMedia({ colorScheme: "dark", reducedMotion: "reduce" });
      await page.setViewportSize({ width: 1280, height: 900 });
      await signInAs(page, "alice", p.path());
      await expect(page.getByRole("heading", { level: 1, name: p.heading })).toBeVisible();
      // Client lists finish loading before the scan (a spinner is not the page).
      await page.waitForLoadState("networkidle");
      await p.ready?.(page);
      await accessibleEveryWay(page, `dark-${p.name}`);
    });
  }
});
