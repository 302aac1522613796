// Forwarded headers are the client's own words unless a trusted proxy overwrote them: ignored by default.
import { afterEach, describe, expect, it } from "vitest";
import { envOverride } from "@/test-support";
import { clientAddress, clientRequestIdOf, isServedHost, isServedOrigin, requestHost, requestProto } from "./forwarded";

const overrides = envOverride();
afterEach(() => overrides.restore());

const req = (headers: Record<string, string>, url = "http://realmgate.test/api/x") => new Request(url, { headers });

describe("without REALMGATE_TRUST_PROXY", () => {
  it("has no client address, whatever X-Forwarded-For or Forwarded say", () => {
    expect(clientAddress(req({ "x-forwarded-for": "203.0.113.7" }))).toBeNull();
    expect(clientAddress(req({ forwarded: "for=203.0.113.7" }))).toBeNull();
  });

  it("takes the Host header (or the URL's host), never X-Forwarded-Host/Proto or Forwarded", () => {
    const r = req({ host: "realmgate.test", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", forwarded: "host=evil.example;proto=https" });
    expect(requestHost(r)).toBe("realmgate.test");
    expect(requestProto(r)).toBe("http");
    expect(requestHost(req({}, "http://Realmgate.TEST:8080/x"))).toBe("realmgate.test:8080");
  });
});

describe("with REALMGATE_TRUST_PROXY=1", () => {
  it("takes the address our proxy added (the last X-Forwarded-For hop), else Forwarded's", () => {
    overrides.set({ REALMGATE_TRUST_PROXY: "1" });
    expect(clientAddress(req({ "x-forwarded-for": "198.51.100.1, 203.0.113.7" }))).toBe("203.0.113.7");
    expect(clientAddress(req({ forwarded: 'for="[2001:db8::1]:4711";proto=https' }))).toBe("2001:db8::1");
    expect(clientAddress(req({ forwarded: "for=unknown" }))).toBeNull();
    expect(clientAddress(req({}))).toBeNull();
  });

  it("takes the forwarded host and scheme", () => {
    overrides.set({ REALMGATE_TRUST_PROXY: "1" });
    const r = req({ host: "10.0.0.5:3000", "x-forwarded-host": "realmgate.test", "x-forwarded-proto": "https" });
    expect([requestHost(r), requestProto(r)]).toEqual(["realmgate.test", "https"]);
    const std = req({ host: "10.0.0.5:3000", forwarded: 'host="Realmgate.test";proto=https, host=inner' });
    expect([requestHost(std), requestProto(std)]).toEqual(["realmgate.test", "https"]);
  });
});

describe("served hosts and origins", () => {
  it("serves APP_URL's host (its port), loopback names and addresses (any port), and configured aliases", () => {
    // vitest.setup.ts: APP_URL=http://realmgate.test
    for (const h of ["realmgate.test", "realmgate.test:80", "REALMGATE.test", "localhost", "localhost:3100", "127.0.0.1:3100", "127.9.9.9", "[::1]:3100"]) expect(isServedHost(h), h).toBe(true);
    for (const h of ["realmgate.test:8080", "evil.example.com", "realmgate.test.evil.example", "10.0.0.1", "", "realmgate.test/x", "a@realmgate.test", "[::2]:80"]) expect(isServedHost(h), h).toBe(false);
    overrides.set({ REALMGATE_ALLOWED_HOSTS: "alias.example, pinned.example:8443" });
    expect(isServedHost("alias.example:1234")).toBe(true);
    expect(isServedHost("pinned.example:8443")).toBe(true);
    expect(isServedHost("pinned.example")).toBe(false);
  });

  it("an Origin is served when its host is: APP_URL's exactly, an alias, loopback", () => {
    expect(isServedOrigin("http://realmgate.test")).toBe(true);
    expect(isServedOrigin("http://localhost:6274")).toBe(true);
    expect(isServedOrigin("http://evil.example.com")).toBe(false);
    expect(isServedOrigin("null")).toBe(false);
    expect(isServedOrigin("http://realmgate.test/path")).toBe(false);
    expect(isServedOrigin("file://realmgate.test")).toBe(false);
  });
});

describe("a client's X-Request-Id", () => {
  it("is kept when sane, dropped otherwise", () => {
    expect(clientRequestIdOf(req({ "x-request-id": "trace-01HX:abc.def" }))).toBe("trace-01HX:abc.def");
    expect(clientRequestIdOf(req({ "x-request-id": "x".repeat(129) }))).toBeUndefined();
    expect(clientRequestIdOf(req({ "x-request-id": "<script>" }))).toBeUndefined();
    expect(clientRequestIdOf(req({}))).toBeUndefined();
  });
});
