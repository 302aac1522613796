// Slack through the shared connection code, against a local stand-in speaking Slack's wire format: OAuth v2 with
// user scopes, identity from auth.test (one account per workspace and user), incremental upgrade, auth.revoke on
// disconnect, token rotation, and the Web API's refusals as the session answers them.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectedAccounts } from "@/db/schema";
import { envOverride, errorOf, inCall, makeTenant, refusingDelivery, userPrincipal, type TestTenant } from "@/test-support";
import { env } from "@/lib/env";
import { disconnectAccount, listAccounts, openTokens } from "../../accounts";
import { completeConnection, startConnection } from "../../flows";
import { openAccount, type AccountNeed } from "../../session";
import { connectWith } from "../../test-kit";
import { SLACK_READ_SCOPES } from ".";
import { startSlackStub, type SlackStub, type StubUser } from "./fixtures/slack-stub";

let stub: SlackStub;
const envs = envOverride();

beforeAll(async () => {
  stub = await startSlackStub();
  envs.set(stub.env);
});
afterAll(async () => {
  envs.restore();
  await stub?.close();
});
beforeEach(() => {
  Object.assign(stub.faults, { retryAfter: null, tokenEndpoint429: false });
  stub.rotation.on = false;
});

const acme: StubUser = { team: "T0ACME", teamName: "Acme", user: "U0ALICE", handle: "alice", email: "alice@acme.test" };
const globex: StubUser = { team: "T0GLOBEX", teamName: "Globex", user: "U0ALICE2", handle: "alice", email: "alice@acme.test" };
const as = (who: StubUser) => async (url: string) => stub.approve(url, who);
const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

const need = (claims: string[], selector: string | null = null): AccountNeed => ({ api: "slack", claims, namespace: "slack", operation: "object.search", pinnedAccountId: null, selector });
const viaSession = <T>(t: TestTenant, n: AccountNeed, fn: (s: Awaited<ReturnType<typeof openAccount>>) => Promise<T>, now?: Date) =>
  inCall(t, userPrincipal(t, "alice"), refusingDelivery("slack"), async (ctx) => fn(await openAccount(ctx, n)), { now });
const rowOf = async (t: TestTenant, id: string) => (await t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, id)))[0]!;

describe("connecting Slack", () => {
  it("asks Slack for user scopes (comma-separated, no `scope`), and names the account by workspace and person", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const { authorization_url } = await startConnection(t.db, who, { intent: "connect", provider: "devslack", claims: [] });
    const u = new URL(authorization_url);
    expect(u.origin + u.pathname).toBe(`${stub.url}/oauth/v2/authorize`);
    expect(u.searchParams.get("user_scope")).toBe(SLACK_READ_SCOPES.join(","));
    expect(u.searchParams.has("scope")).toBe(false);
    expect(u.searchParams.get("redirect_uri")).toBe(`${env().appUrl}/api/v1/connections/callback`);
    expect(u.searchParams.get("code_challenge_method")).toBe("S256");

    const done = await completeConnection(t.db, who, queryOf(stub.approve(authorization_url, acme)));
    expect(done.account).toMatchObject({ provider: "devslack", api: "slack", provider_label: "Stub Slack", email: "alice@acme.test", label: "Acme (alice@acme.test)", status: "active", claims: [{ name: "slack:read" }] });
    const row = await rowOf(t, done.account.id);
    expect(row.externalId).toBe("T0ACME:U0ALICE");
    expect(row.scopes).toEqual([...SLACK_READ_SCOPES]);
    expect(openTokens(row).access_token).toMatch(/^xoxp-/);
    expect(row.tokenExpiresAt).toBeNull();
  });

  it("keeps one account per workspace for the same person, and reconnects a known workspace in place", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const a = await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    const b = await connectWith(t.db, who, { provider: "devslack" }, as(globex));
    expect(b.account.id).not.toBe(a.account.id);
    expect((await listAccounts(t.db, who)).map((x) => [x.label, x.email])).toEqual([
      ["Acme (alice@acme.test)", "alice@acme.test"],
      ["Globex (alice@acme.test)", "alice@acme.test"],
    ]);
    const again = await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    expect(again.account.id).toBe(a.account.id);
    expect(again.intent).toBe("connect");
    expect(await listAccounts(t.db, who)).toHaveLength(2);

    // Two workspaces: a call that names neither gets both as choices; the email names both; a label names one.
    expect(await errorOf(viaSession(t, need(["slack:read"]), async () => null))).toMatchObject({ code: "ambiguous_selector", details: { choices: [{ label: "Acme (alice@acme.test)" }, { label: "Globex (alice@acme.test)" }] } });
    expect((await errorOf(viaSession(t, need(["slack:read"], "alice@acme.test"), async () => null))).code).toBe("ambiguous_selector");
    const listed = await viaSession(t, need(["slack:read"], "Globex (alice@acme.test)"), (s) => s.call<{ channels: unknown[] }>({ path: "/conversations.list", query: { limit: 15 } }));
    expect(listed.channels).toHaveLength(1);
  });

  it("upgrades by asking only for the missing claim's scopes, on the account's own workspace", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const { account } = await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    const { authorization_url } = await startConnection(t.db, who, { intent: "upgrade", account_id: account.id, claims: ["slack:write"] });
    const u = new URL(authorization_url);
    expect(u.searchParams.get("user_scope")).toBe("chat:write,reactions:write");
    expect(u.searchParams.get("team")).toBe("T0ACME");
    expect(u.searchParams.has("login_hint")).toBe(false);
    const done = await completeConnection(t.db, who, queryOf(stub.approve(authorization_url, acme)));
    expect(done.intent).toBe("upgrade");
    expect(done.account.claims.map((c) => c.name)).toEqual(["slack:read", "slack:write"]);
    expect((await rowOf(t, account.id)).scopes.sort()).toEqual(stub.granted("T0ACME", "U0ALICE"));
    const posted = await viaSession(t, need(["slack:write"]), (s) => s.call<{ ts: string }>({ method: "POST", path: "/chat.postMessage", body: { channel: "C1", text: "Привет" } }));
    expect(posted.ts).toBe("1700000000.000100");
  });

  it("refuses an upgrade signed in at another workspace, and reports a declined consent", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const { account } = await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    const up = await startConnection(t.db, who, { intent: "upgrade", account_id: account.id, claims: ["slack:files:read"] });
    const wrong = await errorOf(completeConnection(t.db, who, queryOf(stub.approve(up.authorization_url, globex))));
    expect(wrong.details.flow_error).toBe("account_mismatch");
    expect(wrong.message).toContain("Globex (alice@acme.test)");
    const declined = await startConnection(t.db, who, { intent: "connect", provider: "devslack", claims: [] });
    expect((await errorOf(completeConnection(t.db, who, queryOf(stub.approve(declined.authorization_url, acme, { deny: true }))))).details.flow_error).toBe("provider_denied");
  });

  it("reads Slack's HTTP 200 refusal of a code as a rejected code, and its 429 as rate_limited with Retry-After", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const first = await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    const code = new URL(first.callbackUrl).searchParams.get("code")!;
    const { authorization_url } = await startConnection(t.db, who, { intent: "connect", provider: "devslack", claims: [] });
    const state = new URL(authorization_url).searchParams.get("state")!;
    expect((await errorOf(completeConnection(t.db, who, { code, state }))).details.flow_error).toBe("code_rejected");

    stub.faults.tokenEndpoint429 = true;
    const again = await startConnection(t.db, who, { intent: "connect", provider: "devslack", claims: [] });
    const limited = await errorOf(completeConnection(t.db, who, queryOf(stub.approve(again.authorization_url, globex))));
    expect(limited).toMatchObject({ code: "rate_limited", status: 429, headers: { "Retry-After": "7" }, details: { provider: "devslack", retry_after_seconds: 7 } });
    expect(await listAccounts(t.db, who)).toHaveLength(1);
  });
});

describe("calls with a Slack account", () => {
  it("turns Slack's missing_scope into a claim upgrade naming the claim, and drops the claim from the account", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    // A person of Acme who never granted chat:write (Slack's grants outlive this test's tenant).
    const { account } = await connectWith(t.db, who, { provider: "devslack" }, as({ ...acme, user: "U0CAROL", handle: "carol", email: "carol@acme.test" }));
    // The record says slack:write, Slack's grant does not have chat:write (changed at Slack meanwhile).
    await t.db.update(connectedAccounts).set({ claims: ["slack:read", "slack:write"] }).where(eq(connectedAccounts.id, account.id));
    const denied = await errorOf(viaSession(t, need(["slack:write"]), (s) => s.call({ method: "POST", path: "/chat.postMessage", body: { channel: "C1", text: "hi" } })));
    expect(denied).toMatchObject({ code: "needs_connected_account_consent", details: { reason: "claim_upgrade_required", missing_claims: ["slack:write"], account_id: account.id, retry_hint: "retry_after_upgrade" } });
    expect(denied.message).toContain("Acme (carol@acme.test)");
    expect((await rowOf(t, account.id)).claims).toEqual(["slack:read"]);
  });

  it("demands the claim whose scope Slack says was needed, not the one the operation declared", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const { account } = await connectWith(t.db, who, { provider: "devslack" }, as({ ...acme, user: "U0DAN", handle: "dan", email: "dan@acme.test" }));
    // A call declared as reading, that needed chat:write: slack:read is kept, slack:write demanded.
    const denied = await errorOf(viaSession(t, need(["slack:read"]), (s) => s.call({ method: "POST", path: "/chat.postMessage", body: { channel: "C1", text: "hi" } })));
    expect(denied.details).toMatchObject({ reason: "claim_upgrade_required", missing_claims: ["slack:write"] });
    expect((await rowOf(t, account.id)).claims).toEqual(["slack:read"]);
  });

  it("answers Slack's 429 with rate_limited and its Retry-After; the account stays connected", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const { account } = await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    stub.faults.retryAfter = "30";
    const limited = await errorOf(viaSession(t, need(["slack:read"]), (s) => s.call({ path: "/conversations.list" })));
    expect(limited).toMatchObject({ code: "rate_limited", status: 429, headers: { "Retry-After": "30" }, details: { provider: "devslack", account_id: account.id, provider_status: 429, retried: false, retry_after_seconds: 30, provider_message: "ratelimited" } });
    expect((await rowOf(t, account.id)).status).toBe("active");
  });

  it("marks an account whose token Slack revoked as needing a reconnect", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const { account } = await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    const { access_token } = openTokens(await rowOf(t, account.id));
    await fetch(`${stub.url}/api/auth.revoke`, { method: "POST", headers: { authorization: `Bearer ${access_token}` } });
    const denied = await errorOf(viaSession(t, need(["slack:read"]), (s) => s.call({ path: "/conversations.list" })));
    expect(denied.details).toMatchObject({ reason: "reconnect_required", account_id: account.id });
    expect((await rowOf(t, account.id)).status).toBe("needs_reconnect");
  });

  it("refreshes a rotating token that expired (Slack answers the refresh at the top level) and keeps the new pair", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    stub.rotation.on = true;
    const { account } = await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    const before = await rowOf(t, account.id);
    expect(before.tokenExpiresAt).not.toBeNull();
    expect(openTokens(before).refresh_token).toMatch(/^xoxe-1-/);
    const later = new Date(Date.now() + 13 * 3_600_000);
    const listed = await viaSession(t, need(["slack:read"]), (s) => s.call<{ ok: boolean }>({ path: "/conversations.list" }), later);
    expect(listed.ok).toBe(true);
    const after = await rowOf(t, account.id);
    expect(openTokens(after).access_token).not.toBe(openTokens(before).access_token);
    expect(openTokens(after).refresh_token).not.toBe(openTokens(before).refresh_token);
    expect(after.tokenExpiresAt!.getTime()).toBeGreaterThan(later.getTime());
  });

  it("sends a form body to methods that take no JSON, and JSON (with its charset) to those that do", async () => {
    const t = await makeTenant({ alice: "owner" });
    await connectWith(t.db, t.users.alice!, { provider: "devslack" }, as(acme));
    type Echo = { args: Record<string, unknown>; content_type: string };
    const form = await viaSession(t, need(["slack:read"]), (s) => s.call<Echo>({ method: "POST", path: "/api.test", form: { filename: "план.png", length: 42, skipped: undefined } }));
    expect(form).toMatchObject({ args: { filename: "план.png", length: "42" }, content_type: "application/x-www-form-urlencoded" });
    expect(form.args).not.toHaveProperty("skipped");
    const json = await viaSession(t, need(["slack:read"]), (s) => s.call<Echo>({ method: "POST", path: "/api.test", body: { text: "Привет", n: 1 } }));
    expect(json).toMatchObject({ args: { text: "Привет", n: 1 }, content_type: "application/json; charset=utf-8" });
  });

  it("sends the token only to the API's origin (or the provider's file hosts), for bytes", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    const got = await viaSession(t, need(["slack:read"]), (s) => s.transfer({ url: `${stub.url}/api/auth.test` }));
    expect(got.status).toBe(200);
    expect(JSON.parse(Buffer.from(got.bytes).toString("utf8"))).toMatchObject({ ok: true, team_id: "T0ACME" });
    expect(await errorOf(viaSession(t, need(["slack:read"]), (s) => s.transfer({ url: "http://169.254.169.254/latest" })))).toMatchObject({ code: "invalid_input", details: { host: "169.254.169.254" } });
  });
});

describe("disconnecting Slack", () => {
  it("calls auth.revoke with the token, and the token stops working", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const { account } = await connectWith(t.db, who, { provider: "devslack" }, as(acme));
    const { access_token } = openTokens(await rowOf(t, account.id));
    const calls = stub.calls.length;
    const gone = await disconnectAccount(t.db, who, account.id);
    expect(gone).toMatchObject({ status: "revoked", provider_revocation: "revoked" });
    expect(stub.calls.slice(calls)).toEqual(["auth.revoke"]);
    const probe = await fetch(`${stub.url}/api/auth.test`, { method: "POST", headers: { authorization: `Bearer ${access_token}` } });
    expect(await probe.json()).toEqual({ ok: false, error: "token_revoked" });
    expect(stub.granted("T0ACME", "U0ALICE")).toEqual([]);
  });

  it("refreshes an expired rotating token first, so the grant is really ended", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    stub.rotation.on = true;
    const { account } = await connectWith(t.db, who, { provider: "devslack" }, as(globex));
    stub.expireAll();
    const calls = stub.calls.length;
    expect(await disconnectAccount(t.db, who, account.id)).toMatchObject({ provider_revocation: "revoked" });
    expect(stub.calls.slice(calls)).toEqual(["auth.revoke", "oauth.v2.access", "auth.revoke"]);
    expect(stub.granted("T0GLOBEX", "U0ALICE2")).toEqual([]);
  });

  it("removes a permission by revoking first (Slack merges user scopes), then asking for the rest", async () => {
    const t = await makeTenant({ alice: "owner" });
    const who = t.users.alice!;
    const { account } = await connectWith(t.db, who, { provider: "devslack", claims: ["slack:read", "slack:write"] }, as(acme));
    expect(account.narrowing).toBe("revoke_first");
    const started = await startConnection(t.db, who, { intent: "narrow", account_id: account.id, claims: ["slack:read"] });
    expect(started.revoked_first).toBe(true);
    expect(new URL(started.authorization_url).searchParams.get("user_scope")).toBe(SLACK_READ_SCOPES.join(","));
    const done = await completeConnection(t.db, who, queryOf(stub.approve(started.authorization_url, acme)));
    expect(done.intent).toBe("narrow");
    expect(done.account.claims.map((c) => c.name)).toEqual(["slack:read"]);
  });
});
