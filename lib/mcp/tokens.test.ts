import { randomBytes } from "node:crypto";
import { decodeProtectedHeader, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { deriveKey } from "@/lib/delivery/keys";
import { mcpResourceUrl, oauthIssuer } from "./config";
import { mintAccessToken, s256, signConsentRequest, TokenRejected, verifyAccessToken, verifyConsentRequest, verifyPkce, type ConsentRequest } from "./tokens";

const claims = { actorId: "act_1", tenantId: "tnt_1", clientId: "cli_1", familyId: "rft_1", scopes: ["realms:read"] };
const key = () => new Uint8Array(deriveKey("mcp-token"));

/** A token signed with the server's own key and kid, but with claims of our choosing. */
async function forge(over: { aud?: string | string[] | null; exp?: number; iss?: string; typ?: string; alg?: "HS256" | "HS512"; signKey?: Uint8Array; kid?: string }) {
  const { token } = await mintAccessToken(claims);
  const kid = over.kid ?? decodeProtectedHeader(token).kid!;
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT({ tid: "tnt_1", client_id: "cli_1", fid: "rft_1", scope: "realms:read" })
    .setProtectedHeader({ alg: over.alg ?? "HS256", typ: over.typ ?? "at+jwt", kid })
    .setIssuer(over.iss ?? oauthIssuer())
    .setSubject("act_1")
    .setIssuedAt(now - 10)
    .setJti("j1")
    .setExpirationTime(over.exp ?? now + 300);
  if (over.aud !== null) jwt = jwt.setAudience(over.aud ?? mcpResourceUrl());
  return jwt.sign(over.signKey ?? key());
}

describe("access tokens", () => {
  it("round-trip: minted tokens verify and carry the actor, tenant, client, family and scopes", async () => {
    const { token, expiresIn } = await mintAccessToken(claims);
    expect(expiresIn).toBe(600);
    expect(await verifyAccessToken(token)).toMatchObject(claims);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: "HS256", typ: "at+jwt" });
  });

  it("the forge helper itself produces an accepted token (so the refusals below are about one claim each)", async () => {
    expect((await verifyAccessToken(await forge({}))).actorId).toBe("act_1");
  });

  const refusals: [string, Parameters<typeof forge>[0], RegExp][] = [
    ["another audience", { aud: "https://other.example/api/mcp" }, /not for this server|audience/],
    ["no audience", { aud: null }, /not for this server|audience|claims/],
    ["our audience among others", { aud: [mcpResourceUrl(), "https://other.example/mcp"] }, /audience is not exactly/],
    ["the app origin instead of the MCP URL", { aud: oauthIssuer() }, /not for this server/],
    ["an expired token", { exp: Math.floor(Date.now() / 1000) - 5 }, /expired/],
    ["another issuer", { iss: "https://evil.example" }, /not for this server/],
    ["an unknown key with our kid", { signKey: new Uint8Array(randomBytes(32)) }, /signature/],
    ["an unknown key id", { kid: "mcp-0000000000000000" }, /key this server does not know/],
    ["another algorithm", { alg: "HS512" }, /algorithm/],
    ["another token type", { typ: "JWT" }, /signature or format|not for this server/],
  ];
  it.each(refusals)("refuses %s", async (_name, over, message) => {
    const err = await verifyAccessToken(await forge(over)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenRejected);
    expect((err as Error).message).toMatch(message);
  });

  it("refuses unsigned tokens (alg none) and garbage", async () => {
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString("base64url")}.${Buffer.from(JSON.stringify({ sub: "act_1", aud: mcpResourceUrl() })).toString("base64url")}.`;
    await expect(verifyAccessToken(none)).rejects.toThrow(/algorithm/);
    await expect(verifyAccessToken("not.a.jwt")).rejects.toBeInstanceOf(TokenRejected);
  });

  it("expiry is checked against the given clock", async () => {
    const now = new Date();
    const { token } = await mintAccessToken(claims, { now });
    await expect(verifyAccessToken(token, new Date(now.getTime() + 599_000))).resolves.toBeTruthy();
    await expect(verifyAccessToken(token, new Date(now.getTime() + 601_000))).rejects.toThrow(/expired/);
  });
});

describe("PKCE S256", () => {
  it("matches the RFC 7636 appendix B example", () => {
    expect(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    expect(verifyPkce("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(true);
  });

  it.each([
    ["another verifier", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXK"],
    ["the challenge itself (plain method)", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"],
    ["a verifier shorter than 43 characters", "short"],
    ["a verifier with characters outside the RFC set", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjX+"],
  ])("refuses %s", (_name, verifier) => {
    expect(verifyPkce(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(false);
  });
});

describe("consent requests", () => {
  const req: ConsentRequest = {
    client_id: "cli_1",
    client_name: "Test",
    redirect_uri: "http://127.0.0.1:9/cb",
    state: "s",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    scopes: ["realms:read"],
    resource: mcpResourceUrl(),
    query: "client_id=cli_1",
  };

  it("verify only for the person they were shown to, and only for ten minutes", async () => {
    const now = new Date();
    const signed = await signConsentRequest(req, "usr_a", now);
    expect(await verifyConsentRequest(signed, "usr_a", now)).toEqual(req);
    await expect(verifyConsentRequest(signed, "usr_b", now)).rejects.toBeInstanceOf(TokenRejected);
    await expect(verifyConsentRequest(signed, "usr_a", new Date(now.getTime() + 601_000))).rejects.toBeInstanceOf(TokenRejected);
  });

  it("are not access tokens, and access tokens are not consent requests", async () => {
    const signed = await signConsentRequest(req, "act_1");
    await expect(verifyAccessToken(signed)).rejects.toBeInstanceOf(TokenRejected);
    const { token } = await mintAccessToken(claims);
    await expect(verifyConsentRequest(token, "act_1")).rejects.toBeInstanceOf(TokenRejected);
  });
});
