// The userinfo identity strategy: who signed in, asked of the provider with the new access token.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorOf } from "@/test-support";
import { exchangeCode, fetchUserinfo } from "./oauth";
import type { Identity, ProviderConfig } from "./providers";
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
