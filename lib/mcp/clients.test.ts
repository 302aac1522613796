import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { reloadEnv } from "@/lib/env";
import { isPublicAddress } from "@/lib/net";
import { clientIdUrl, redirectUriMatches, redirectUriProblem, registerClient, resolveClient } from "./clients";
import { OAuthProtocolError } from "./errors";
import { checkAuthorizationFor } from "./oauth";
import { makeTenant } from "@/test-support";

describe("redirect URIs", () => {
  it.each([
    ["https://app.example/cb", null],
    ["http://127.0.0.1:8080/cb", null],
    ["http://localhost:3334/callback", null],
    ["http://[::1]:9/cb", null],
    ["cursor://anysphere.cursor-retrieval/oauth/callback", null],
    ["http://app.example/cb", /loopback/],
    ["https://app.example/cb#frag", /fragment/],
    ["javascript:alert(1)", /scheme/],
    ["data:text/html,x", /scheme/],
    ["/relative", /absolute/],
    ["https://user:pw@app.example/cb", /credentials/],
  ])("%s", (uri, problem) => {
    const p = redirectUriProblem(uri);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toMatch(problem);
  });

  it.each([
    ["the exact URI", "https://app.example/cb", true],
    ["another path", "https://app.example/cb2", false],
    ["an added query", "https://app.example/cb?x=1", false],
    ["a trailing slash", "https://app.example/cb/", false],
    ["another loopback port", "http://127.0.0.1:9999/cb", true],
    ["another loopback path", "http://127.0.0.1:9999/other", false],
    ["another loopback host", "http://localhost:8080/cb", false],
    ["https on the loopback address", "https://127.0.0.1:8080/cb", false],
  ])("match %s: %s", (_name, requested, ok) => {
    expect(redirectUriMatches(["https://app.example/cb", "http://127.0.0.1:8080/cb"], requested)).toBe(ok);
  });
});

describe("addresses a metadata fetch may reach", () => {
  it.each([
    ["93.184.216.34", true],
    ["2606:2800:220:1:248:1893:25c8:1946", true],
    ["127.0.0.1", false],
    ["10.1.2.3", false],
    ["172.20.0.1", false],
    ["192.168.1.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["::1", false],
    ["fd00::1", false],
    ["fe80::1", false],
    ["::ffff:127.0.0.1", false],
    ["not an ip", false],
  ])("%s → %s", (ip, ok) => expect(isPublicAddress(ip)).toBe(ok));
});

describe("dynamic client registration", () => {
  it("registers a public client whatever auth method was asked for, with a default name", async () => {
    const db = await getDb();
    const c = await registerClient(db, { redirect_uris: ["http://127.0.0.1:7/cb"], token_endpoint_auth_method: "client_secret_basic", extra: "ignored" });
    expect(c).toMatchObject({ client_id: expect.stringMatching(/^cli_/), token_endpoint_auth_method: "none", client_name: "127.0.0.1:7", response_types: ["code"] });
    expect(c).not.toHaveProperty("client_secret");
    expect(c).not.toHaveProperty("extra");
  });

  it.each([
    [{}, "invalid_client_metadata"],
    [{ redirect_uris: [] }, "invalid_client_metadata"],
    [{ redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
    [{ redirect_uris: ["https://ok.example/cb"], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
    [{ redirect_uris: ["https://ok.example/cb"], client_name: "x".repeat(101) }, "invalid_client_metadata"],
  ])("refuses %j with %s", async (body, error) => {
    const err = await registerClient(await getDb(), body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthProtocolError);
    expect((err as OAuthProtocolError).error).toBe(error);
  });
});

describe("Client ID Metadata Documents", () => {
  let server: http.Server;
  let base: string;
  let hits = 0;
  const previousAppUrl = process.env.APP_URL;
  const docs: Record<string, (res: http.ServerResponse, url: string) => void> = {
    "/good.json": (res, url) => res.end(JSON.stringify({ client_id: url, client_name: "Local Tool", redirect_uris: ["http://127.0.0.1:5000/cb"], token_endpoint_auth_method: "none" })),
    "/wrong-id.json": (res) => res.end(JSON.stringify({ client_id: "http://127.0.0.1:1/other.json", redirect_uris: ["http://127.0.0.1:5000/cb"] })),
    "/secret.json": (res, url) => res.end(JSON.stringify({ client_id: url, redirect_uris: ["http://127.0.0.1:5000/cb"], token_endpoint_auth_method: "client_secret_basic" })),
    "/huge.json": (res, url) => res.end(JSON.stringify({ client_id: url, redirect_uris: ["http://127.0.0.1:5000/cb"], pad: "x".repeat(70_000) })),
    "/redirect.json": (res) => {
      res.writeHead(302, { location: "/good.json" });
      res.end();
    },
    "/missing.json": (res) => {
      res.writeHead(404);
      res.end();
    },
    "/not-json.json": (res) => res.end("<html>"),
  };

  beforeAll(async () => {
    // A loopback deployment (as in development and e2e) may use loopback http client ids.
    process.env.APP_URL = "http://127.0.0.1:3999";
    reloadEnv();
    server = http.createServer((req, res) => {
      hits++;
      const handler = docs[req.url ?? ""];
      if (!handler) return void res.writeHead(404).end();
      res.setHeader("content-type", "application/json");
      handler(res, `${base}${req.url}`);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    process.env.APP_URL = previousAppUrl;
    reloadEnv();
    await new Promise((r) => server.close(r));
  });

  it("a support account on the authorize page is refused before the client's document is fetched", async () => {
    const t = await makeTenant();
    const before = hits;
    const p = { client_id: `${base}/good.json?support`, redirect_uri: "http://127.0.0.1:5000/cb", response_type: "code", code_challenge: "x".repeat(43), code_challenge_method: "S256" };
    const refused = await checkAuthorizationFor(t.db, t.users.sam!, p, new URLSearchParams(p).toString());
    expect(refused).toMatchObject({ ok: false, show: { title: "Support accounts cannot connect apps" } });
    expect(hits).toBe(before);
    // A member's identical request does fetch it (so the count above would have moved).
    await checkAuthorizationFor(t.db, t.users.bob!, p, new URLSearchParams(p).toString());
    expect(hits).toBe(before + 1);
  });

  it("fetches, validates and remembers the document; its redirect URIs are the client's", async () => {
    const c = await resolveClient(await getDb(), `${base}/good.json`);
    expect(c).toEqual({ clientId: `${base}/good.json`, name: "Local Tool", redirectUris: ["http://127.0.0.1:5000/cb"], registration: "cimd" });
  });

  it.each([
    ["/wrong-id.json", /own URL/],
    ["/secret.json", /not supported/],
    ["/huge.json", /larger than/],
    ["/redirect.json", /could not be fetched/],
    ["/missing.json", /HTTP 404/],
    ["/not-json.json", /not JSON/],
  ])("refuses %s", async (path, message) => {
    const err = await resolveClient(await getDb(), `${base}${path}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthProtocolError);
    expect((err as OAuthProtocolError).message).toMatch(message);
  });

  it("client ids must be https (loopback http only for a loopback deployment), with a path, no fragment", () => {
    expect(clientIdUrl("https://app.example/oauth/client.json")).toBeInstanceOf(URL);
    expect(clientIdUrl(`${base}/good.json`)).toBeInstanceOf(URL);
    expect(clientIdUrl("http://app.example/client.json")).toMatch(/https/);
    expect(clientIdUrl("https://app.example/")).toMatch(/path/);
    expect(clientIdUrl("https://app.example/c.json#x")).toMatch(/fragment/);
    expect(clientIdUrl("https://app.example/a/../c.json")).toMatch(/normalized|dot/);
    expect(clientIdUrl("my-client")).toMatch(/neither/);
  });

  it("never fetches private addresses from a public deployment", async () => {
    process.env.APP_URL = "https://realmgate.example";
    reloadEnv();
    try {
      const before = hits;
      const err = await resolveClient(await getDb(), "https://127.0.0.1/client.json").catch((e: unknown) => e);
      expect((err as OAuthProtocolError).message).toMatch(/private address/);
      expect(hits).toBe(before);
    } finally {
      process.env.APP_URL = "http://127.0.0.1:3999";
      reloadEnv();
    }
  });
});
