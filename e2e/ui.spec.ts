// The pages people use, one journey per kind of person: a user approves an agent's request and revokes it,
// an owner turns an operation off for the workspace and the agent's next call fails, and support staff find
// that revocation in the grant's timeline. Every page is scanned with axe and photographed at 1280 and 360 px.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function createAgent(request: APIRequestContext, apiKey: string, name: string) {
  const res = await request.post("/api/v1/actors", { headers: bearer(apiKey), data: { name, kind: "hosted_agent" } });
  expect(res.status()).toBe(201);
  const body = await res.json();
  return { id: body.actor.id as string, token: body.token.token as string };
}

async function callTool(request: APIRequestContext, token: string, tool: string, input: Record<string, unknown>) {
  const res = await request.post(`/api/v1/tools/${tool}`, { headers: bearer(token), data: input });
  return { status: res.status(), body: await res.json() };
}

const listMemory = { namespace: "memory", kind: "memory.item" };
const searchMemory = { namespace: "memory", query: "tea" };

async function narrow(page: Page, name: string) {
  await page.setViewportSize({ width: 360, height: 800 });
  await expectAccessible(page);
  await screenshot(page, `${name}-360`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.describe.serial("people using Realmgate's pages", () => {
  const shared: { agent?: { id: string; token: string }; grantId?: string; requestId?: string } = {};

  test("a user approves an agent's request on the consent screen, sees it on Agents, and revokes it", async ({ page, request }) => {
    const bob = demo().users.bob!;
    const agent = await createAgent(request, bob.api_key, "Trip planner");
    shared.agent = agent;

    const first = await callTool(request, agent.token, "list_objects", listMemory);
    expect(first.status).toBe(403);
    expect(first.body.error.code).toBe("consent_required");
    const consentUrl = new URL(first.body.error.details.connection_hub_url as string);
    shared.requestId = consentUrl.pathname.split("/").pop();

    await signInAs(page, "bob", consentUrl.pathname);
    await expect(page.getByRole("heading", { level: 1, name: "Trip planner wants to use Memory" })).toBeVisible();
    await expect(page.getByText("a hosted agent")).toBeVisible();
    // What the grant will allow, apart from the request that asked for it (which names the same operation).
    const allows = page.locator('section[aria-labelledby="what-heading"]');
    await expect(allows.getByText("List remembered items")).toBeVisible();
    await expect(allows.getByText("Read", { exact: true })).toBeVisible();
    const expiry = page.getByRole("group", { name: "For how long" });
    for (const label of ["1 hour", "1 day", "30 days", "No expiry"]) await expect(expiry.getByRole("radio", { name: new RegExp(`^${label}`) })).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "consent");
    await narrow(page, "consent");

    await expiry.getByRole("radio", { name: "30 days" }).check();
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByText("Approved — Trip planner can now do this")).toBeVisible();

    expect((await callTool(request, agent.token, "list_objects", listMemory)).status).toBe(200);

    await page.goto("/agents");
    const card = page.getByRole("article", { name: "Trip planner" });
    await expect(card.getByText("List remembered items")).toBeVisible();
    await expect(card.getByText(/Expires .*in 30 days/)).toBeVisible();
    shared.grantId = (await card.locator("[data-grant-id]").first().getAttribute("data-grant-id"))!;
    expect(shared.grantId).toMatch(/^grt_/);
    await card.getByRole("button", { name: "Show history of the Memory grant" }).click();
    await expect(card.getByRole("list", { name: `History of grant ${shared.grantId}` }).getByText("Used", { exact: true })).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "agents");
    await narrow(page, "agents");

    await card.getByRole("button", { name: "Revoke the Memory grant" }).click();
    await card.getByLabel("Why revoke the Memory grant?").fill("Trip is over");
    await card.getByRole("button", { name: "Confirm: revoke" }).click();
    // Said in words once the list shows it, and the keyboard lands there (the button used is gone).
    const said = card.getByRole("status").filter({ hasText: "Revoked “Trip planner”'s grant for Memory" });
    await expect(said).toBeVisible();
    await expect(said).toBeFocused();
    await expect(card.getByText("Nothing yet.")).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "agents-grant-revoked");
    await expect(card.getByText("Ended grants (1)")).toBeVisible();

    const after = await callTool(request, agent.token, "list_objects", listMemory);
    expect(after.status).toBe(403);
    expect(after.body.error.code).toBe("grant_revoked");

    // A second token, shown once, then revoked; then the agent itself, with a reason.
    await card.getByLabel("New token expires after").selectOption({ label: "1 day" });
    await card.getByRole("button", { name: "Issue a token for Trip planner" }).click();
    const second = (await card.getByLabel("New token for Trip planner").textContent())!.trim();
    expect(second).toMatch(/^rga_/);
    expect((await callTool(request, second, "list_objects", listMemory)).body.error.code).toBe("grant_revoked");
    const revokeSecond = card.getByRole("button", { name: new RegExp(`^Revoke token ${second.slice(0, 10)}`) });
    await revokeSecond.click();
    await expect(revokeSecond).toHaveCount(0);
    await expect(card.getByRole("status").filter({ hasText: `Revoked “Trip planner”'s token ${second.slice(0, 10)}` })).toBeVisible();
    expect((await callTool(request, second, "list_objects", listMemory)).status).toBe(401);
    await card.getByRole("button", { name: "Revoke agent Trip planner" }).click();
    await card.getByLabel("Why revoke Trip planner?").fill("Replaced by a new planner");
    await card.getByRole("button", { name: "Confirm: revoke agent" }).click();
    await expect(card.getByRole("status").filter({ hasText: "Revoked “Trip planner”" })).toContainText("Its tokens and grants stopped working");
    await expect(card.getByText("Revoked", { exact: true }).first()).toBeVisible();
    await expect(card.getByText(/Replaced by a new planner/)).toBeVisible();
    expect((await callTool(request, agent.token, "list_objects", listMemory)).status).toBe(401);
  });

  test("the consent screen refuses to be framed and refuses cross-site decisions", async ({ page, request }) => {
    const bob = demo().users.bob!;
    const agent = await createAgent(request, bob.api_key, "Framed bot");
    const denied = await callTool(request, agent.token, "search_objects", searchMemory);
    const path = new URL(denied.body.error.details.connection_hub_url as string).pathname;

    await signInAs(page, "bob", path);
    const res = await page.request.get(path);
    expect(res.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(res.headers()["x-frame-options"]).toBe("DENY");

    // Framed even by a page of our own origin (so the session cookie would be sent), it must not render.
    await page.goto("/agents");
    await page.evaluate((src) => {
      const frame = document.createElement("iframe");
      frame.title = "framed consent";
      frame.src = src;
      frame.onload = () => document.body.setAttribute("data-framed", "loaded");
      document.body.append(frame);
    }, path);
    await expect(page.locator("body")).toHaveAttribute("data-framed", "loaded");
    await expect(page.frameLocator('iframe[title="framed consent"]').getByRole("button", { name: "Approve" })).toHaveCount(0);

    const id = path.split("/").pop();
    const csrf = await page.request.post(`/api/v1/consent-requests/${id}`, { data: { decision: "approve" }, headers: { origin: "https://evil.example" } });
    expect(csrf.status()).toBe(403);
    expect((await csrf.json()).error.code).toBe("forbidden");
    const still = await request.get(`/api/v1/consent-requests/${id}`, { headers: bearer(bob.api_key) });
    expect((await still.json()).status).toBe("pending");

    await page.goto(path);
    await page.getByRole("button", { name: "Deny" }).click();
    await expect(page.getByText("Framed bot gets no access")).toBeVisible();
  });

  test("an owner closes a realm's description: a new agent is then asked to get consent before reading it", async ({ page, request }) => {
    const alice = demo().users.alice!;
    const agent = await createAgent(request, alice.api_key, "Curious newcomer");
    // No grant at all: describing is open by default.
    expect((await callTool(request, agent.token, "provider_about", { namespace: "board" })).status).toBe(200);

    await signInAs(page, "alice", "/realms");
    await expect(page.getByRole("article", { name: "Boards" }).getByText("Agents may read what it offers without asking.")).toBeVisible();
    await page.goto("/realms/board");
    const open = page.getByRole("switch", { name: "Agents may read this realm's description without asking" });
    await expect(open).toHaveAttribute("aria-checked", "true");
    await expectAccessible(page);
    const saved = page.waitForResponse((r) => r.url().includes("/api/v1/ceiling") && r.request().method() === "PATCH");
    await open.click();
    expect((await saved).status()).toBe(200);
    await expect(page.getByText("Saved: agents now ask before reading what Boards offers.")).toBeVisible();
    await expect(open).toHaveAttribute("aria-checked", "false");
    await screenshot(page, "realm-description-closed");

    const closed = await callTool(request, agent.token, "provider_about", { namespace: "board" });
    expect(closed.status).toBe(403);
    expect(closed.body.error).toMatchObject({ code: "consent_required" });
    const list = await callTool(request, agent.token, "provider_about", {});
    expect((list.body.realms as { namespace: string; needs_grant?: boolean }[]).find((r) => r.namespace === "board")).toMatchObject({ needs_grant: true });

    // The grid says so; after a reload the switch shows the saved state, and the owner opens it again by keyboard.
    await page.goto("/realms");
    await expect(page.getByRole("article", { name: "Boards" }).getByText("Agents ask before reading what it offers.")).toBeVisible();
    await page.goto("/realms/board");
    await expect(page.getByRole("switch", { name: "Agents may read this realm's description without asking" })).toHaveAttribute("aria-checked", "false");
    await page.getByRole("switch", { name: "Agents may read this realm's description without asking" }).focus();
    await page.keyboard.press("Space");
    await expect(page.getByText("Saved: agents may read what Boards offers without asking.")).toBeVisible();
    expect((await callTool(request, agent.token, "provider_about", { namespace: "board" })).status).toBe(200);
  });

  test("an owner turns an operation off for the workspace, and the agent's next call fails with operation_disabled", async ({ page, request, browser }) => {
    const alice = demo().users.alice!;
    const agent = await createAgent(request, alice.api_key, "Owner's researcher");
    const grant = await request.post("/api/v1/grants", {
      headers: bearer(alice.api_key),
      data: { actor_id: agent.id, namespace: "memory", operations: ["object.list", "object.search"], expires: "1d" },
    });
    expect(grant.status()).toBe(201);
    expect((await callTool(request, agent.token, "search_objects", searchMemory)).status).toBe(200);

    await signInAs(page, "alice", "/realms");
    await expect(page.getByRole("heading", { level: 1, name: "Realms" })).toBeVisible();
    const memoryCard = page.getByRole("article", { name: "Memory" });
    await expect(memoryCard.getByText("Keeps short things you want remembered")).toBeVisible();
    await expect(memoryCard.getByText("Works with")).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "realms");
    await narrow(page, "realms");

    await page.getByLabel("Search realms and operations").fill("move a card");
    await expect(page.getByRole("article", { name: "Memory" })).toHaveCount(0);
    await expect(page.getByRole("article", { name: "Boards" }).getByText("Move a card to another column or place")).toBeVisible();
    await page.getByLabel("Search realms and operations").fill("");

    await page.getByRole("link", { name: "Review Memory operations" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "What agents may do in Memory" })).toBeVisible();
    await page.getByRole("radio", { name: "Whole workspace (owner)" }).check();
    const search = page.getByRole("switch", { name: "Search remembered items" });
    await expect(search).toHaveAttribute("aria-checked", "true");
    await expect(page.getByText("Destructive", { exact: true }).first()).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "realm-memory");
    await narrow(page, "realm-memory");

    // A refused save rolls back, with a message saying so.
    await page.route("**/api/v1/ceiling", (route) =>
      route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "service_unavailable", message: "Try later.", details: {}, request_id: "req_e2e" } }) }),
    );
    await search.click();
    await expect(page.getByRole("alert").filter({ hasText: "“Search remembered items” is back on" })).toBeVisible();
    await expect(search).toHaveAttribute("aria-checked", "true");
    await page.unroute("**/api/v1/ceiling");

    // By keyboard this time: arrow keys move between switches, Space flips one.
    await page.getByRole("switch", { name: "List remembered items" }).focus();
    await page.keyboard.press("ArrowDown");
    await expect(search).toBeFocused();
    const saved = page.waitForResponse((r) => r.url().includes("/api/v1/ceiling") && r.request().method() === "PATCH");
    await page.keyboard.press("Space");
    await expect(search).toHaveAttribute("aria-checked", "false");
    expect((await saved).status()).toBe(200); // the optimistic flip is confirmed before we reload
    await expect(page.getByText("Change not saved")).toHaveCount(0);
    await page.reload();
    await page.getByRole("radio", { name: "Whole workspace (owner)" }).check();
    await expect(page.getByRole("switch", { name: "Search remembered items" })).toHaveAttribute("aria-checked", "false");

    const off = await callTool(request, agent.token, "search_objects", searchMemory);
    expect(off.status).toBe(403);
    expect(off.body.error).toMatchObject({ code: "operation_disabled", details: { wall: "owner_ceiling", operation: "object.search" } });
    expect((await callTool(request, agent.token, "list_objects", listMemory)).status).toBe(200);

    // A member sees what the owner blocked, and cannot switch it on for their agents.
    const bobContext = await browser.newContext();
    const bobPage = await bobContext.newPage();
    await signInAs(bobPage, "bob", "/realms/memory");
    const blocked = bobPage.getByRole("switch", { name: "Search remembered items" });
    await expect(blocked).toHaveAttribute("aria-disabled", "true");
    await expect(bobPage.getByText("Off for the whole workspace by its owner.")).toBeVisible();
    await expect(bobPage.getByRole("radio", { name: "Whole workspace (owner)" })).toHaveCount(0);
    await expect(blocked).toHaveAttribute("aria-checked", "false");
    await blocked.click({ force: true });
    await blocked.press("Space");
    await expect(blocked).toHaveAttribute("aria-checked", "false");
    await expectAccessible(bobPage);
    await screenshot(bobPage, "realm-memory-member");
    await bobContext.close();

    // Bulk: turn every destructive operation off for the owner's own agents, then back on.
    await page.getByRole("radio", { name: "My agents" }).check();
    await page.getByRole("button", { name: "All off: destructive operations" }).click();
    await page.getByRole("dialog").getByRole("button", { name: /^Yes, turn off/ }).click();
    // Operations that change things pick Off / Ask / On (e2e/modes.spec.ts); reads keep a switch.
    const offOf = (name: string) => page.getByRole("radiogroup", { name }).getByRole("radio", { name: "Off" });
    await expect(offOf("Forget an item for good, saying why")).toHaveAttribute("aria-checked", "true");
    await expect(offOf("Delete a remembered item for good")).toHaveAttribute("aria-checked", "true");
    await page.getByRole("button", { name: "All on: destructive operations" }).click();
    await page.getByRole("dialog").getByRole("button", { name: /^Yes, turn on/ }).click();
    await expect(offOf("Forget an item for good, saying why")).toHaveAttribute("aria-checked", "false");

    // Filtering the list.
    await page.getByLabel("Search operations").fill("pin");
    await expect(page.getByText("Showing 1 of 9 operations.")).toBeVisible();
    await page.getByLabel("Search operations").fill("");

    // Back on, so later journeys start from a clean ceiling.
    await page.getByRole("radio", { name: "Whole workspace (owner)" }).check();
    await page.getByRole("switch", { name: "Search remembered items" }).click();
    await expect(page.getByRole("switch", { name: "Search remembered items" })).toHaveAttribute("aria-checked", "true");
    await expect.poll(async () => (await callTool(request, agent.token, "search_objects", searchMemory)).status).toBe(200);
  });

  test("support staff find the user's revocation in the grant's timeline, and every view is audited", async ({ page, request }) => {
    expect(shared.grantId).toBeTruthy();
    await signInAs(page, "sam", "/support");
    await expect(page.getByRole("heading", { level: 1, name: "Support console" })).toBeVisible();
    await expect(page.getByText("Intact", { exact: true }).first()).toBeVisible();
    const revocations = page.getByRole("region", { name: "Revocations" });
    const item = revocations.getByRole("listitem").filter({ hasText: "Trip planner's grant for Memory revoked" });
    await expect(item.getByText("Reason: “Trip is over”")).toBeVisible();
    await expect(item.getByText("By Bob Member")).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "support");
    await narrow(page, "support");

    await item.getByRole("button", { name: `Grant timeline for the revoked grant ${shared.grantId}` }).click();
    const timeline = page.getByRole("list", { name: `History of grant ${shared.grantId}` });
    await expect(timeline).toBeVisible();
    const stages = await timeline.getByRole("listitem").locator("span.rounded-full").allTextContents();
    // One refused call with each of the agent's two tokens after the revocation.
    expect(stages).toEqual(["Asked", "Created", "Approved", "Used", "Revoked", "Denied", "Denied"]);
    await expect(timeline.getByText("Bob Member revoked it: “Trip is over”.")).toBeVisible();
    await expect(timeline.getByText(/Trip planner's call to “List remembered items” was refused: grant_revoked/).first()).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`grant=${shared.grantId}`));
    await expectAccessible(page);
    await screenshot(page, "support-timeline");

    // Search by agent and outcome.
    await page.getByLabel("Agent").selectOption({ label: "Trip planner (Hosted agent, revoked)" });
    await page.getByLabel("Outcome").selectOption({ label: "Denied" });
    await page.getByRole("button", { name: "Search" }).click();
    const results = page.getByRole("region", { name: /Events/ });
    await expect(results.getByRole("listitem")).toHaveCount(3);
    // Reasons in words, not codes.
    await expect(results.getByText("Reason: The grant had been revoked")).toHaveCount(2);
    await expect(results.getByText("Reason: No grant covers this; the person was asked")).toBeVisible();

    const csv = await page.request.get("/api/v1/audit/export?event=grant.revoked");
    expect(csv.status()).toBe(200);
    expect(csv.headers()["content-type"]).toContain("text/csv");
    const text = await csv.text();
    expect(text.split("\n")[0]).toBe("pos,lane,seq,at,event,outcome,user_id,user_email,actor_id,actor_name,namespace,operation,ref,gate,reason,subject_id,request_id,details");
    expect(text).toContain("Trip is over");
    expect(text).toContain(shared.grantId!);

    // Support is read-only, and what support looked at is itself in the audit trail.
    const refuse = await page.request.delete(`/api/v1/grants/${shared.grantId}`, { data: { reason: "support tries" }, headers: { origin: process.env.E2E_BASE_URL! } });
    expect(refuse.status()).toBe(403);
    const alice = demo().users.alice!;
    const viewed = await (await request.get("/api/v1/audit?event=support.viewed&limit=500", { headers: bearer(alice.api_key) })).json();
    const views = new Set((viewed.events as { details: { view: string } }[]).map((e) => e.details.view));
    for (const v of ["support.console", "support.revocations", "grant.timeline"]) expect(views).toContain(v);
    const exported = await (await request.get("/api/v1/audit?event=audit.exported", { headers: bearer(alice.api_key) })).json();
    expect(exported.events.length).toBeGreaterThan(0);
    const verified = await (await request.get("/api/v1/audit?event=audit.verified", { headers: bearer(alice.api_key) })).json();
    expect(verified.events.length).toBeGreaterThan(0);
  });

  test("the realm REST views: cards, one realm's operations with the caller's state, not_found", async ({ request }) => {
    const bob = demo().users.bob!;
    const list = await (await request.get("/api/v1/realms", { headers: bearer(bob.api_key) })).json();
    const memory = list.realms.find((r: { namespace: string }) => r.namespace === "memory");
    expect(memory).toMatchObject({ title: "Memory", connection: { needed: false }, operations: { total: 9 } });
    const detail = await (await request.get("/api/v1/realms/memory", { headers: bearer(bob.api_key) })).json();
    expect(detail.can_change).toEqual({ ceiling: false, choice: true });
    expect(detail.operations.find((o: { key: string }) => o.key === "object.action.forget")).toMatchObject({ label: "Forget an item for good, saying why", risk: "destructive", ceiling: true, choice: true, effective: true });
    const missing = await request.get("/api/v1/realms/nope", { headers: bearer(bob.api_key) });
    expect(missing.status()).toBe(404);
    expect((await missing.json()).error.code).toBe("not_found");
    const agent = await createAgent(request, bob.api_key, "Curious bot");
    expect((await request.get("/api/v1/realms", { headers: bearer(agent.token) })).status()).toBe(403);
    const timeline = await request.get(`/api/v1/grants/${shared.grantId}/timeline`, { headers: bearer(demo().users.alice!.api_key) });
    expect(timeline.status()).toBe(200);
    expect((await timeline.json()).grant).toMatchObject({ id: shared.grantId, status: "revoked", revoke_reason: "Trip is over" });
    const member = await request.get("/api/v1/audit/export", { headers: bearer(bob.api_key) });
    expect(member.status()).toBe(403);
  });

  test("the consent screen names the item the agent asked about, and approving only it scopes the grant to it", async ({ page, request }) => {
    const bob = demo().users.bob!;
    const made = await callTool(request, bob.api_key, "upsert_object", { namespace: "memory", kind: "memory.item", fields: { text: "Bob's seat preference: aisle" } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const itemRef = made.body.ref as string;
    const agent = await createAgent(request, bob.api_key, "Seat picker");
    const asked = await callTool(request, agent.token, "get_object", { ref: itemRef });
    expect(asked.body.error.code).toBe("consent_required");
    await signInAs(page, "bob", new URL(asked.body.error.details.connection_hub_url as string).pathname);
    const only = page.getByRole("radio", { name: /Only the item it named/ });
    await expect(only).toBeChecked();
    await expect(page.getByText("“Bob's seat preference: aisle”")).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "consent-named-item");
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByText("Approved — Seat picker can now do this")).toBeVisible();
    expect((await callTool(request, agent.token, "get_object", { ref: itemRef })).status).toBe(200);
    // Only that item: another of bob's items is still a new request.
    const other = await callTool(request, bob.api_key, "upsert_object", { namespace: "memory", kind: "memory.item", fields: { text: "Bob's meal preference" } });
    expect((await callTool(request, agent.token, "get_object", { ref: other.body.ref as string })).body.error.code).toBe("consent_required");
  });

  test("home is a dashboard, and members are kept out of the support console", async ({ page, request }) => {
    const bob = demo().users.bob!;
    const agent = await createAgent(request, bob.api_key, "Dashboard bot");
    await callTool(request, agent.token, "get_object", { ref: "memory:item:mem_aaaaaaaaaaaaaaaaaaaa" });
    await signInAs(page, "bob", "/");
    const pending = page.getByRole("region", { name: /Requests waiting for you/ });
    await expect(pending.getByText("Dashboard bot")).toBeVisible();
    await expect(pending.getByRole("link", { name: "Review the request from Dashboard bot" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Support" })).toHaveCount(0);
    await expectAccessible(page);
    await screenshot(page, "home");
    await narrow(page, "home");
    await pending.getByRole("link", { name: "Review the request from Dashboard bot" }).click();
    // The agent named an item bob cannot see (here: none exists): he cannot approve "only this item" for it.
    await expect(page.getByRole("radio", { name: /Only the item it named/ })).toBeDisabled();
    await expect(page.getByRole("radio", { name: /Everything you can reach/ })).toBeChecked();
    await expect(page.getByText("Something you cannot see", { exact: true })).toBeVisible();
    await expect(page.getByText("memory:item:mem_aaaaaaaaaaaaaaaaaaaa")).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, "consent-ref");
    await page.goto("/support");
    await expect(page.getByText("This console is for support staff and workspace owners")).toBeVisible();
    await page.goto("/realms/no-such-realm");
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  });
});
