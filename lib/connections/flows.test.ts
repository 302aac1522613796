// The Connection Hub's OAuth flows against a real local OpenID Connect provider (dev/fake-gmail.ts).
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveAtDevIssuer, startDevMail, type DevMail } from "@/dev/fake-gmail";
import { auditEvents, connectedAccounts, connectionFlows } from "@/db/schema";
import { envOverride, errorOf, makeTenant, type TestTenant } from "@/test-support";
import { env } from "@/lib/env";
import { disconnectAccount, listAccounts, openTokens } from "./accounts";
import { completeConnection, startConnection } from "./flows";
import { rotateVault } from "./rotate";
import { connectWith } from "./test-kit";
import { keyring, keyringFrom, unseal } from "./vault";

let dm: DevMail;
let t: TestTenant;
const envs = envOverride();
const setEnv = envs.set;

beforeAll(async () => {
  dm = await startDevMail({ appUrl: env().appUrl });
  setEnv(dm.env);
  t = await makeTenant();
});
afterAll(async () => {
  envs.restore();
  await dm?.close();
});

const as = (name: string) => t.users[name]!;
const agent = (login: string, opts: { decline?: boolean } = {}) => (url: string) => approveAtDevIssuer(url, { login, ...opts });
const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

/** The flow error a call ends with (its `flow_error` detail, else its code). */
const flowErrorOf = async (p: Promise<unknown>): Promise<string> => {
  const e = await errorOf(p);
  return String(e.details.flow_error ?? e.code);
};

async function apiStatus(token: string) {
  return (await fetch(`${dm.gmail.url}/gmail/v1/users/me/profile`, { headers: { authorization: `Bearer ${token}` } })).status;
}

describe("connecting an account", () => {
  it("runs authorization code + PKCE S256 with a state and the exact redirect URI, and stores only sealed tokens", async () => {
    const db = t.db;
    const { authorization_url } = await startConnection(db, as("alice"), { intent: "connect", provider: "devmail", claims: ["gmail:read"], return_to: "/connections/fix?reason=x" });
    const u = new URL(authorization_url);
    expect(u.origin).toBe(dm.issuer);
    expect(u.searchParams.get("code_challenge_method")).toBe("S256");
    expect(u.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(u.searchParams.get("redirect_uri")).toBe(`${env().appUrl}/api/v1/connections/callback`);
    expect(u.searchParams.get("scope")!.split(" ")).toEqual(["openid", "email", "offline_access", "https://www.googleapis.com/auth/gmail.readonly"]);
    const state = u.searchParams.get("state")!;
    expect(state.length).toBeGreaterThanOrEqual(43);
    const [flow] = await db.select().from(connectionFlows).where(eq(connectionFlows.userId, as("alice").userId));
    expect(JSON.stringify(flow)).not.toContain(state);

    const callback = await approveAtDevIssuer(authorization_url, { login: "alice" });
    const done = await completeConnection(db, as("alice"), queryOf(callback));
    expect(done.returnTo).toBe("/connections/fix?reason=x");
    expect(done.account).toMatchObject({ provider: "devmail", email: "alice@acme.test", label: "alice@acme.test", status: "active", claims: [{ name: "gmail:read" }] });
    expect(JSON.stringify(done.account)).not.toMatch(/token|secret/i);

    const [row] = await db.select().from(connectedAccounts).where(eq(connectedAccounts.id, done.account.id));
    const tokens = openTokens(row!);
    expect(row!.secret).not.toContain(tokens.access_token);
    expect(row!.secretKid).toMatch(/^dev-/);
    expect(tokens.refresh_token).toBeTruthy();
    expect(await apiStatus(tokens.access_token)).toBe(200);
    const events = await db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.subjectId, done.account.id)));
    expect(events.map((e) => e.event)).toEqual(["account.connected"]);
    expect(JSON.stringify(events)).not.toContain(tokens.access_token);
  });

  it("keeps several accounts per provider, each with its own label, and reconnects a known one in place", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const who = tt.users.alice!;
    const personal = await connectWith(tt.db, who, { provider: "devmail", label: "Personal" }, agent("alice"));
    const work = await connectWith(tt.db, who, { provider: "devmail", label: "personal" }, agent("alice-work"));
    expect(work.account.label).toBe("personal 2");
    expect(work.account.email).toBe("alice-work@example.test");
    const again = await connectWith(tt.db, who, { provider: "devmail" }, agent("alice"));
    expect(again.account.id).toBe(personal.account.id);
    expect(again.account.label).toBe("Personal");
    expect((await listAccounts(tt.db, who)).map((a) => a.label)).toEqual(["Personal", "personal 2"]);
  });

  it("upgrades by asking only for what is missing, and the account then holds both claims", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const who = tt.users.alice!;
    const first = await connectWith(tt.db, who, { provider: "devmail", claims: ["gmail:read"] }, agent("alice"));
    const up = await connectWith(tt.db, who, { intent: "upgrade", account_id: first.account.id, claims: ["gmail:send"] }, agent("alice"));
    expect(up.account.id).toBe(first.account.id);
    expect(up.account.claims.map((c) => c.name)).toEqual(["gmail:read", "gmail:send"]);
    // A provider that does not merge grants is asked for the union, so the new token carries both.
    expect(new URL(up.authorizationUrl).searchParams.get("scope")).toContain("gmail.readonly");
    await expect(startConnection(tt.db, who, { intent: "upgrade", account_id: first.account.id, claims: ["gmail:send"] })).rejects.toThrow(/already has/);
  });
});

describe("a callback that must be refused", () => {
  it("refuses a missing state, an unknown state, and a reused one", async () => {
    const db = t.db;
    expect(await flowErrorOf(completeConnection(db, as("alice"), { code: "x" }))).toBe("state_missing");
    expect(await flowErrorOf(completeConnection(db, as("alice"), { code: "x", state: "forged-state-value" }))).toBe("state_invalid");
    const { authorization_url } = await startConnection(db, as("alice"), { intent: "connect", provider: "devmail", claims: [] });
    const callback = await approveAtDevIssuer(authorization_url, { login: "alice" });
    await completeConnection(db, as("alice"), queryOf(callback));
    expect(await flowErrorOf(completeConnection(db, as("alice"), queryOf(callback)))).toBe("state_reused");
  });

  it("binds the state to the person who started the flow", async () => {
    const db = t.db;
    const { authorization_url } = await startConnection(db, as("bob"), { intent: "connect", provider: "devmail", claims: [] });
    const callback = await approveAtDevIssuer(authorization_url, { login: "bob" });
    expect(await flowErrorOf(completeConnection(db, as("alice"), queryOf(callback)))).toBe("state_invalid");
    // Alice's attempt did not use up Bob's flow.
    const done = await completeConnection(db, as("bob"), queryOf(callback));
    expect(done.account.email).toBe("bob@acme.test");
  });

  it("refuses an expired state", async () => {
    const db = t.db;
    const { authorization_url } = await startConnection(db, as("alice"), { intent: "connect", provider: "devmail", claims: [] });
    const callback = await approveAtDevIssuer(authorization_url, { login: "alice" });
    const later = new Date(Date.now() + 11 * 60_000);
    expect(await flowErrorOf(completeConnection(db, as("alice"), queryOf(callback), later))).toBe("state_expired");
  });

  it("refuses a code used twice (the provider rejects it; nothing is stored)", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const who = tt.users.alice!;
    const first = await connectWith(tt.db, who, { provider: "devmail" }, agent("alice"));
    const code = new URL(first.callbackUrl).searchParams.get("code")!;
    const { authorization_url } = await startConnection(tt.db, who, { intent: "connect", provider: "devmail", claims: ["gmail:send"] });
    const state = new URL(authorization_url).searchParams.get("state")!;
    expect(await flowErrorOf(completeConnection(tt.db, who, { code, state, iss: dm.issuer }))).toBe("code_rejected");
    expect((await listAccounts(tt.db, who)).map((a) => a.claims.map((c) => c.name))).toEqual([["gmail:read"]]);
  });

  it("uses the redirect URI exactly: one character off and the provider refuses", async () => {
    const db = t.db;
    const good = env().appUrl;
    // The provider refuses to even start an authorization for a redirect URI it does not know.
    setEnv({ APP_URL: good.slice(0, -1) + "x" });
    try {
      const { authorization_url } = await startConnection(db, as("alice"), { intent: "connect", provider: "devmail", claims: [] });
      await expect(approveAtDevIssuer(authorization_url, { login: "alice" })).rejects.toThrow(/redirect_uri/);
    } finally {
      setEnv({ APP_URL: good });
    }
    // And a code issued for the right URI does not redeem at another one.
    const { authorization_url } = await startConnection(db, as("alice"), { intent: "connect", provider: "devmail", claims: [] });
    const callback = await approveAtDevIssuer(authorization_url, { login: "alice" });
    setEnv({ APP_URL: `${good}/` + "x" });
    try {
      expect(await flowErrorOf(completeConnection(db, as("alice"), queryOf(callback)))).toBe("code_rejected");
    } finally {
      setEnv({ APP_URL: good });
    }
  });

  it("reports a declined consent and an answer from another issuer, changing nothing", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const who = tt.users.alice!;
    const { authorization_url } = await startConnection(tt.db, who, { intent: "connect", provider: "devmail", claims: [] });
    const declined = await approveAtDevIssuer(authorization_url, { login: "alice", decline: true });
    expect(await flowErrorOf(completeConnection(tt.db, who, queryOf(declined)))).toBe("provider_denied");
    const second = await startConnection(tt.db, who, { intent: "connect", provider: "devmail", claims: [] });
    const callback = await approveAtDevIssuer(second.authorization_url, { login: "alice" });
    expect(await flowErrorOf(completeConnection(tt.db, who, { ...queryOf(callback), iss: "http://evil.test" }))).toBe("issuer_mismatch");
    expect(await listAccounts(tt.db, who)).toEqual([]);
  });

  it("refuses a reconnect signed in as another account", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const who = tt.users.alice!;
    const first = await connectWith(tt.db, who, { provider: "devmail" }, agent("alice"));
    expect(await flowErrorOf(connectWith(tt.db, who, { intent: "reconnect", account_id: first.account.id }, agent("mallory")))).toBe("account_mismatch");
    expect((await listAccounts(tt.db, who)).map((a) => a.email)).toEqual(["alice@acme.test"]);
  });
});

describe("disconnecting and key rotation", () => {
  it("revokes the token at the provider (RFC 7009) and forgets it", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const who = tt.users.alice!;
    const { account } = await connectWith(tt.db, who, { provider: "devmail" }, agent("alice"));
    const [row] = await tt.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    const { access_token } = openTokens(row!);
    expect(await apiStatus(access_token)).toBe(200);
    const gone = await disconnectAccount(tt.db, who, account.id);
    expect(gone).toMatchObject({ status: "revoked", provider_revocation: "revoked" });
    expect(await apiStatus(access_token)).toBe(401);
    const [after] = await tt.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    expect(after!.secret).toBeNull();
    expect(await listAccounts(tt.db, who)).toEqual([]);
    await expect(disconnectAccount(tt.db, who, account.id)).rejects.toThrow(/not connected/);
    await expect(disconnectAccount(tt.db, tt.users.alice!, "acc_00000000000000000000")).rejects.toThrow(/No such/);
  });

  it("re-seals every record under the new key with nothing lost, and reports a record swapped between rows", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const who = tt.users.alice!;
    const a = await connectWith(tt.db, who, { provider: "devmail" }, agent("alice"));
    const b = await connectWith(tt.db, who, { provider: "devmail" }, agent("alice-two"));
    const rows = async () => new Map((await tt.db.select().from(connectedAccounts).where(eq(connectedAccounts.tenantId, tt.tenantId))).map((r) => [r.id, r]));
    const before = await rows();
    const tokensA = openTokens(before.get(a.account.id)!);

    expect(before.get(a.account.id)!.secretKid).toMatch(/^dev-/);
    const ring = keyringFrom([{ kid: "k2026", key: Buffer.alloc(32, 7) }, keyring().current], "env");
    // Another workspace's account, in the same database: a rotation of this workspace leaves it as it was. (On
    // PostgreSQL every test worker shares the database: rotating them all would re-seal other workers' accounts
    // under a key those workers do not have.)
    const other = await makeTenant({ carol: "owner" });
    const c = await connectWith(other.db, other.users.carol!, { provider: "devmail" }, agent("carol"));
    const [cBefore] = await tt.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, c.account.id));
    const report = await rotateVault(tt.db, ring, { tenantId: tt.tenantId });
    const [cAfter] = await tt.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, c.account.id));
    expect(cAfter).toMatchObject({ secret: cBefore!.secret, secretKid: cBefore!.secretKid, version: cBefore!.version });
    expect(report).toMatchObject({ rewrapped: 2, already_current: 0, unreadable: [] });
    const after = await rows();
    for (const id of [a.account.id, b.account.id]) expect(after.get(id)!.secretKid).toBe("k2026");
    const rowA = after.get(a.account.id)!;
    expect(JSON.parse(unseal({ kid: rowA.secretKid!, data: rowA.secret! }, { tenantId: tt.tenantId, userId: who.userId, accountId: a.account.id }, ring))).toEqual(tokensA);
    // A second run finds these rows current and leaves them alone.
    expect(await rotateVault(tt.db, ring, { tenantId: tt.tenantId })).toMatchObject({ rewrapped: 0, already_current: 2 });
    const again = await rows();
    for (const id of [a.account.id, b.account.id]) expect(again.get(id)).toMatchObject({ secret: after.get(id)!.secret, version: after.get(id)!.version });

    // A ciphertext copied onto another row does not open there; rotation reports it and leaves it alone.
    await tt.db.update(connectedAccounts).set({ secret: rowA.secret, secretKid: rowA.secretKid }).where(eq(connectedAccounts.id, b.account.id));
    const swapped = await rotateVault(tt.db, keyringFrom([{ kid: "k2027", key: Buffer.alloc(32, 9) }, ...ring.byKid.values()], "env"), { tenantId: tt.tenantId });
    expect(swapped.unreadable.map((u) => u.account_id)).toContain(b.account.id);
    const [bRow] = await tt.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, b.account.id));
    expect(bRow!.secret).toBe(rowA.secret);
  });
});
