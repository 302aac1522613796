// The Connection Hub in a real browser: an agent's mail call meets gate two, alice follows the deep link
// and connects the demo mail account through the local OAuth provider, the agent's retry works; `send`
// meets a missing claim, alice upgrades, `send` works; alice disconnects and the wall is back.
import { expect, test, type APIRequestContext } from "@playwright/test";
import { approveAtProvider, demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

const READS = ["provider.about", "object.schema", "object.list", "object.search", "object.get"];
const base = () => process.env.E2E_BASE_URL!;

type ToolError = { error: { code: string; details: { reason: string; connection_hub_url: string; retry_hint: string; instructions: string } } };

async function expectWall(res: Awaited<ReturnType<APIRequestContext["post"]>>, reason: string): Promise<URL> {
  expect(res.status()).toBe(403);
  const body = (await res.json()) as ToolError;
  expect(body.error.code).toBe("needs_connected_account_consent");
  expect(body.error.details.reason).toBe(reason);
  expect(body.error.details.instructions).toContain(body.error.details.connection_hub_url);
  const url = new URL(body.error.details.connection_hub_url);
  expect(url.origin).toBe(base());
  expect(url.pathname).toBe("/connections/fix");
  return url;
}

test("connect, upgrade and disconnect a mail account from an agent's consent demand", async ({ page, request }) => {
  const alice = { authorization: `Bearer ${demo().users.alice!.api_key}` };
  const created = await request.post("/api/v1/actors", { headers: alice, data: { name: "Mail assistant", kind: "automation" } });
  expect(created.status()).toBe(201);
  const { actor, token } = (await created.json()) as { actor: { id: string }; token: { token: string } };
  const granted = await request.post("/api/v1/grants", { headers: alice, data: { actor_id: actor.id, namespace: "mail", operations: READS, expires: "1d" } });
  expect(granted.status()).toBe(201);
  const agent = { authorization: `Bearer ${token.token}` };
  const search = () => request.post("/api/v1/tools/search_objects", { headers: agent, data: { namespace: "mail", query: "agenda" } });
  const mail = { namespace: "mail", action: "send", payload: { to: ["dana@northwind.test"], subject: "Agenda for Thursday", body: "Hi Dana, the agenda looks good." } };
  let approvalId: string | undefined;
  const send = () => request.post("/api/v1/tools/object_action", { headers: agent, data: { ...mail, ...(approvalId ? { approval_id: approvalId } : {}) } });

  // Gate one passes (the grant), gate two answers: no mail account is connected.
  const connectLink = await expectWall(await search(), "connect_required");

  // Alice follows the deep link: it says who asked, for what, and what is missing.
  await signInAs(page, "alice", `${connectLink.pathname}${connectLink.search}`);
  await expect(page.getByRole("heading", { name: "Connect an account", level: 1 })).toBeVisible();
  await expect(page.getByText("Mail assistant", { exact: true })).toBeVisible();
  await expect(page.getByText("Search your mail")).toBeVisible();
  await expect(page.getByText("Read your mail and labels").first()).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "connections-fix-connect");

  await page.getByLabel("Label (optional)").fill("Work mail");
  await page.getByRole("button", { name: /^Connect / }).click();
  await approveAtProvider(page, "alice");
  await page.waitForURL((u) => u.href.startsWith(`${base()}/connections/fix`));
  await expect(page.getByText("Account connected.")).toBeVisible();
  await expect(page.getByText(/can retry the same request now/)).toBeVisible();

  // The agent's retry succeeds.
  const found = await search();
  expect(found.status()).toBe(200);
  const { items } = (await found.json()) as { items: { ref: string; label: string }[] };
  expect(items.map((i) => i.label)).toContain("Q3 planning — agenda draft");
  expect(items[0]!.ref).toMatch(/^mail:gmail:acc_[0-9a-z]{20}:message:/);

  // Sending is granted too, but the account was connected for reading only.
  expect((await request.post("/api/v1/grants", { headers: alice, data: { actor_id: actor.id, namespace: "mail", operations: ["object.action.send"], expires: "1d" } })).status()).toBe(201);
  // The demo asks each time before sending: a grant does not cover it; alice approves this one message.
  const asked = await send();
  expect(asked.status()).toBe(403);
  const approval = ((await asked.json()) as { error: { code: string; details: { approval_id: string; also_needed: { reason: string; connection_hub_url: string }[] } } }).error;
  expect(approval.code).toBe("approval_required");
  // The answer also names the account's wall ahead, so alice can open both at once.
  expect(approval.details.also_needed.map((w) => w.reason)).toEqual(["claim_upgrade_required"]);
  approvalId = approval.details.approval_id;
  expect((await request.post(`/api/v1/approvals/${approvalId}`, { headers: alice, data: { decision: "approve" } })).status()).toBe(200);
  // Approved, the same call meets the account's wall; the approval waits for the call that runs.
  const upgradeLink = await expectWall(await send(), "claim_upgrade_required");
  await page.goto(`${upgradeLink.pathname}${upgradeLink.search}`);
  await expect(page.getByRole("heading", { name: "Allow “Send mail as you” for alice@acme.test" })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "connections-fix-upgrade");
  await page.getByRole("button", { name: "Allow “Send mail as you”" }).click();
  await approveAtProvider(page, "alice");
  await page.waitForURL((u) => u.href.startsWith(`${base()}/connections/fix`));
  await expect(page.getByText("Permission added.")).toBeVisible();

  const sent = await send();
  expect(sent.status()).toBe(200);
  expect(await sent.json()).toMatchObject({ sent: true, account: "Work mail" });
  // Sent once: the same call again replays the answer, and another message needs its own approval.
  expect(await (await send()).json()).toEqual(await sent.json());
  approvalId = undefined;
  expect(((await (await send()).json()) as { error: { code: string } }).error.code).toBe("approval_required");

  // Alice disconnects on the Connection Hub; the agent meets the first wall again.
  await page.getByRole("link", { name: "Connections", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Connections", level: 1 })).toBeVisible();
  const accounts = page.getByRole("list", { name: "Connected accounts" });
  const work = accounts.getByRole("listitem").filter({ hasText: "Work mail" });
  await expect(work).toContainText("Connected");
  await expect(work).toContainText("Allows: Read your mail and labels · Send mail as you");
  await expectAccessible(page);
  await screenshot(page, "connections-list");
  await page.getByRole("button", { name: "Disconnect alice@acme.test" }).click();
  await page.getByRole("button", { name: "Yes, disconnect" }).click();
  await expect(page.getByText("No accounts connected yet")).toBeVisible();
  // Said in a live region that was already there, and focus lands on it: the row and its button are gone.
  const said = page.getByRole("status").filter({ hasText: "alice@acme.test is disconnected" });
  await expect(said).toBeVisible();
  await expect(said).toBeFocused();
  await expectAccessible(page);
  await screenshot(page, "connections-disconnected");

  await expectWall(await search(), "connect_required");
});

test("a callback whose state was not started here is refused, and the hub says so", async ({ page }) => {
  await signInAs(page, "bob", "/connections");
  await page.goto("/api/v1/connections/callback?code=made-up&state=not-a-real-state");
  await expect(page).toHaveURL(/\/connections\?connection_error=state_invalid/);
  await expect(page.getByRole("alert").filter({ hasText: "The connection did not complete" })).toContainText("does not belong to a connection you started");
  await expect(page.getByText("No accounts connected yet")).toBeVisible();
  await expectAccessible(page);
});

test("one visit: a new agent's mail search asks for consent and the missing account together, and the retry goes through", async ({ page, request }) => {
  const alice = { authorization: `Bearer ${demo().users.alice!.api_key}` };
  const created = await request.post("/api/v1/actors", { headers: alice, data: { name: "Inbox newcomer", kind: "hosted_agent" } });
  expect(created.status()).toBe(201);
  const { token } = (await created.json()) as { token: { token: string } };
  const agent = { authorization: `Bearer ${token.token}` };
  const search = () => request.post("/api/v1/tools/search_objects", { headers: agent, data: { kind: "mail.message", query: "agenda" } });

  // No grant and (after the test above) no account: both walls in one answer.
  const first = await search();
  expect(first.status()).toBe(403);
  const { error } = (await first.json()) as { error: { code: string; details: { connection_hub_url: string; also_needed: { reason: string }[]; instructions: string } } };
  expect(error.code).toBe("consent_required");
  expect(error.details.also_needed.map((w) => w.reason)).toEqual(["connect_required"]);
  expect(error.details.instructions).toContain("one visit fixes everything");

  const link = new URL(error.details.connection_hub_url);
  await signInAs(page, "alice", `${link.pathname}${link.search}`);
  await expect(page.getByText("Inbox newcomer").first()).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "consent-with-account-wall");
  await page.getByRole("button", { name: "Approve and continue" }).click();
  // Approved, the page goes straight on to connecting (the fix page), which comes back here.
  await page.waitForURL((u) => u.pathname === "/connections/fix");
  await expect(page.getByText("Inbox newcomer").first()).toBeVisible();
  await screenshot(page, "consent-continues-to-connect");
  await page.getByRole("button", { name: /^Connect / }).click();
  await approveAtProvider(page, "alice");
  await page.waitForURL((u) => u.pathname === link.pathname);
  await expect(page.getByText("Everything is done")).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "consent-everything-done");

  const retried = await search();
  expect(retried.status(), await retried.text()).toBe(200);
});

test("the accounts list failing to load says so in words, offers Retry, and leaves the Connect form", async ({ page }) => {
  // The browser cannot reach GET /api/v1/accounts (as offline): fetch rejects, no HTTP answer at all.
  let aborted = 0;
  const accountsApi = (u: URL) => u.pathname === "/api/v1/accounts";
  await page.route(accountsApi, async (route) => {
    aborted += 1;
    await route.abort("internetdisconnected");
  });
  await signInAs(page, "bob", "/connections");
  await expect(page.getByRole("heading", { name: "Connections", level: 1 })).toBeVisible();

  const failed = page.getByRole("alert").filter({ hasText: "Your accounts could not be loaded" });
  await expect(failed).toContainText("The server could not be reached. Check your connection and try again.");
  await expect(failed).not.toContainText("Failed to fetch");
  expect(aborted).toBeGreaterThan(0);
  const retry = failed.getByRole("button", { name: "Retry" });
  await expect(retry).toBeVisible();

  // Connecting does not wait for the list: the form is there, its label can be typed; only the provider and
  // permission choices (they come with the list) wait for it.
  const connect = page.getByRole("heading", { name: "Connect an account", level: 2 });
  await expect(connect).toBeVisible();
  await expect(page.getByText(/Not loaded yet\. The providers you can connect/)).toBeVisible();
  await expect(page.getByRole("button", { name: /^Connect / })).toHaveCount(0);
  await page.getByLabel("Label (optional)").fill("Side project");
  await expectAccessible(page);
  await screenshot(page, "connections-list-failed");

  // Retry is reached and pressed from the keyboard; still offline, it says it tried again and keeps focus.
  await page.getByRole("heading", { name: "Your connected accounts" }).focus();
  await page.keyboard.press("Tab");
  await expect(retry).toBeFocused();
  const before = aborted;
  await page.keyboard.press("Enter");
  await expect(failed).toContainText("Tried again just now, without success.");
  expect(aborted).toBeGreaterThan(before);
  await expect(failed.getByRole("button", { name: "Retry" })).toBeFocused();

  // Back online: Retry loads the list, focus lands on its heading, and the whole Connect form is there.
  await page.unroute(accountsApi);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("list", { name: "Connected accounts" }).or(page.getByText("No accounts connected yet"))).toBeVisible();
  await expect(failed).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Your connected accounts" })).toBeFocused();
  await expect(page.getByRole("group", { name: "Permissions to ask for" })).toBeVisible();
  await expect(page.getByRole("button", { name: /^Connect / })).toBeEnabled();
  await expect(page.getByLabel("Label (optional)")).toHaveValue("Side project");
  await expectAccessible(page);
});
