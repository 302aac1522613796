// The userinfo identity strategy: who signed in, asked of the provider with the new access token; discovered
// endpoints; and what a provider may do its own way (scope parameter, account hints, identity and revocation
// through its API, refusals in an HTTP 200, a rate-limited token endpoint).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorOf } from "@/test-support";
import { authorizationUrl, exchangeCode, fetchUserinfo, identityFromApi, refreshAccessToken, revokeGrant, TokenGrantError } from "./oauth";
import type { ApiProbe, Identity, OAuthEndpoints, ProviderConfig } from "./providers";
import { standardTokens } from "./providers/tokens";

let server: Server;
let url = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.headers.authorization !== "Bearer good-token") return void res.writeHead(401).end();
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ id: "u-42", mail: "dana@example.test", verified: true }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/me`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const provider: ProviderConfig = {
  id: "example",
  label: "Example",
  api: "example",
  apiBaseUrl: "http://127.0.0.1:1",
  issuer: "http://127.0.0.1:1",
  issuerAliases: [],
  endpoints: { authorization: "http://127.0.0.1:1/auth", token: "http://127.0.0.1:1/token", revocation: null, jwks: "http://127.0.0.1:1/jwks" },
  clientId: "id",
  clientSecret: "secret",
  tokenAuthMethod: "client_secret_basic",
  baseScopes: [],
  authParams: { connect: {}, upgrade: {}, reconnect: {} },
  incremental: "union",
  mapTokens: standardTokens,
  identity: { kind: "userinfo", url: "http://127.0.0.1:1/me", map: () => null },
  classify: () => ({ outcome: "ok", message: null }),
};
const map = (body: unknown): Identity | null => {
  const b = body as { id?: unknown; mail?: unknown; verified?: unknown } | null;
  return typeof b?.id === "string" ? { sub: b.id, email: b.verified === true && typeof b.mail === "string" ? b.mail : null } : null;
};

describe("identity from a userinfo endpoint", () => {
  it("maps the provider's answer to a subject and a verified email", async () => {
    expect(await fetchUserinfo(provider, url, "good-token", map)).toEqual({ sub: "u-42", email: "dana@example.test" });
  });

  it("refuses a token the endpoint does not accept, or an answer without a subject, as an identity that does not verify", async () => {
    expect(await errorOf(fetchUserinfo(provider, url, "other-token", map))).toMatchObject({ code: "invalid_input", details: { flow_error: "id_token_invalid" } });
    expect(await errorOf(fetchUserinfo(provider, url, "good-token", () => null))).toMatchObject({ code: "invalid_input", details: { flow_error: "id_token_invalid" } });
  });

  it("says the provider is unavailable when the endpoint cannot be reached", async () => {
    expect(await errorOf(fetchUserinfo(provider, "http://127.0.0.1:1/me", "good-token", map))).toMatchObject({ code: "provider_unavailable", status: 502, details: { failure: "network" } });
  });
});

describe("endpoints a discovery document names", () => {
  let issuerServer: Server;
  let base = "";
  let tokenHits = 0;
  // Two issuers on one server: /same names its token endpoint on its own host, /other on another name for it.
  beforeAll(async () => {
    issuerServer = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      const m = /^\/(same|other)\/\.well-known\/openid-configuration$/.exec(req.url ?? "");
      if (m) {
        const issuer = `${base}/${m[1]}`;
        const tokenBase = m[1] === "same" ? base : base.replace("127.0.0.1", "localhost");
        return void res.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${tokenBase}/token`, jwks_uri: `${issuer}/jwks` }));
      }
      if (req.url === "/token") {
        tokenHits++;
        return void res.end(JSON.stringify({ access_token: "at", token_type: "Bearer", expires_in: 60, scope: "a" }));
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => issuerServer.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => issuerServer.close(() => r())));

  const discovering = (which: "same" | "other"): ProviderConfig => ({ ...provider, id: which, issuer: `${base}/${which}`, endpoints: "discover" });

  it("may be private on the issuer's own host (an operator's local issuer)", async () => {
    const before = tokenHits;
    expect((await exchangeCode(discovering("same"), { code: "c", codeVerifier: "v" })).access_token).toBe("at");
    expect(tokenHits).toBe(before + 1);
  });

  it("may not send Realmgate to another private host, however the document names it", async () => {
    const before = tokenHits;
    const err = await errorOf(exchangeCode(discovering("other"), { code: "c", codeVerifier: "v" }));
    expect(err).toMatchObject({ code: "provider_unavailable" });
    expect(tokenHits).toBe(before);
  });
});

describe("what providers may do their own way", () => {
  let api: Server;
  let base = "";
  const seen: { path: string; authorization?: string; body: string }[] = [];
  let tokenAnswer: { status: number; body: unknown; headers?: Record<string, string> } = { status: 200, body: {} };
  beforeAll(async () => {
    api = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        seen.push({ path: req.url ?? "", authorization: req.headers.authorization, body });
        res.setHeader("content-type", "application/json");
        if (req.url === "/token") return void res.writeHead(tokenAnswer.status, tokenAnswer.headers ?? {}).end(JSON.stringify(tokenAnswer.body));
        if (req.url === "/busy") return void res.writeHead(429, { "retry-after": "12" }).end("{}");
        if (req.url === "/whoami") return void res.end(JSON.stringify(req.headers.authorization === "Bearer good-token" ? { ok: true, id: "w1:u1", name: "Team One" } : { ok: false }));
        if (req.url === "/revoke") return void res.end(JSON.stringify({ ended: req.headers.authorization === "Bearer good-token" }));
        res.writeHead(404).end("{}");
      });
    });
    await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => api.close(() => r())));

  const own = (over: Partial<ProviderConfig> = {}): ProviderConfig => ({
    ...provider,
    apiBaseUrl: base,
    endpoints: { authorization: `${base}/authorize`, token: `${base}/token`, revocation: `${base}/rfc7009`, jwks: `${base}/jwks` },
    ...over,
  });
  const start = (p: ProviderConfig, account: { externalId: string; email: string | null } | null = null) =>
    authorizationUrl(p, { intent: "connect", scopes: ["a:read", "b:read"], state: "s", nonce: "n", codeVerifier: "v", account }).then((u) => new URL(u).searchParams);

  it("name the scopes: RFC 6749's space-separated `scope` unless the provider says its parameter and separator", async () => {
    expect((await start(own())).get("scope")).toBe("a:read b:read");
    const custom = await start(own({ scopeRequest: { param: "user_scope", separator: "," } }));
    expect(custom.get("user_scope")).toBe("a:read,b:read");
    expect(custom.has("scope")).toBe(false);
  });

  it("point the sign-in at the account: login_hint with its email unless the provider has its own hint", async () => {
    const account = { externalId: "w1:u1", email: "dana@example.test" };
    expect((await start(own(), account)).get("login_hint")).toBe("dana@example.test");
    expect((await start(own(), { externalId: "x", email: null })).has("login_hint")).toBe(false);
    const hinted = await start(own({ accountHint: (a) => ({ workspace: a.externalId.split(":")[0]! }) }), account);
    expect(hinted.get("workspace")).toBe("w1");
    expect(hinted.has("login_hint")).toBe(false);
  });

  it("refuse a grant in an HTTP 200 (mapTokens' `refused`): the same TokenGrantError as a 4xx", async () => {
    tokenAnswer = { status: 200, body: { ok: false, error: "invalid_code" } };
    const p = own({ mapTokens: (raw) => ((raw as { ok?: boolean }).ok === false ? { refused: String((raw as { error: string }).error) } : null) });
    const err = await exchangeCode(p, { code: "c", codeVerifier: "v" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenGrantError);
    expect(err).toMatchObject({ error: "invalid_code", status: 200 });
  });

  it("rate-limit the token endpoint: rate_limited with its Retry-After, never a refused grant", async () => {
    tokenAnswer = { status: 429, body: { error: "slow_down" }, headers: { "retry-after": "9" } };
    expect(await errorOf(refreshAccessToken(own(), "rt"))).toMatchObject({ code: "rate_limited", status: 429, headers: { "Retry-After": "9" }, details: { provider: "example", retry_after_seconds: 9, retried: false } });
    tokenAnswer = { status: 429, body: {}, headers: { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" } };
    expect(await errorOf(refreshAccessToken(own(), "rt"))).toMatchObject({ code: "rate_limited", headers: {} });
  });

  it("say who signed in through their own API (`identity: api`)", async () => {
    const resolve = async (call: ApiProbe) => {
      const r = await call({ path: "/whoami" });
      const b = r.body as { ok?: boolean; id?: string; name?: string };
      return b.ok && b.id ? { sub: b.id, email: null, label: b.name ?? null } : null;
    };
    expect(await identityFromApi(own(), "good-token", resolve)).toEqual({ sub: "w1:u1", email: null, label: "Team One" });
    expect(await errorOf(identityFromApi(own(), "other-token", resolve))).toMatchObject({ code: "invalid_input", details: { flow_error: "id_token_invalid" } });
    expect(await errorOf(identityFromApi(own(), "good-token", (call) => call({ path: "/busy" }).then(() => null)))).toMatchObject({ code: "rate_limited", headers: { "Retry-After": "12" } });
    expect(await errorOf(identityFromApi(own({ apiBaseUrl: "http://127.0.0.1:1" }), "good-token", resolve))).toMatchObject({ code: "provider_unavailable", details: { failure: "network" } });
  });

  it("end a grant through their own API (`revocation: api`), RFC 7009 staying the default", async () => {
    const byApi = own({ revocation: { kind: "api", method: "POST", path: "/revoke", revoked: ({ body }) => (body as { ended?: boolean }).ended === true } });
    seen.length = 0;
    expect(await revokeGrant(byApi, { access_token: "good-token", refresh_token: null })).toBe("revoked");
    expect(seen.map((s) => [s.path, s.authorization])).toEqual([["/revoke", "Bearer good-token"]]);
    expect(await revokeGrant(byApi, { access_token: "other-token", refresh_token: null })).toBe("failed");
    // RFC 7009 by default: the refresh token first, then the access token (the endpoint here answers 404: failed, and it stops there).
    seen.length = 0;
    expect(await revokeGrant(own(), { access_token: "at", refresh_token: "rt" })).toBe("failed");
    expect(seen.map((s) => [s.path, new URLSearchParams(s.body).get("token_type_hint")])).toEqual([["/rfc7009", "refresh_token"]]);
    expect(await revokeGrant(own({ endpoints: { ...own().endpoints as OAuthEndpoints, revocation: null } }), { access_token: "at", refresh_token: null })).toBe("unsupported");
  });
});
