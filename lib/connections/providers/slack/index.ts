// Slack, two ways, both speaking the Slack Web API with user tokens (OAuth v2, `user_scope`): real Slack from
// SLACK_CLIENT_ID / SLACK_CLIENT_SECRET (docs/connections.md has the app's setup), and a Slack-compatible server
// configured entirely from REALMGATE_DEVSLACK_* (`npm run dev` and the e2e tests point it at a local one). Slack
// has no OpenID Connect here: identity comes from `auth.test`, one account per workspace and user. A user token's
// upgrade carries every user scope granted so far (`missing_only`), and disconnecting calls `auth.revoke`.
import { z } from "zod";
import { ConfigError, optionalUrl } from "@/lib/env";
import { providerEnv } from "../env";
import type { ProviderConfig, ProviderModule } from "../types";
import { classifySlackApi, mapSlackTokens, slackAccountHint, slackApi, slackIdentity, slackRevocation } from "./api";

export { classifySlackApi, mapSlackTokens, SLACK_READ_SCOPES, SLACK_WRITE_SCOPES, slackApi, slackIdentity } from "./api";

const trim = (u: string) => u.replace(/\/+$/, "");

/** What both configurations share: Slack's dialect, its user scopes, its identity and revocation. */
function slackConfig(c: { id: string; label: string; apiBaseUrl: string; issuer: string; authorization: string; token: string; tokenOrigins: string[]; clientId: string; clientSecret: string }): ProviderConfig {
  return {
    id: c.id,
    label: c.label,
    api: slackApi.id,
    apiBaseUrl: c.apiBaseUrl,
    tokenOrigins: c.tokenOrigins,
    issuer: c.issuer,
    issuerAliases: [],
    // No OpenID Connect: identity is asked of the API (auth.test), so no keys are ever fetched from `jwks`.
    endpoints: { authorization: c.authorization, token: c.token, revocation: null, jwks: `${c.apiBaseUrl}/openid.connect.keys` },
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    // Slack asks for the client's id and secret by HTTP Basic (oauth.v2.access).
    tokenAuthMethod: "client_secret_basic",
    // User-token scopes, comma-separated; no scope is needed to say who signed in (auth.test).
    scopeRequest: { param: "user_scope", separator: "," },
    baseScopes: [],
    authParams: { connect: {}, upgrade: {}, reconnect: {} },
    // An upgrade or reconnect opens on the account's own workspace.
    accountHint: slackAccountHint,
    incremental: "missing_only",
    mapTokens: mapSlackTokens,
    identity: { kind: "api", resolve: slackIdentity },
    revocation: slackRevocation,
    classify: classifySlackApi,
  };
}

export const slackEnv = z.object({
  SLACK_CLIENT_ID: z.string().trim().optional(),
  SLACK_CLIENT_SECRET: z.string().trim().optional(),
});

function slackFromEnv(source: Record<string, string | undefined>): ProviderConfig | null {
  const cfg = providerEnv(slackEnv, source);
  if (!cfg.SLACK_CLIENT_ID && !cfg.SLACK_CLIENT_SECRET) return null;
  if (!cfg.SLACK_CLIENT_ID || !cfg.SLACK_CLIENT_SECRET) throw new ConfigError("Invalid configuration: SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are required together");
  return slackConfig({
    id: "slack",
    label: "Slack",
    apiBaseUrl: "https://slack.com/api",
    issuer: "https://slack.com",
    authorization: "https://slack.com/oauth/v2/authorize",
    token: "https://slack.com/api/oauth.v2.access",
    // A file's url_private_download and an upload's upload_url are on files.slack.com.
    tokenOrigins: ["https://files.slack.com"],
    clientId: cfg.SLACK_CLIENT_ID,
    clientSecret: cfg.SLACK_CLIENT_SECRET,
  });
}

export const devslackEnv = z.object({
  REALMGATE_DEVSLACK_CLIENT_ID: z.string().trim().optional(),
  REALMGATE_DEVSLACK_CLIENT_SECRET: z.string().trim().optional(),
  REALMGATE_DEVSLACK_AUTHORIZE_URL: optionalUrl,
  REALMGATE_DEVSLACK_TOKEN_URL: optionalUrl,
  REALMGATE_DEVSLACK_API_URL: optionalUrl,
  REALMGATE_DEVSLACK_NAME: z.string().trim().optional(),
});

const DEV_REQUIRED = ["REALMGATE_DEVSLACK_CLIENT_ID", "REALMGATE_DEVSLACK_CLIENT_SECRET", "REALMGATE_DEVSLACK_AUTHORIZE_URL", "REALMGATE_DEVSLACK_TOKEN_URL", "REALMGATE_DEVSLACK_API_URL"] as const;

function devslackFromEnv(source: Record<string, string | undefined>): ProviderConfig | null {
  const cfg = providerEnv(devslackEnv, source);
  if (!DEV_REQUIRED.some((v) => cfg[v])) return null;
  const missing = DEV_REQUIRED.find((v) => !cfg[v]);
  if (missing) throw new ConfigError(`Invalid configuration: ${missing} is required when any REALMGATE_DEVSLACK_* variable is set`);
  const authorization = cfg.REALMGATE_DEVSLACK_AUTHORIZE_URL!;
  return slackConfig({
    id: "devslack",
    label: cfg.REALMGATE_DEVSLACK_NAME || "Development Slack",
    apiBaseUrl: trim(cfg.REALMGATE_DEVSLACK_API_URL!),
    issuer: new URL(authorization).origin,
    authorization,
    token: cfg.REALMGATE_DEVSLACK_TOKEN_URL!,
    // Its files and upload slots are served by the API's own origin.
    tokenOrigins: [],
    clientId: cfg.REALMGATE_DEVSLACK_CLIENT_ID!,
    clientSecret: cfg.REALMGATE_DEVSLACK_CLIENT_SECRET!,
  });
}

/** Real Slack (SLACK_CLIENT_ID / SLACK_CLIENT_SECRET). */
export const slack: ProviderModule = { id: "slack", apis: [slackApi], fromEnv: slackFromEnv };
/** A Slack-compatible server (REALMGATE_DEVSLACK_*), e.g. the local one of `npm run dev`; it lives here, as it speaks Slack. */
export const devslack: ProviderModule = { id: "devslack", apis: [slackApi], fromEnv: devslackFromEnv };
