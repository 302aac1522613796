// Ask each time, end to end: the demo agent's delete of a document answers approval_required; alice opens the
// approval page from the answer's link, reads the call by name, approves it with the keyboard and is told how long
// the agent has; the agent's retry runs it once and a second retry replays the same answer. The page is axe clean
// at 1280 and 360 px, light and dark.
import fs from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { demo, expectAccessible, signInAs } from "./support/helpers";

type Json = Record<string, unknown>;

const SHOTS = "/tmp/shots-approvals-ui";

async function tool(request: APIRequestContext, token: string, name: string, input: unknown) {
  const res = await request.post(`/api/v1/tools/${name}`, { headers: { authorization: `Bearer ${token}` }, data: input });
  return { status: res.status(), body: (await res.json()) as Json };
}

/** The owner asks each time for deleting documents (the demo may already; setting it again changes nothing). */
async function askForDeletes(request: APIRequestContext, ownerKey: string) {
  const res = await request.patch("/api/v1/ceiling", { headers: { authorization: `Bearer ${ownerKey}` }, data: { namespace: "docs", changes: [{ operation: "object.delete", mode: "ask" }] } });
  expect(res.status(), await res.text()).toBe(200);
}

async function shoot(page: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

/** Axe clean in both schemes at the current size, with a screenshot of each. */
async function accessibleBothWays(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expectAccessible(page);
    await shoot(page, `${name}-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

test("an ask-mode delete waits for alice, runs once when she approves, and replays after", async ({ page, request }) => {
  const { agent, users } = demo();
  const alice = { authorization: `Bearer ${users.alice!.api_key}` };
  await askForDeletes(request, users.alice!.api_key);
  const made = await tool(request, users.alice!.api_key, "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Old offsite agenda" } });
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  const ref = made.body.ref as string;

  // The agent asks; nothing runs.
  const asked = await tool(request, agent.token, "delete_object", { ref });
  expect(asked.status, JSON.stringify(asked.body)).toBe(403);
  const err = asked.body.error as { code: string; details: Json };
  expect(err.code).toBe("approval_required");
  const approvalId = err.details.approval_id as string;
  const approvalUrl = err.details.approval_url as string;
  expect(approvalUrl).toBe(`${process.env.E2E_BASE_URL}/approvals/${approvalId}`);

  // An actor token may not decide its own approval.
  const self = await request.post(`/api/v1/approvals/${approvalId}`, { headers: { authorization: `Bearer ${agent.token}` }, data: { decision: "approve" } });
  expect(self.status()).toBe(403);

  // Home lists the waiting call by names; the approval page shows the call.
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInAs(page, "alice", "/");
  const waiting = page.getByRole("region", { name: /Calls waiting for your approval/ });
  // (Other calls of the demo agent may wait too, on a database other tests share: find this one by its object.)
  const mine = waiting.getByRole("listitem").filter({ hasText: "Old offsite agenda" });
  await expect(mine).toHaveCount(1);
  await expect(mine).toContainText("Demo Agent");
  await accessibleBothWays(page, "home-1280");

  await page.goto(new URL(approvalUrl).pathname);
  await expect(page.getByRole("heading", { level: 1, name: "Approve one call from Demo Agent?" })).toBeVisible();
  const call = page.getByRole("region", { name: "What it will do" });
  await expect(call.getByText("“Old offsite agenda”")).toBeVisible();
  await expect(call.getByText("Destroys")).toBeVisible();
  // The ref only on demand.
  await expect(call.getByText(ref, { exact: true })).toBeHidden();
  await expect(page.getByText(/exactly this request/)).toBeVisible();
  await accessibleBothWays(page, "approval-1280");
  await page.setViewportSize({ width: 360, height: 800 });
  await accessibleBothWays(page, "approval-360");
  await page.setViewportSize({ width: 1280, height: 900 });

  // Approve with the keyboard: a note, then Tab to the approve button and Enter.
  const note = page.getByLabel(/Note/);
  await note.focus();
  await page.keyboard.type("A duplicate of the new agenda");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Approve this one call" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByText("The agent can now run this call once — it has until")).toBeVisible();
  // The page's heading follows: the call is no longer waiting.
  await expect(page.getByRole("heading", { level: 1, name: "One call from Demo Agent" })).toBeVisible();
  await expectAccessible(page);
  await shoot(page, "approved-1280");

  // Decided once: a second decision names the first.
  const again = await request.post(`/api/v1/approvals/${approvalId}`, { headers: alice, data: { decision: "deny" } });
  expect(again.status()).toBe(409);
  expect(((await again.json()).error as { details: Json }).details).toMatchObject({ status: "approved", decided_by: expect.any(String) });

  // The retry with approval_id runs it, once; the next replays the same answer.
  const ran = await tool(request, agent.token, "delete_object", { ref, approval_id: approvalId });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  const replay = await tool(request, agent.token, "delete_object", { ref, approval_id: approvalId });
  expect(replay.status).toBe(200);
  expect(replay.body).toEqual(ran.body);

  // The page now says it ran.
  await page.reload();
  await expect(page.getByText(/It ran at/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve this one call" })).toHaveCount(0);
  await accessibleBothWays(page, "consumed-1280");
  await page.setViewportSize({ width: 360, height: 800 });
  await accessibleBothWays(page, "consumed-360");

  // The support console (alice is an owner) shows the approval's life from the audit trail, with who and when.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/support?approval=${approvalId}`);
  const timeline = page.getByRole("list", { name: `History of approval ${approvalId}` });
  await expect(timeline.getByText("Demo Agent asked to run one call of")).toBeVisible();
  await expect(timeline.getByText(/Alice Owner approved this one call: “A duplicate of the new agenda”/)).toBeVisible();
  await expect(timeline.getByText("Demo Agent ran the approved call, once.")).toBeVisible();
  await expectAccessible(page);
  await shoot(page, "support-timeline-1280");
});

test("never framed, no cross-site decision; a denial with a note: too long is said before sending, the agent is told the note", async ({ page, request }) => {
  const { agent, users } = demo();
  await askForDeletes(request, users.alice!.api_key);
  const made = await tool(request, users.alice!.api_key, "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Board minutes" } });
  const ref = made.body.ref as string;
  const asked = await tool(request, agent.token, "delete_object", { ref });
  expect(asked.status).toBe(403);
  const approvalId = ((asked.body.error as { details: Json }).details.approval_id as string);

  await page.setViewportSize({ width: 360, height: 800 });
  await signInAs(page, "alice", `/approvals/${approvalId}`);
  // Never framed, and a cross-site write with her session cookie is refused (the approval stays pending).
  const res = await page.request.get(`/approvals/${approvalId}`);
  expect(res.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  const csrf = await page.request.post(`/api/v1/approvals/${approvalId}`, { data: { decision: "approve" }, headers: { origin: "https://evil.example" } });
  expect(csrf.status()).toBe(403);
  expect((await csrf.json()).error.code).toBe("forbidden");
  const still = await request.get(`/api/v1/approvals/${approvalId}`, { headers: { authorization: `Bearer ${users.alice!.api_key}` } });
  expect((await still.json()).status).toBe("pending");

  const note = page.getByLabel(/Note/);
  await note.fill("x".repeat(501));
  await expect(page.getByText(/too long, shorten it to send/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Deny" })).toBeDisabled();
  await note.fill("We keep minutes for seven years.");
  await page.getByRole("button", { name: "Deny" }).click();
  await expect(page.getByText(/Nothing ran\. Demo Agent is told you said no, with your note/)).toBeVisible();
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessible(page);
  await shoot(page, "denied-360-dark");
  await page.emulateMedia({ colorScheme: "light" });

  const retry = await tool(request, agent.token, "delete_object", { ref, approval_id: approvalId });
  expect(retry.status).toBe(403);
  expect(retry.body.error).toMatchObject({ code: "approval_denied", details: { note: "We keep minutes for seven years." } });
});

test("an approval of someone else is not found, on the page and over REST", async ({ page, request }) => {
  const { users } = demo();
  const res = await request.get("/api/v1/approvals/apr_doesnotexist", { headers: { authorization: `Bearer ${users.alice!.api_key}` } });
  expect(res.status()).toBe(404);
  expect(((await res.json()).error as Json).code).toBe("not_found");
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInAs(page, "bob", "/approvals/apr_doesnotexist");
  await expect(page.getByRole("heading", { level: 1, name: "Approval not found" })).toBeVisible();
  await expectAccessible(page);
});
