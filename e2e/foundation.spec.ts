import { expect, test } from "@playwright/test";
import { demo, expectAccessible, screenshot, signInAs } from "./support/helpers";
import { freePort, spawnNext, waitForExit, waitForHealth } from "./support/server";

test.describe("sign-in and personal API keys", () => {
  test("a person signs in through OpenID Connect, creates a key, uses it, and revokes it", async ({ page, request }) => {
    await page.goto("/signin");
    await expectAccessible(page);
    await screenshot(page, "signin");
    // Production sign-in only: the development sign-in exists only where explicitly enabled.
    await expect(page.getByRole("heading", { name: "Development sign-in" })).toHaveCount(0);

    await signInAs(page, "alice", "/settings/api-keys");
    await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
    await expect(page.getByText("Alice Owner · Acme Inc. · owner")).toBeVisible();

    await page.getByLabel("Key name").fill("e2e laptop");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByLabel("New API key").textContent())!.trim();
    expect(key).toMatch(/^rgk_/);
    await expect(page.getByRole("button", { name: "Revoke key e2e laptop" })).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "api-keys");

    const me = await request.get("/api/v1/me", { headers: { authorization: `Bearer ${key}` } });
    expect(me.status()).toBe(200);
    expect(await me.json()).toMatchObject({ user: { email: "alice@acme.test" }, tenant: { slug: "acme" }, role: "owner", authenticated_via: "api_key" });

    await page.getByRole("button", { name: "Revoke key e2e laptop" }).click();
    await page.getByRole("dialog", { name: "Revoke the key “e2e laptop”?" }).getByRole("button", { name: "Yes, revoke the key" }).click();
    await expect(page.getByText(/revoked/).first()).toBeVisible();
    const after = await request.get("/api/v1/me", { headers: { authorization: `Bearer ${key}` } });
    expect(after.status()).toBe(401);
    expect((await after.json()).error.code).toBe("unauthenticated");
  });

  test("signing out ends the session: the old session cookie is refused afterwards", async ({ page, playwright }) => {
    await signInAs(page, "bob", "/settings/account");
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name.includes("session-token"))!;
    expect(session).toBeTruthy();
    const replay = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL, extraHTTPHeaders: { cookie: `${session.name}=${session.value}` } });
    expect((await replay.get("/api/v1/me")).status()).toBe(200);
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(/\/signin/);
    const after = await replay.get("/api/v1/me");
    expect(after.status()).toBe(401);
    await replay.dispose();
  });

  test("sign out of all devices ends every session of the person, on every browser", async ({ browser, playwright }) => {
    const laptop = await browser.newContext();
    const phone = await browser.newContext();
    const [a, b] = [await laptop.newPage(), await phone.newPage()];
    await signInAs(a, "sam", "/settings/account");
    await signInAs(b, "sam", "/settings/account");
    const cookieOf = async (ctx: typeof laptop) => (await ctx.cookies()).find((c) => c.name.includes("session-token"))!;
    const phoneCookie = await cookieOf(phone);
    await expectAccessible(a);
    await screenshot(a, "account");
    await a.getByRole("button", { name: "Sign out of all devices" }).click();
    await expect(a.getByText("Signed out of all devices")).toBeVisible();
    const replay = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL, extraHTTPHeaders: { cookie: `${phoneCookie.name}=${phoneCookie.value}` } });
    expect((await replay.get("/api/v1/me")).status()).toBe(401);
    await b.goto("/settings/account");
    await expect(b).toHaveURL(/\/signin/);
    await replay.dispose();
    await laptop.close();
    await phone.close();
  });

  test("a cookie-authenticated write from another site is refused", async ({ page }) => {
    await signInAs(page, "bob");
    const res = await page.request.post("/api/v1/api-keys", { data: { name: "csrf" }, headers: { origin: "https://evil.example" } });
    expect(res.status()).toBe(403);
    expect((await res.json()).error.code).toBe("forbidden");
  });
});

test.describe("one clear error for every bad request", () => {
  test("health names the database", async ({ request }) => {
    const res = await request.get("/api/health");
    expect(await res.json()).toEqual({ ok: true, db: process.env.DATABASE_URL ? "postgres" : "pglite", version: expect.any(String) });
  });

  test("malformed JSON, unknown fields, unknown routes, oversize bodies, missing credentials", async ({ request }) => {
    const auth = { authorization: `Bearer ${demo().users.alice!.api_key}` };
    const cases = [
      { res: await request.post("/api/v1/api-keys", { headers: { ...auth, "content-type": "application/json" }, data: "{not json" }), status: 400, code: "invalid_input" },
      { res: await request.post("/api/v1/api-keys", { headers: auth, data: { name: "x", tenant_id: "tnt_other" } }), status: 400, code: "invalid_input" },
      { res: await request.get("/api/v1/no-such-thing", { headers: auth }), status: 404, code: "not_found" },
      { res: await request.post("/api/v1/api-keys", { headers: { ...auth, "content-type": "application/json" }, data: `{"name":"${"x".repeat(1_100_000)}"}` }), status: 413, code: "payload_too_large" },
      { res: await request.get("/api/v1/me"), status: 401, code: "unauthenticated" },
      { res: await request.get("/api/v1/me", { headers: { authorization: "Basic abc" } }), status: 401, code: "unauthenticated" },
    ];
    for (const c of cases) {
      expect(c.res.status(), c.code).toBe(c.status);
      const body = await c.res.json();
      expect(body.error).toMatchObject({ code: c.code, message: expect.any(String), request_id: expect.any(String) });
    }
  });

  test("an unknown page is a friendly 404", async ({ page }) => {
    const res = await page.goto("/no/such/page");
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  });
});

test("the development sign-in, when explicitly enabled, signs a demo user in with demo.json's password", async ({ browser }) => {
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "realmgate-devlogin-"));
  const port = await freePort();
  const server = spawnNext(port, {
    AUTH_SECRET: "d".repeat(40),
    APP_URL: `http://127.0.0.1:${port}`,
    REALMGATE_DATA_DIR: dataDir,
    REALMGATE_SEED_DEMO: "1",
    REALMGATE_DEV_LOGIN: "1",
    DATABASE_URL: "",
    AUTH_OIDC_ISSUER: "",
    AUTH_OIDC_CLIENT_ID: "",
    AUTH_OIDC_CLIENT_SECRET: "",
  });
  try {
    await waitForHealth(server);
    const bob = JSON.parse(fs.readFileSync(path.join(dataDir, "demo.json"), "utf8")).users.bob;
    const page = await browser.newPage({ baseURL: server.url });
    await page.goto("/signin");
    await expect(page.getByRole("heading", { name: "Development sign-in" })).toBeVisible();
    await page.getByLabel("Email").fill(bob.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "did not match" })).toBeVisible();
    await page.getByLabel("Email").fill(bob.email);
    await page.getByLabel("Password").fill(bob.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText("Bob Member · Acme Inc. · member")).toBeVisible();
    await page.close();
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.describe("start-up refuses bad configuration", () => {
  test("a missing AUTH_SECRET stops start-up with one line naming it", async () => {
    const server = spawnNext(await freePort(), { AUTH_SECRET: "", REALMGATE_DATA_DIR: ":memory:" });
    const { code, output } = await waitForExit(server);
    expect(code).not.toBe(0);
    expect(output).toContain("Invalid configuration: AUTH_SECRET");
  });

  test("an unreachable database exits non-zero with a clear error, not a hang", async () => {
    const server = spawnNext(await freePort(), {
      AUTH_SECRET: "x".repeat(40),
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/nothing",
      DB_CONNECT_TIMEOUT_MS: "2000",
    });
    const { code, output } = await waitForExit(server);
    expect(code).not.toBe(0);
    expect(output).toContain("Cannot reach the PostgreSQL server at postgres://postgres@127.0.0.1:1/nothing");
  });
});
