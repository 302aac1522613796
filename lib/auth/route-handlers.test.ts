// The /api/auth/* route handlers answer on every kind of APP_URL: a public name (AUTH_URL pinned to it, the
// production case), `localhost` (npm run dev) and a loopback IP (tests), never a 500.
import { NextRequest } from "next/server";
import { afterEach, describe, expect, it } from "vitest";
import { envOverride } from "@/test-support";
import { authRouteHandlers } from "./next-auth";

const overrides = envOverride();
afterEach(() => {
  overrides.restore();
  delete process.env.AUTH_URL;
});

describe("Auth.js route handlers", () => {
  it.each(["https://realmgate.example.com", "http://localhost:3000", "http://127.0.0.1:3100"])("GET /api/auth/csrf answers a token with APP_URL=%s", async (appUrl) => {
    overrides.set({ APP_URL: appUrl, REALMGATE_DEV_LOGIN: "1" });
    const res = await authRouteHandlers.GET(new NextRequest(`${appUrl}/api/auth/csrf`));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ csrfToken: expect.any(String) });
  });

  it("GET /api/auth/providers names the sign-in methods on APP_URL's origin", async () => {
    overrides.set({ APP_URL: "https://realmgate.example.com", REALMGATE_DEV_LOGIN: "1" });
    const res = await authRouteHandlers.GET(new NextRequest("https://realmgate.example.com/api/auth/providers", { headers: { host: "evil.example" } }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, { signinUrl: string }>;
    expect(body.dev!.signinUrl).toBe("https://realmgate.example.com/api/auth/signin/dev");
  });
});
