// A support person's day: their home offers their own work (no "Create an agent"); the console shows what a
// curation changed, in words; opening the same view again adds no audit record; light and dark themes are axe
// clean at desktop and phone widths. Alice (owner) imports and curates a small service through the API first.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

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
