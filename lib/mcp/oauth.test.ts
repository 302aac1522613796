import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { actors, auditEvents, grants, mcpAuthorizationCodes, mcpRefreshTokens } from "@/db/schema";
import { frozenClock, makeTenant, type TestTenant } from "@/test-support";
import { revokeActor } from "@/lib/authz/actors";
import { registerClient } from "./clients";
import { mcpResourceUrl, oauthIssuer } from "./config";
import { OAuthProtocolError } from "./errors";
import { actorForAccessToken, checkAuthorizationRequest, consentOffer, decideAuthorization, exchangeCode, refresh, requestStepUp, revokeToken, tokenRequest } from "./oauth";
import { hashToken, s256, type ConsentRequest } from "./tokens";

let t: TestTenant;
let clientId: string;
const redirectUri = "http://127.0.0.1:43111/callback";

beforeAll(async () => {
  t = await makeTenant();
  clientId = (await registerClient(t.db, { redirect_uris: [redirectUri], client_name: "Test Agent" })).client_id;
});

const verifier = () => randomBytes(32).toString("base64url");

function params(over: Record<string, string | undefined> = {}, v = verifier()) {
  const p: Record<string, string | undefined> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: s256(v),
    code_challenge_method: "S256",
    state: "st-1",
    resource: mcpResourceUrl(),
    ...over,
  };
  return Object.fromEntries(Object.entries(p).filter(([, x]) => x !== undefined)) as Record<string, string>;
}

async function consentRequest(over: Record<string, string | undefined> = {}, v = verifier()): Promise<ConsentRequest> {
  const p = params(over, v);
  const check = await checkAuthorizationRequest(t.db, p, new URLSearchParams(p).toString());
  if (!check.ok) throw new Error(`unexpected: ${JSON.stringify(check)}`);
  return check.request;
}

/** Approve docs reads (and reply_comment when asked) and exchange the code: what a client ends up holding. */
async function connect(opts: { ops?: string[]; scope?: string } = {}) {
  const v = verifier();
  const req = await consentRequest({ scope: opts.scope }, v);
  const outcome = await decideAuthorization(t.db, t.users.alice!, req, {
    decision: "approve",
    operations: opts.ops ?? ["docs provider.about", "docs object.search", "docs object.get"],
    expires: "30d",
  });
  if (!("redirect" in outcome)) throw new Error("no redirect");
  const back = new URL(outcome.redirect);
  const code = back.searchParams.get("code")!;
  return { code, v, back, tokens: await exchangeCode(t.db, { code, clientId, redirectUri, codeVerifier: v }) };
}

const grantOf = async (err: Promise<unknown>) => {
  const e = await err.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(OAuthProtocolError);
  return (e as OAuthProtocolError).error;
};

describe("authorization requests", () => {
  it("accept a registered client, any port on its loopback redirect, and default the resource to the MCP URL", async () => {
    const p = params({ redirect_uri: "http://127.0.0.1:50999/callback", resource: undefined });
    const check = await checkAuthorizationRequest(t.db, p, "");
    expect(check).toMatchObject({ ok: true, request: { client_name: "Test Agent", redirect_uri: "http://127.0.0.1:50999/callback", resource: mcpResourceUrl() } });
  });

  it("show (never redirect) an unknown client or a redirect URI it did not register", async () => {
    for (const p of [
      params({ client_id: "cli_doesnotexist" }),
      params({ redirect_uri: "https://evil.example/callback" }),
      params({ redirect_uri: "http://127.0.0.1:43111/other" }),
      params({ client_id: undefined }),
    ]) {
      const check = await checkAuthorizationRequest(t.db, p, "");
      expect(check.ok).toBe(false);
      expect(check).toHaveProperty("show");
      expect(check).not.toHaveProperty("redirect");
    }
  });

  it.each([
    ["no PKCE challenge", { code_challenge: undefined }, "invalid_request"],
    ["the plain PKCE method", { code_challenge_method: "plain" }, "invalid_request"],
    ["no PKCE method", { code_challenge_method: undefined }, "invalid_request"],
    ["a token response type", { response_type: "token" }, "unsupported_response_type"],
    ["another resource", { resource: "https://other.example/api/mcp" }, "invalid_target"],
    ["only unknown scopes", { scope: "admin" }, "invalid_scope"],
  ])("send %s back to the client as an error", async (_name, over, error) => {
    const check = await checkAuthorizationRequest(t.db, params(over), "");
    expect(check).toHaveProperty("redirect");
    const u = new URL((check as { redirect: string }).redirect);
    expect(`${u.origin}${u.pathname}`).toBe(redirectUri);
    expect(u.searchParams.get("error")).toBe(error);
    expect(u.searchParams.get("state")).toBe("st-1");
    expect(u.searchParams.get("iss")).toBe(oauthIssuer());
  });

  it("offer only reads when the client asked for realms:read, and tick nothing but discovery", async () => {
    const readOnly = await consentOffer(t.db, t.users.alice!, ["realms:read"]);
    const docs = readOnly.realms.find((r) => r.namespace === "docs")!;
    expect(docs.operations.every((o) => o.risk === "read")).toBe(true);
    expect(docs.operations.filter((o) => o.checked).map((o) => o.key).sort()).toEqual(["object.schema", "provider.about"]);
    expect(docs.operations.map((o) => o.label)).toContain("Search documents and comment threads");
    const both = await consentOffer(t.db, t.users.alice!, ["realms:read", "realms:write"]);
    const reply = both.realms.find((r) => r.namespace === "docs")!.operations.find((o) => o.key === "object.action.reply_comment")!;
    expect(reply).toMatchObject({ label: "Reply in a comment thread", risk: "write", checked: false });
  });
});

describe("consent", () => {
  it("approving creates an mcp_client actor with exactly the chosen grants, and a code for the redirect URI", async () => {
    const req = await consentRequest();
    const clock = frozenClock();
    onTestFinished(() => clock.restore());
    const outcome = await decideAuthorization(t.db, t.users.alice!, req, { decision: "approve", operations: ["docs object.search", "board object.get"], expires: "1d" });
    const u = new URL((outcome as { redirect: string }).redirect);
    expect(u.searchParams.get("code")).toMatch(/^rgc_/);
    expect(u.searchParams.get("state")).toBe("st-1");
    const [actor] = await t.db.select().from(actors).where(and(eq(actors.tenantId, t.tenantId), eq(actors.clientId, clientId))).orderBy(actors.createdAt).limit(1);
    expect(actor).toMatchObject({ kind: "mcp_client", name: "Test Agent", grantorId: t.users.alice!.userId });
    const gs = await t.db.select().from(grants).where(eq(grants.actorId, actor!.id));
    expect(gs.map((g) => [g.namespace, g.operations]).sort()).toEqual([["board", ["object.get"]], ["docs", ["object.search"]]]);
    expect(gs.map((g) => g.expiresAt?.getTime())).toEqual(gs.map(() => clock.now().getTime() + 86_400_000));
  });

  it("refuses operations that were not offered (writes without realms:write), and asks again when nothing is chosen", async () => {
    const req = await consentRequest({ scope: "realms:read" });
    await expect(decideAuthorization(t.db, t.users.alice!, req, { decision: "approve", operations: ["docs object.action.reply_comment"], expires: "1h" })).rejects.toMatchObject({
      code: "invalid_input",
    });
    // Nothing chosen and nothing held before (bob never connected this app): asked again.
    expect(await decideAuthorization(t.db, t.users.bob!, req, { decision: "approve", operations: [], expires: "1h" })).toEqual({ retry: expect.stringContaining("notice=empty") });
  });

  it("denying sends access_denied back and creates nothing", async () => {
    const before = await t.db.select().from(actors).where(eq(actors.tenantId, t.tenantId));
    const req = await consentRequest();
    const outcome = await decideAuthorization(t.db, t.users.bob!, req, { decision: "deny", operations: [], expires: "1h" });
    expect(new URL((outcome as { redirect: string }).redirect).searchParams.get("error")).toBe("access_denied");
    expect(await t.db.select().from(actors).where(eq(actors.tenantId, t.tenantId))).toHaveLength(before.length);
  });
});

describe("code exchange", () => {
  it("issues an audience-bound access token and a refresh token; the token authenticates as the actor", async () => {
    const { tokens } = await connect();
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 600, scope: "realms:read", refresh_token: expect.stringMatching(/^rgr_/) });
    const caller = await actorForAccessToken(t.db, tokens.access_token, "req_test");
    expect(caller?.auth).toMatchObject({ kind: "actor", actorKind: "mcp_client", tenantId: t.tenantId, via: "mcp_oauth" });
    expect(caller?.scopes).toEqual(["realms:read"]);
  });

  it("a write approval yields realms:write in the token scope", async () => {
    const { tokens } = await connect({ ops: ["docs object.get", "docs object.action.reply_comment"] });
    expect(tokens.scope).toBe("realms:read realms:write");
  });

  it("refuses a wrong verifier, another client, another redirect URI — and any failed attempt burns the code", async () => {
    const freshCode = async (v: string) => {
      const req = await consentRequest({}, v);
      const outcome = (await decideAuthorization(t.db, t.users.alice!, req, { decision: "approve", operations: ["docs object.get"], expires: "1h" })) as { redirect: string };
      return new URL(outcome.redirect).searchParams.get("code")!;
    };
    for (const wrong of [
      (code: string) => ({ code, clientId, redirectUri, codeVerifier: verifier() }),
      (code: string) => ({ code, clientId: "cli_other", redirectUri }),
      (code: string) => ({ code, clientId, redirectUri: "http://127.0.0.1:43111/other" }),
    ]) {
      const v = verifier();
      const code = await freshCode(v);
      expect(await grantOf(exchangeCode(t.db, { codeVerifier: v, ...wrong(code) }))).toBe("invalid_grant");
      // The correct exchange afterwards is refused too: the code was single-use, whatever happened.
      expect(await grantOf(exchangeCode(t.db, { code, clientId, redirectUri, codeVerifier: v }))).toBe("invalid_grant");
    }
  });

  it("a used code is invalid_grant and revokes what it produced", async () => {
    const v = verifier();
    const req = await consentRequest({}, v);
    const outcome = (await decideAuthorization(t.db, t.users.alice!, req, { decision: "approve", operations: ["docs object.get"], expires: "1h" })) as { redirect: string };
    const code = new URL(outcome.redirect).searchParams.get("code")!;
    const tokens = await exchangeCode(t.db, { code, clientId, redirectUri, codeVerifier: v });
    expect(await actorForAccessToken(t.db, tokens.access_token, "r")).not.toBeNull();
    const again = await exchangeCode(t.db, { code, clientId, redirectUri, codeVerifier: v }).catch((e: OAuthProtocolError) => e);
    expect(again).toMatchObject({ error: "invalid_grant", description: expect.stringMatching(/already used/) });
    expect(await actorForAccessToken(t.db, tokens.access_token, "r")).toBeNull();
    expect(await grantOf(refresh(t.db, { refreshToken: tokens.refresh_token, clientId }))).toBe("invalid_grant");
  });

  it("codes expire after two minutes", async () => {
    const v = verifier();
    const req = await consentRequest({}, v);
    const outcome = (await decideAuthorization(t.db, t.users.alice!, req, { decision: "approve", operations: ["docs object.get"], expires: "1h" })) as { redirect: string };
    const code = new URL(outcome.redirect).searchParams.get("code")!;
    expect(await grantOf(exchangeCode(t.db, { code, clientId, redirectUri, codeVerifier: v }, new Date(Date.now() + 121_000)))).toBe("invalid_grant");
  });

  it("codes and refresh tokens long past expiry are pruned at the next authorization; live ones stay", async () => {
    const { tokens } = await connect();
    const liveRefresh = await t.db.select().from(mcpRefreshTokens).where(eq(mcpRefreshTokens.tokenHash, hashToken(tokens.refresh_token)));
    expect(liveRefresh).toHaveLength(1);
    const stale = await connect();
    const longAgo = new Date(Date.now() - 2 * 86_400_000);
    await t.db.update(mcpRefreshTokens).set({ expiresAt: longAgo }).where(eq(mcpRefreshTokens.tokenHash, hashToken(stale.tokens.refresh_token)));
    await t.db.update(mcpAuthorizationCodes).set({ expiresAt: longAgo }).where(eq(mcpAuthorizationCodes.codeHash, hashToken(stale.code)));
    await connect(); // the next authorization prunes
    expect(await t.db.select().from(mcpRefreshTokens).where(eq(mcpRefreshTokens.tokenHash, hashToken(stale.tokens.refresh_token)))).toHaveLength(0);
    expect(await t.db.select().from(mcpAuthorizationCodes).where(eq(mcpAuthorizationCodes.codeHash, hashToken(stale.code)))).toHaveLength(0);
    expect(await t.db.select().from(mcpRefreshTokens).where(eq(mcpRefreshTokens.tokenHash, hashToken(tokens.refresh_token)))).toHaveLength(1);
    // A replay of a pruned code is still refused.
    expect(await grantOf(exchangeCode(t.db, { code: stale.code, clientId, redirectUri, codeVerifier: stale.v }))).toBe("invalid_grant");
  });

  it("the token endpoint checks the resource and the grant type", async () => {
    const form = (o: Record<string, string>) => new URLSearchParams({ client_id: clientId, ...o });
    expect(await grantOf(tokenRequest(t.db, form({ grant_type: "refresh_token", refresh_token: "rgr_x", resource: "https://other.example/mcp" })))).toBe("invalid_target");
    expect(await grantOf(tokenRequest(t.db, form({ grant_type: "client_credentials" })))).toBe("unsupported_grant_type");
    expect(await grantOf(tokenRequest(t.db, form({ grant_type: "refresh_token", refresh_token: "rgr_unknown" })))).toBe("invalid_grant");
    const twice = new URLSearchParams("grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=x");
    expect(await grantOf(tokenRequest(t.db, twice))).toBe("invalid_request");
  });
});

describe("refresh tokens", () => {
  it("rotate: each refresh returns a new pair and retires the old refresh token", async () => {
    const { tokens } = await connect();
    const next = await refresh(t.db, { refreshToken: tokens.refresh_token, clientId });
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(await actorForAccessToken(t.db, next.access_token, "r")).not.toBeNull();
    const third = await refresh(t.db, { refreshToken: next.refresh_token, clientId });
    expect(await actorForAccessToken(t.db, third.access_token, "r")).not.toBeNull();
  });

  it("reuse of a rotated token revokes the whole family, access tokens included, and is audited", async () => {
    const { tokens } = await connect();
    const next = await refresh(t.db, { refreshToken: tokens.refresh_token, clientId });
    const reuse = await refresh(t.db, { refreshToken: tokens.refresh_token, clientId }).catch((e: OAuthProtocolError) => e);
    expect(reuse).toMatchObject({ error: "invalid_grant", description: expect.stringMatching(/already used/) });
    expect(await grantOf(refresh(t.db, { refreshToken: next.refresh_token, clientId }))).toBe("invalid_grant");
    expect(await actorForAccessToken(t.db, next.access_token, "r")).toBeNull();
    const caller = await actorForAccessToken(t.db, (await connect()).tokens.access_token, "r");
    expect(caller).not.toBeNull(); // other connections are untouched
    const events = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "oauth.tokens_revoked")));
    expect(events.some((e) => e.reason === "refresh token reused")).toBe(true);
  });

  it("only narrow the scope, and only for the client they were issued to", async () => {
    const { tokens } = await connect({ ops: ["docs object.get", "docs object.action.reply_comment"] });
    expect(await grantOf(refresh(t.db, { refreshToken: tokens.refresh_token, clientId: "cli_someone_else" }))).toBe("invalid_grant");
    expect(await grantOf(refresh(t.db, { refreshToken: tokens.refresh_token, clientId, scope: "realms:admin" }))).toBe("invalid_scope");
    const narrowed = await refresh(t.db, { refreshToken: tokens.refresh_token, clientId, scope: "realms:read" });
    expect(narrowed.scope).toBe("realms:read");
  });

  it("die with the approval: an expired grant set ends refreshing", async () => {
    const { tokens } = await connect();
    expect(await grantOf(refresh(t.db, { refreshToken: tokens.refresh_token, clientId }, new Date(Date.now() + 31 * 86_400_000)))).toBe("invalid_grant");
  });
});

describe("revocation", () => {
  it("revoking the actor cuts its access tokens off at the next request and ends refreshing", async () => {
    const { tokens } = await connect();
    const caller = await actorForAccessToken(t.db, tokens.access_token, "r");
    await revokeActor(t.db, t.users.alice!, caller!.auth.actorId, "test");
    expect(await actorForAccessToken(t.db, tokens.access_token, "r")).toBeNull();
    expect(await grantOf(refresh(t.db, { refreshToken: tokens.refresh_token, clientId }))).toBe("invalid_grant");
  });

  it("RFC 7009 revocation of an access token revokes its family; a stranger's client id revokes nothing", async () => {
    const { tokens } = await connect();
    await revokeToken(t.db, tokens.refresh_token, "cli_stranger");
    expect(await actorForAccessToken(t.db, tokens.access_token, "r")).not.toBeNull();
    await revokeToken(t.db, tokens.access_token, clientId);
    expect(await actorForAccessToken(t.db, tokens.access_token, "r")).toBeNull();
    const rows = await t.db.select().from(mcpRefreshTokens).where(eq(mcpRefreshTokens.actorId, (await t.db.select().from(actors).where(eq(actors.tenantId, t.tenantId)).orderBy(actors.createdAt)).at(-1)!.id));
    expect(rows.every((r) => r.revokedAt !== null)).toBe(true);
  });
});

describe("step-up and re-authorization", () => {
  it("after insufficient_scope, a refresh answers invalid_grant and ends the family; re-authorizing extends the same actor", async () => {
    const tt = await makeTenant();
    const cid = (await registerClient(tt.db, { redirect_uris: [redirectUri], client_name: "Step-up app" })).client_id;
    const authorize = async (scope: string, ops: string[]) => {
      const v = verifier();
      const p = { ...params({ scope }, v), client_id: cid };
      const check = await checkAuthorizationRequest(tt.db, p, new URLSearchParams(p).toString());
      if (!check.ok) throw new Error("bad request");
      const outcome = (await decideAuthorization(tt.db, tt.users.alice!, check.request, { decision: "approve", operations: ops, expires: "1d" })) as { redirect: string };
      return exchangeCode(tt.db, { code: new URL(outcome.redirect).searchParams.get("code")!, clientId: cid, redirectUri, codeVerifier: v });
    };
    const first = await authorize("realms:read", ["docs provider.about", "docs object.get"]);
    expect(first.scope).toBe("realms:read");
    const caller = (await actorForAccessToken(tt.db, first.access_token, "r"))!;
    await requestStepUp(tt.db, tt.tenantId, caller.auth.credentialId, "realms:read realms:write");
    const refused = await refresh(tt.db, { refreshToken: first.refresh_token, clientId: cid }).catch((e: OAuthProtocolError) => e);
    expect(refused).toMatchObject({ error: "invalid_grant", description: expect.stringContaining("step_up_required") });
    expect(await actorForAccessToken(tt.db, first.access_token, "r")).toBeNull(); // the family ended

    // The consent page shows what is already approved and asks only for the rest.
    const offer = await consentOffer(tt.db, tt.users.alice!, ["realms:read", "realms:write"], cid);
    const docs = offer.realms.find((r) => r.namespace === "docs")!;
    expect(offer.existingActorId).toBe(caller.auth.actorId);
    expect(docs.operations.filter((o) => o.approved).map((o) => o.key).sort()).toEqual(["object.get", "provider.about"]);
    expect(docs.operations.find((o) => o.key === "object.action.reply_comment")).toMatchObject({ approved: false, checked: false });

    const second = await authorize("realms:read realms:write", ["docs object.action.reply_comment"]);
    expect(second.scope).toBe("realms:read realms:write");
    const again = (await actorForAccessToken(tt.db, second.access_token, "r"))!;
    expect(again.auth.actorId).toBe(caller.auth.actorId);
    const mine = await tt.db.select().from(actors).where(and(eq(actors.tenantId, tt.tenantId), eq(actors.clientId, cid)));
    expect(mine).toHaveLength(1);
    const gs = await tt.db.select().from(grants).where(eq(grants.actorId, caller.auth.actorId));
    expect(gs.flatMap((g) => g.operations).sort()).toEqual(["object.action.reply_comment", "object.get", "provider.about"]);
  });

  it("an operation the owner marked exact-grant-only is never pre-ticked", async () => {
    const offer = await consentOffer(t.db, t.users.alice!, ["realms:read", "realms:write"]);
    for (const r of offer.realms) for (const o of r.operations) if (o.exactOnly) expect(o.checked).toBe(false);
    expect(offer.realms.flatMap((r) => r.operations).filter((o) => o.checked).every((o) => o.key === "provider.about" || o.key === "object.schema")).toBe(true);
  });
});
