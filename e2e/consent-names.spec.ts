// The consent screen names things: an agent asks to reply in a docs comment thread; alice opens the consent link
// and reads the thread by its label (its ref only on demand) and the reply text under "The request that asked
// for this", apart from what the grant will allow.
import { expect, test, type APIRequestContext } from "@playwright/test";
import { demo, expectAccessible, screenshot, signInAs } from "./support/helpers";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function callTool(request: APIRequestContext, token: string, tool: string, input: Record<string, unknown>) {
  const res = await request.post(`/api/v1/tools/${tool}`, { headers: bearer(token), data: input });
  return { status: res.status(), body: await res.json() };
}

test("the consent page shows the thread by its label and the reply the agent wants to post", async ({ page, request }) => {
  const alice = demo().users.alice!;
  const doc = await callTool(request, alice.api_key, "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Q3 planning" } });
  expect(doc.status, JSON.stringify(doc.body)).toBe(200);
  const thread = await callTool(request, alice.api_key, "upsert_object", { namespace: "docs", kind: "docs.comment_thread", fields: { document: doc.body.ref, body: "Ship the agent gateway by October" } });
  expect(thread.status, JSON.stringify(thread.body)).toBe(200);
  const threadRef = thread.body.ref as string;

  const made = await request.post("/api/v1/actors", { headers: bearer(alice.api_key), data: { name: "Reply helper", kind: "hosted_agent" } });
  expect(made.status()).toBe(201);
  const token = (await made.json()).token.token as string;
  const reply = "Agreed — I will draft the rollout plan by Friday.";
  const asked = await callTool(request, token, "object_action", { ref: threadRef, action: "reply_comment", payload: { body: reply } });
  expect(asked.body.error.code).toBe("consent_required");

  await page.setViewportSize({ width: 1280, height: 900 });
  await signInAs(page, "alice", new URL(asked.body.error.details.connection_hub_url as string).pathname);
  const call = page.getByRole("region", { name: "The request that asked for this" });
  await expect(call.getByText("Reply in a comment thread")).toBeVisible();
  await expect(call.getByText(reply)).toBeVisible();
  await expect(call.getByText(/Ship the agent gateway/)).toBeVisible();
  await expect(page.getByRole("region", { name: /What the grant will allow/ })).toBeVisible();
  // The item by its label; its ref only when asked for.
  const on = page.getByRole("region", { name: "On what" });
  await expect(on.getByText(/Ship the agent gateway/)).toBeVisible();
  await expect(on.getByText(threadRef)).toBeHidden();
  await on.getByText("Show ref").click();
  await expect(on.getByText(threadRef)).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "consent-names");
  await page.setViewportSize({ width: 360, height: 800 });
  await expectAccessible(page);
  await screenshot(page, "consent-names-360");

  // Approving: the focus lands on what happened (not on the page's body), and the navigation's count of requests
  // waiting drops by this one without leaving the page.
  await page.setViewportSize({ width: 1280, height: 900 });
  const waiting = async () => Number((await page.getByRole("navigation", { name: "Main" }).getByText(/\d+ requests? waiting for you/).textContent())?.match(/\d+/)?.[0] ?? 0);
  const before = await waiting();
  expect(before).toBeGreaterThan(0);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  const outcome = page.getByText("Approved — Reply helper can now do this");
  await expect(outcome).toBeVisible();
  await expect.poll(() => page.evaluate(() => document.activeElement?.textContent ?? "")).toContain("Approved — Reply helper can now do this");
  await expect.poll(() => page.evaluate(() => document.activeElement === document.body)).toBe(false);
  if (before === 1) await expect(page.getByRole("navigation", { name: "Main" }).getByText(/waiting for you/)).toHaveCount(0);
  else await expect.poll(waiting).toBe(before - 1);
  await expectAccessible(page);
});
