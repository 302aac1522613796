// A support person's day: their home offers their own work (no "Create an agent"); the console shows what a
// curation changed, in words; opening the same view again adds no audit record; light and dark themes are axe
// clean at desktop and phone widths. Alice (owner) imports and curates a small service through the API first.
// Names, not ids: a search by person names that person, a connected account reads by its provider's and
// permissions' labels, a grant's timeline is headed by its agent and realm, and reversed dates are caught.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { approveAtProvider, demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

const ns = `pets${Date.now().toString(36).slice(-5).replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)]!)}`;

const spec = {
  openapi: "3.0.3",
  info: { title: "Pet shelter", version: "1.0.0" },
  servers: [{ url: "https://pets.example.test" }],
  paths: {
    "/pets": {
      get: { operationId: "listPets", summary: "List pets", responses: { "200": { description: "The pets" } } },
      post: { operationId: "adoptPet", summary: "Adopt a pet", responses: { "201": { description: "Adopted" } } },
    },
  },
};

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function supportViews(request: APIRequestContext, samId: string): Promise<number> {
  const alice = demo().users.alice!;
  const res = await request.get(`/api/v1/audit?event=support.viewed&user_id=${samId}&limit=500`, { headers: bearer(alice.api_key) });
  expect(res.status()).toBe(200);
  // The console's own record (the page's other reads are coalesced alike, but load on their own schedule).
  return ((await res.json()) as { events: { details: { view?: string } }[] }).events.filter((e) => e.details.view === "support.console").length;
}

async function bothThemes(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await expectAccessible(page);
      await screenshot(page, `${name}-${scheme}-${width}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("sam's home fits support, and the console shows a curated realm's changes in words", async ({ page, request }) => {
  const { alice, sam } = demo().users as Record<string, { api_key: string; user_id: string }>;
  const imported = await request.post("/api/v1/realms/import", { headers: bearer(alice!.api_key), data: { namespace: ns, spec: JSON.stringify(spec) } });
  expect(imported.status(), await imported.text()).toBe(201);
  const curated = await request.patch(`/api/v1/realms/${ns}/operations`, {
    headers: bearer(alice!.api_key),
    data: { changes: [{ action: "listPets", label: "See the shelter's pets", exact_grant_only: true }] },
  });
  expect(curated.status(), await curated.text()).toBe(200);

  await signInAs(page, "sam", "/");
  await expect(page.getByRole("heading", { level: 1, name: /Welcome/ })).toBeVisible();
  await expect(page.getByText("Create an agent")).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Open the support console" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Export the trail as CSV" })).toBeVisible();
  await bothThemes(page, "support-home");

  const before = await supportViews(request, sam!.user_id);
  await page.goto(`/support?event=realm.curated&namespace=${ns}`);
  const results = page.getByRole("list", { name: /Events/ });
  const row = results.getByRole("listitem").filter({ hasText: "Realm curated" }).first();
  await expect(row).toBeVisible();
  await expect(row).toContainText("curated the operations of Pet shelter");
  await expect(row).toContainText("labelled “See the shelter's pets”, only an exact grant covers it");
  await expect(row).toContainText("Operations changed");
  // A trail written only by this server (its own database) verifies: what a support person sees first.
  await expect(page.getByRole("region", { name: "Audit chain" }).getByRole("status")).toContainText("Intact");
  await bothThemes(page, "support-console");

  // The same view again within ten minutes adds no record; the first one was recorded.
  const afterFirst = await supportViews(request, sam!.user_id);
  expect(afterFirst).toBeGreaterThan(before);
  await page.reload();
  await expect(row).toBeVisible();
  expect(await supportViews(request, sam!.user_id)).toBe(afterFirst);
});

test("the console names people, accounts, providers, permissions and grants, and catches reversed dates", async ({ page, browser, request }) => {
  const { alice, bob, sam } = demo().users as Record<string, { api_key: string; user_id: string }>;
  const agent = demo().agent;

  // Bob connects a mail account on the Connection Hub (his own browser).
  const bobContext = await browser.newContext();
  const bobPage = await bobContext.newPage();
  await signInAs(bobPage, "bob", "/connections");
  const provider = bobPage.getByLabel("Provider", { exact: true });
  if (await provider.isVisible()) await provider.selectOption({ label: "Demo mail (local)" });
  await bobPage.getByRole("button", { name: "Connect Demo mail (local)" }).click();
  await approveAtProvider(bobPage, "bob");
  await expect(bobPage.getByText("Account connected.")).toBeVisible();
  await bobContext.close();

  // Sam searches by Bob: the connection reads as the Connection Hub says it.
  await signInAs(page, "sam", "/support");
  await page.goto(`/support?user_id=${bob!.user_id}&event=account.connected`);
  await expect(page.getByLabel("Person", { exact: true })).toHaveValue(bob!.user_id);
  const results = page.getByRole("list", { name: /Events/ });
  const connected = results.getByRole("listitem").filter({ hasText: "Account connected" }).first();
  await expect(connected).toBeVisible();
  await expect(connected).toContainText("Bob Member connected an account");
  await expect(connected).toContainText("Demo mail (local)");
  await expect(connected).toContainText("Read your mail and labels");
  await expect(connected).not.toContainText("devmail");
  await expect(connected).not.toContainText("gmail:read");
  await expectAccessible(page);
  await screenshot(page, "support-names-account");

  // That search is itself recorded; its filters name the person, not the id.
  await page.goto(`/support?user_id=${sam!.user_id}&event=support.viewed`);
  const viewed = results.getByRole("listitem").filter({ hasText: "Person: Bob Member" }).first();
  await expect(viewed).toBeVisible();
  await expect(viewed).toContainText("What happened: Account connected");
  await expect(viewed).not.toContainText(bob!.user_id);
  await screenshot(page, "support-names-filters");

  // A grant's timeline is headed by its agent and realm; the id is only beneath.
  const listed = await request.get(`/api/v1/grants?scope=tenant&actor_id=${agent.actor_id}`, { headers: bearer(alice!.api_key) });
  expect(listed.status(), await listed.text()).toBe(200);
  const docsGrant = ((await listed.json()) as { grants: { id: string; namespace: string }[] }).grants.find((g) => g.namespace === "docs")!;
  expect(docsGrant).toBeTruthy();
  await page.goto(`/support?grant=${docsGrant.id}`);
  const heading = page.getByRole("heading", { level: 2, name: "Demo Agent's access to Docs" });
  await expect(heading).toBeVisible();
  await expect(heading).not.toContainText("grt_");
  await expect(page.getByRole("region", { name: "Demo Agent's access to Docs" })).toContainText(docsGrant.id);
  await expectAccessible(page);
  await screenshot(page, "support-grant-timeline");

  // "From" after "To": the form says so, on the fields, and does not search.
  await page.goto("/support");
  await page.waitForLoadState("networkidle");
  const from = page.getByLabel("From", { exact: true });
  const to = page.getByLabel("To", { exact: true });
  // Filled until they hold (a fill before the form hydrates is reset by it).
  await expect(async () => {
    await from.fill("2026-12-02T10:00");
    await to.fill("2026-12-01T10:00");
    await expect(from).toHaveValue("2026-12-02T10:00", { timeout: 500 });
    await expect(to).toHaveValue("2026-12-01T10:00", { timeout: 500 });
  }).toPass();
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const error = page.getByRole("alert").filter({ hasText: "wrong way round" });
  await expect(error).toBeVisible();
  await expect(from).toHaveAttribute("aria-invalid", "true");
  await expect(to).toHaveAttribute("aria-invalid", "true");
  await expect(from).toHaveAccessibleDescription(/wrong way round/);
  await expect(to).toHaveAccessibleDescription(/wrong way round/);
  await expect(page.getByText("No events match")).toHaveCount(0);
  expect(page.url()).not.toContain("from=");
  await expectAccessible(page);
  await screenshot(page, "support-dates-reversed");
  // Put right, the error goes and the search runs.
  await to.fill("2026-12-03T10:00");
  await expect(error).toHaveCount(0);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL(/from=/);
  await expect(from).not.toHaveAttribute("aria-invalid", "true");
});
