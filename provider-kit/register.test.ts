// registerWithRealmgate against a tiny local HTTP server standing in for Realmgate's register endpoint.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerWithRealmgate } from "./register";

type Seen = { method?: string; url?: string; authorization?: string; contentType?: string; body?: unknown };
const seen: Seen = {};
let answer: { status: number; body: string } = { status: 201, body: "" };
let server: Server;
let base = "";

const readAll = async (req: IncomingMessage) => {
  let s = "";
  for await (const c of req) s += String(c);
  return s;
};

beforeAll(async () => {
  server = createServer(async (req, res) => {
    Object.assign(seen, { method: req.method, url: req.url, authorization: req.headers.authorization, contentType: req.headers["content-type"], body: JSON.parse(await readAll(req)) });
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(answer.body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("registerWithRealmgate", () => {
  it("POSTs { url } with the bearer token and returns the registration", async () => {
    const registration = { provider: { id: "rrp_1", namespace: "freight", url: "http://127.0.0.1:4100/", manifest_version: "3", status: "available" }, secret: "rgs_abc", tenant_id: "ten_1" };
    answer = { status: 201, body: JSON.stringify(registration) };
    const out = await registerWithRealmgate({ realmgateUrl: `${base}/`, token: "rgr_token", url: "http://127.0.0.1:4100/" });
    expect(out).toEqual(registration);
    expect(seen).toEqual({ method: "POST", url: "/api/v1/remote-providers/register", authorization: "Bearer rgr_token", contentType: "application/json", body: { url: "http://127.0.0.1:4100/" } });
  });

  it("throws with Realmgate's code, message and problems on a refusal", async () => {
    answer = { status: 400, body: JSON.stringify({ error: { code: "invalid_input", message: "the manifest is not valid", details: { problems: ["kinds: kind shipment is outside namespace freight"] }, request_id: "req_1" } }) };
    await expect(registerWithRealmgate({ realmgateUrl: base, token: "rgr_token", url: "http://x.test/" })).rejects.toThrow(
      /HTTP 400 invalid_input: the manifest is not valid \(kinds: kind shipment is outside namespace freight\)/,
    );
    answer = { status: 401, body: JSON.stringify({ error: { code: "unauthenticated", message: "the registration token is spent", details: {} } }) };
    await expect(registerWithRealmgate({ realmgateUrl: base, token: "rgr_used", url: "http://x.test/" })).rejects.toThrow(/HTTP 401 unauthenticated: the registration token is spent/);
  });

  it("throws on a success answer that is not a registration", async () => {
    answer = { status: 201, body: JSON.stringify({ provider: { id: "rrp_1" } }) };
    await expect(registerWithRealmgate({ realmgateUrl: base, token: "rgr_token", url: "http://x.test/" })).rejects.toThrow(/not \{ provider, secret, tenant_id \}/);
  });

  it("uses the fetch it is given", async () => {
    const calls: string[] = [];
    const fetchImpl = (async (input: string | URL | Request) => {
      calls.push(String(input));
      return new Response(JSON.stringify({ error: { code: "rate_limited", message: "slow down" } }), { status: 429 });
    }) as typeof fetch;
    await expect(registerWithRealmgate({ realmgateUrl: "https://rg.example", token: "t", url: "https://p.example/", fetchImpl })).rejects.toThrow(/HTTP 429 rate_limited: slow down/);
    expect(calls).toEqual(["https://rg.example/api/v1/remote-providers/register"]);
  });
});
