// Google's folder: its own environment, incremental authorization, and how the Gmail API says no.
import { afterAll, describe, expect, it } from "vitest";
import { connectedAccounts } from "@/db/schema";
import { envOverride, makeTenant } from "@/test-support";
import { ConfigError } from "@/lib/env";
import { newId } from "@/lib/ids";
import { sealTokens } from "../../accounts";
import { startConnection } from "../../flows";
import { classifyGoogleApi } from "./gmail";
import { google } from ".";

const envs = envOverride();
afterAll(() => envs.restore());

describe("Google", () => {
  it("is configured by its two variables, together or not at all", () => {
    expect(google.fromEnv({})).toBeNull();
    expect(google.fromEnv({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "secret" })).toMatchObject({ id: "google", api: "gmail", identity: { kind: "id_token" }, incremental: "missing_only" });
    expect(() => google.fromEnv({ GOOGLE_CLIENT_ID: "id" })).toThrow(ConfigError);
    expect(() => google.fromEnv({ GOOGLE_CLIENT_ID: "id" })).toThrow("Invalid configuration: GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are required together");
  });

  it("asks a merging provider (Google) for the missing scope only, with include_granted_scopes", async () => {
    envs.set({ GOOGLE_CLIENT_ID: "client.apps.googleusercontent.com", GOOGLE_CLIENT_SECRET: "google-secret" });
    try {
      const tt = await makeTenant({ alice: "owner" });
      const who = tt.users.alice!;
      const id = newId("acc");
      const base = { id, tenantId: tt.tenantId, userId: who.userId };
      await tt.db.insert(connectedAccounts).values({
        ...base,
        ...sealTokens(base, { access_token: "at", refresh_token: "rt" }),
        provider: "google",
        api: "gmail",
        externalId: "1234",
        email: "alice@gmail.test",
        label: "Gmail",
        claims: ["gmail:read"],
        scopes: ["openid", "email", "https://www.googleapis.com/auth/gmail.readonly"],
        status: "active",
      });
      const { authorization_url } = await startConnection(tt.db, who, { intent: "upgrade", account_id: id, claims: ["gmail:send"] });
      const u = new URL(authorization_url);
      expect(u.origin + u.pathname).toBe("https://accounts.google.com/o/oauth2/v2/auth");
      expect(u.searchParams.get("scope")).toBe("openid email https://www.googleapis.com/auth/gmail.send");
      expect(u.searchParams.get("include_granted_scopes")).toBe("true");
      expect(u.searchParams.get("access_type")).toBe("offline");
      expect(u.searchParams.get("login_hint")).toBe("alice@gmail.test");
    } finally {
      envs.set({ GOOGLE_CLIENT_ID: undefined, GOOGLE_CLIENT_SECRET: undefined });
    }
  });
});

describe("the Gmail API's answers", () => {
  const insufficient = { error: { code: 403, message: "Request had insufficient authentication scopes.", status: "PERMISSION_DENIED" } };
  it.each([
    [200, {}, "ok", null],
    [204, null, "ok", null],
    [401, { error: { message: "Invalid Credentials" } }, "auth_invalid", "Invalid Credentials"],
    [403, insufficient, "missing_scope", "Request had insufficient authentication scopes."],
    [403, { error: { message: "Delegation denied" } }, "denied", "Delegation denied"],
    [404, { error: { message: "Requested entity was not found." } }, "not_found", "Requested entity was not found."],
    [429, null, "unavailable", null],
    [503, "<html>", "unavailable", null],
    [400, { error: { message: "Invalid label" } }, "rejected", "Invalid label"],
  ] as const)("HTTP %i %j → %s", (status, body, outcome, message) => {
    expect(classifyGoogleApi({ status, body })).toEqual({ outcome, message });
  });
});
