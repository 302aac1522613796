// Auth.js's URLs (sign-in, callback: the OIDC redirect_uri) come from APP_URL unless a trusted proxy forwards the
// host: a client's Host or X-Forwarded-Host never reaches them.
import { afterEach, describe, expect, it } from "vitest";
import { envOverride } from "@/test-support";
import { authOrigin, pinAuthUrl } from "./auth-url";

const overrides = envOverride();
afterEach(() => {
  overrides.restore();
  if (process.env.AUTH_URL === "http://realmgate.test") delete process.env.AUTH_URL; // the pin of these tests
});

const forged = () => new Request("http://127.0.0.1:3100/api/auth/providers", { headers: { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" } });

describe("where Auth.js lives", () => {
  it("is APP_URL's origin without REALMGATE_TRUST_PROXY, whatever Host and X-Forwarded-* say", () => {
    pinAuthUrl();
    expect(process.env.AUTH_URL).toBe("http://realmgate.test");
    expect(authOrigin(forged())).toBe("http://realmgate.test");
  });

  it("is the forwarded origin behind a trusted proxy (and AUTH_URL is no longer pinned)", () => {
    overrides.set({ REALMGATE_TRUST_PROXY: "1" });
    pinAuthUrl();
    expect(process.env.AUTH_URL).toBeUndefined();
    expect(authOrigin(forged())).toBe("https://evil.example");
  });

  it("on a loopback IP APP_URL, is not pinned (Next would rewrite it to localhost) but still hands Auth.js APP_URL's origin", () => {
    overrides.set({ APP_URL: "http://127.0.0.1:3100" });
    pinAuthUrl();
    expect(process.env.AUTH_URL).toBeUndefined();
    expect(authOrigin(forged())).toBe("http://127.0.0.1:3100");
  });

  it("leaves an operator's own AUTH_URL alone", () => {
    overrides.set({ AUTH_URL: "https://auth.example" });
    pinAuthUrl();
    expect(process.env.AUTH_URL).toBe("https://auth.example");
  });
});
