// Slack's folder: its two configurations, the OAuth v2 token answer, identity from auth.test, the claims and
// their scopes, auth.revoke, and how the Web API says no (HTTP 200 `{ok: false, error}`, 429 with Retry-After).
import { describe, expect, it } from "vitest";
import { ConfigError } from "@/lib/env";
import { claimsFromScopes, scopesForClaims } from "..";
import type { ApiProbe } from "../types";
import { classifySlackApi, devslack, mapSlackTokens, slack, SLACK_READ_SCOPES, slackApi, slackIdentity } from ".";
import { slackAccountHint, slackRevocation } from "./api";

const dev = {
  REALMGATE_DEVSLACK_CLIENT_ID: "1111.2222",
  REALMGATE_DEVSLACK_CLIENT_SECRET: "s3cret",
  REALMGATE_DEVSLACK_AUTHORIZE_URL: "http://127.0.0.1:9301/oauth/v2/authorize",
  REALMGATE_DEVSLACK_TOKEN_URL: "http://127.0.0.1:9301/api/oauth.v2.access",
  REALMGATE_DEVSLACK_API_URL: "http://127.0.0.1:9301/api/",
};

describe("Slack's configurations", () => {
  it("real Slack: its two variables together or not at all, slack.com's endpoints, user scopes comma-separated", () => {
    expect(slack.fromEnv({})).toBeNull();
    expect(slack.fromEnv({ SLACK_CLIENT_ID: "1.2", SLACK_CLIENT_SECRET: "x" })).toMatchObject({
      id: "slack",
      label: "Slack",
      api: "slack",
      apiBaseUrl: "https://slack.com/api",
      tokenOrigins: ["https://files.slack.com"],
      endpoints: { authorization: "https://slack.com/oauth/v2/authorize", token: "https://slack.com/api/oauth.v2.access", revocation: null },
      tokenAuthMethod: "client_secret_basic",
      scopeRequest: { param: "user_scope", separator: "," },
      baseScopes: [],
      incremental: "missing_only",
      identity: { kind: "api" },
      revocation: { kind: "api", path: "/auth.revoke" },
    });
    expect(() => slack.fromEnv({ SLACK_CLIENT_SECRET: "x" })).toThrow(new ConfigError("Invalid configuration: SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are required together"));
  });

  it("a Slack-compatible server: its five variables together, URLs checked, trailing slashes trimmed, a default name", () => {
    expect(devslack.fromEnv({})).toBeNull();
    expect(devslack.fromEnv(dev)).toMatchObject({
      id: "devslack",
      label: "Development Slack",
      api: "slack",
      apiBaseUrl: "http://127.0.0.1:9301/api",
      issuer: "http://127.0.0.1:9301",
      endpoints: { authorization: dev.REALMGATE_DEVSLACK_AUTHORIZE_URL, token: dev.REALMGATE_DEVSLACK_TOKEN_URL, revocation: null },
      scopeRequest: { param: "user_scope", separator: "," },
    });
    expect(devslack.fromEnv({ ...dev, REALMGATE_DEVSLACK_NAME: "Demo Slack (local)" })!.label).toBe("Demo Slack (local)");
    expect(devslack.fromEnv(dev)!.classify).toBe(classifySlackApi);
    const { REALMGATE_DEVSLACK_TOKEN_URL: _, ...partial } = dev;
    expect(() => devslack.fromEnv(partial)).toThrow(new ConfigError("Invalid configuration: REALMGATE_DEVSLACK_TOKEN_URL is required when any REALMGATE_DEVSLACK_* variable is set"));
    expect(() => devslack.fromEnv({ REALMGATE_DEVSLACK_NAME: "only a name" })).not.toThrow();
    expect(() => devslack.fromEnv({ ...dev, REALMGATE_DEVSLACK_API_URL: "ftp://x" })).toThrow(/^Invalid configuration: REALMGATE_DEVSLACK_API_URL /);
  });
});

describe("Slack's claims", () => {
  it("asks for every scope of a claim, and grants a claim only when all of them are granted", () => {
    expect(slackApi.claims.map((c) => c.name)).toEqual(["slack:read", "slack:files:read", "slack:write", "slack:files:write"]);
    expect(scopesForClaims(slackApi, ["slack:read"])).toEqual([...SLACK_READ_SCOPES]);
    expect(scopesForClaims(slackApi, ["slack:write", "slack:files:write"])).toEqual(["chat:write", "reactions:write", "files:write"]);
    expect(claimsFromScopes(slackApi, [...SLACK_READ_SCOPES, "chat:write", "reactions:write"])).toEqual(["slack:read", "slack:write"]);
    // One scope short of a claim is not the claim.
    expect(claimsFromScopes(slackApi, SLACK_READ_SCOPES.filter((s) => s !== "users:read.email"))).toEqual([]);
    expect(claimsFromScopes(slackApi, ["chat:write", "files:read"])).toEqual(["slack:files:read"]);
  });
});

describe("oauth.v2.access, as a token response", () => {
  const team = { id: "T123", name: "Acme" };
  it("takes the user token under authed_user, its scopes comma-separated → space-separated, never a bot token", () => {
    expect(
      mapSlackTokens({
        ok: true,
        app_id: "A1",
        access_token: "xoxb-bot",
        token_type: "bot",
        scope: "commands",
        authed_user: { id: "U456", scope: "channels:read,chat:write", access_token: "xoxp-user", token_type: "user" },
        team,
        enterprise: null,
        is_enterprise_install: false,
      }),
    ).toEqual({ access_token: "xoxp-user", token_type: "Bearer", scope: "channels:read chat:write" });
    // Only a bot token: unusable here.
    expect(mapSlackTokens({ ok: true, access_token: "xoxb-bot", token_type: "bot", scope: "commands", team })).toBeNull();
  });

  it("keeps a rotating token's refresh token and expiry, from a sign-in (nested) or a refresh (top level)", () => {
    const rotating = { access_token: "xoxe.xoxp-1", token_type: "user", scope: "chat:write", refresh_token: "xoxe-1-r", expires_in: 43200 };
    const expected = { access_token: "xoxe.xoxp-1", token_type: "Bearer", scope: "chat:write", refresh_token: "xoxe-1-r", expires_in: 43200 };
    expect(mapSlackTokens({ ok: true, authed_user: { id: "U1", ...rotating }, team })).toEqual(expected);
    expect(mapSlackTokens({ ok: true, ...rotating, team })).toEqual(expected);
  });

  it("reads ok:false as a refusal in Slack's words, except Slack's own failures", () => {
    expect(mapSlackTokens({ ok: false, error: "invalid_code" })).toEqual({ refused: "invalid_code" });
    expect(mapSlackTokens({ ok: false, error: "invalid_refresh_token" })).toEqual({ refused: "invalid_refresh_token" });
    expect(mapSlackTokens({ ok: false, error: "bad_redirect_uri" })).toEqual({ refused: "bad_redirect_uri" });
    expect(mapSlackTokens({ ok: false, error: "ratelimited" })).toBeNull();
    expect(mapSlackTokens({ ok: false, error: "internal_error" })).toBeNull();
    expect(mapSlackTokens({ ok: false })).toBeNull();
    expect(mapSlackTokens("<html>")).toBeNull();
    expect(mapSlackTokens({ ok: true, authed_user: { id: "U1", access_token: "", token_type: "user" } })).toBeNull();
  });
});

describe("who signed in (auth.test, users.info)", () => {
  const probe = (answers: Record<string, { status: number; body: unknown }>): { call: ApiProbe; asked: string[] } => {
    const asked: string[] = [];
    return {
      asked,
      call: async (req) => {
        asked.push(`${req.path}${req.query ? `?${new URLSearchParams(req.query).toString()}` : ""}`);
        return answers[req.path] ?? { status: 200, body: { ok: false, error: "unknown_method" } };
      },
    };
  };
  const authTest = { status: 200, body: { ok: true, url: "https://acme.slack.com/", team: "Acme", user: "alice", team_id: "T123", user_id: "U456" } };

  it("names the account by workspace and user, labelled by the workspace and the person's email", async () => {
    const { call, asked } = probe({ "/auth.test": authTest, "/users.info": { status: 200, body: { ok: true, user: { id: "U456", is_email_confirmed: true, profile: { email: "alice@acme.test" } } } } });
    expect(await slackIdentity(call)).toEqual({ sub: "T123:U456", email: "alice@acme.test", label: "Acme (alice@acme.test)" });
    expect(asked).toEqual(["/auth.test", "/users.info?user=U456"]);
  });

  it("without the email scope (or an unconfirmed address) names the person by handle", async () => {
    const noEmail = probe({ "/auth.test": authTest, "/users.info": { status: 200, body: { ok: false, error: "missing_scope", needed: "users:read" } } });
    expect(await slackIdentity(noEmail.call)).toEqual({ sub: "T123:U456", email: null, label: "Acme (@alice)" });
    const unconfirmed = probe({ "/auth.test": authTest, "/users.info": { status: 200, body: { ok: true, user: { is_email_confirmed: false, profile: { email: "x@y.test" } } } } });
    expect((await slackIdentity(unconfirmed.call))!.email).toBeNull();
  });

  it("is nobody when auth.test refuses the token or names no workspace", async () => {
    expect(await slackIdentity(probe({ "/auth.test": { status: 200, body: { ok: false, error: "invalid_auth" } } }).call)).toBeNull();
    expect(await slackIdentity(probe({ "/auth.test": { status: 200, body: { ok: true, user_id: "U1" } } }).call)).toBeNull();
  });

  it("opens an upgrade on the account's own workspace", () => {
    expect(slackAccountHint({ externalId: "T123:U456" })).toEqual({ team: "T123" });
    expect(slackAccountHint({ externalId: "odd" })).toEqual({});
  });
});

describe("auth.revoke", () => {
  it("counts a revoked token, or one Slack already ended, as revoked", () => {
    if (slackRevocation.kind !== "api") throw new Error("api revocation expected");
    expect(slackRevocation.revoked({ status: 200, body: { ok: true, revoked: true } })).toBe(true);
    expect(slackRevocation.revoked({ status: 200, body: { ok: false, error: "token_revoked" } })).toBe(true);
    expect(slackRevocation.revoked({ status: 200, body: { ok: true, revoked: false } })).toBe(false);
    expect(slackRevocation.revoked({ status: 200, body: { ok: false, error: "invalid_auth" } })).toBe(false);
    expect(slackRevocation.revoked({ status: 429, body: { ok: false, error: "ratelimited" } })).toBe(false);
  });
});

describe("the Slack Web API's answers", () => {
  it("names the scopes a missing_scope needed, so the claims asking for them are demanded", () => {
    expect(classifySlackApi({ status: 200, body: { ok: false, error: "missing_scope", needed: "channels:history", provided: "channels:read" } })).toEqual({
      outcome: "missing_scope",
      message: "missing_scope (needed: channels:history; provided: channels:read)",
      scopes: ["channels:history"],
    });
    expect(classifySlackApi({ status: 200, body: { ok: false, error: "missing_scope", needed: "channels:read,groups:read" } }).scopes).toEqual(["channels:read", "groups:read"]);
    expect(classifySlackApi({ status: 200, body: { ok: false, error: "missing_scope" } })).toEqual({ outcome: "missing_scope", message: "missing_scope" });
  });

  it.each([
    [200, { ok: true, channels: [] }, "ok", null],
    [200, null, "ok", null],
    [200, { ok: false, error: "invalid_auth" }, "auth_invalid", "invalid_auth"],
    [200, { ok: false, error: "token_revoked" }, "auth_invalid", "token_revoked"],
    [200, { ok: false, error: "token_expired" }, "auth_invalid", "token_expired"],
    [200, { ok: false, error: "account_inactive" }, "auth_invalid", "account_inactive"],
    [200, { ok: false, error: "not_authed" }, "auth_invalid", "not_authed"],
    [200, { ok: false, error: "channel_not_found" }, "not_found", "channel_not_found"],
    [200, { ok: false, error: "message_not_found" }, "not_found", "message_not_found"],
    [200, { ok: false, error: "file_not_found" }, "not_found", "file_not_found"],
    [200, { ok: false, error: "not_in_channel" }, "denied", "not_in_channel"],
    [200, { ok: false, error: "restricted_action" }, "denied", "restricted_action"],
    [200, { ok: false, error: "internal_error" }, "unavailable", "internal_error"],
    [200, { ok: false, error: "invalid_cursor" }, "rejected", "invalid_cursor"],
    [200, { ok: false, error: "msg_too_long" }, "rejected", "msg_too_long"],
    [200, { ok: false }, "rejected", "unknown_error"],
    [429, { ok: false, error: "ratelimited" }, "unavailable", "ratelimited"],
    [429, null, "unavailable", "ratelimited"],
    [503, "<html>", "unavailable", null],
    [401, null, "auth_invalid", null],
    [404, null, "not_found", null],
    [400, { ok: false, error: "invalid_arguments" }, "rejected", "invalid_arguments"],
  ] as const)("HTTP %i %j → %s", (status, body, outcome, message) => {
    expect(classifySlackApi({ status, body })).toEqual({ outcome, message });
  });
});
