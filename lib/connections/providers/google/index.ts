// Google, for real use: configured by GOOGLE_CLIENT_ID / GOOGLE_CLIENT_SECRET (docs/connections.md has the
// console steps). Google merges incremental scopes into the existing grant (include_granted_scopes), says who
// signed in with an OpenID Connect ID token, and speaks the Gmail API.
import { z } from "zod";
import { ConfigError } from "@/lib/env";
import { standardTokens } from "../tokens";
import { providerEnv } from "../env";
import type { ProviderConfig, ProviderModule } from "../types";
import { classifyGoogleApi, gmailApi } from "./gmail";

export const googleEnv = z.object({
  GOOGLE_CLIENT_ID: z.string().trim().optional(),
  GOOGLE_CLIENT_SECRET: z.string().trim().optional(),
});

function fromEnv(source: Record<string, string | undefined>): ProviderConfig | null {
  const cfg = providerEnv(googleEnv, source);
  if (!cfg.GOOGLE_CLIENT_ID && !cfg.GOOGLE_CLIENT_SECRET) return null;
  if (!cfg.GOOGLE_CLIENT_ID || !cfg.GOOGLE_CLIENT_SECRET) {
    throw new ConfigError("Invalid configuration: GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are required together");
  }
  const offline = { access_type: "offline", include_granted_scopes: "true" };
  return {
    id: "google",
    label: "Google",
    api: gmailApi.id,
    apiBaseUrl: "https://gmail.googleapis.com",
    issuer: "https://accounts.google.com",
    issuerAliases: ["accounts.google.com"],
    endpoints: {
      authorization: "https://accounts.google.com/o/oauth2/v2/auth",
      token: "https://oauth2.googleapis.com/token",
      revocation: "https://oauth2.googleapis.com/revoke",
      jwks: "https://www.googleapis.com/oauth2/v3/certs",
    },
    clientId: cfg.GOOGLE_CLIENT_ID,
    clientSecret: cfg.GOOGLE_CLIENT_SECRET,
    tokenAuthMethod: "client_secret_post",
    baseScopes: ["openid", "email"],
    // `consent` makes Google return a refresh token every time; `select_account` lets a person add a second account.
    authParams: {
      connect: { ...offline, prompt: "select_account consent" },
      upgrade: { ...offline, prompt: "consent" },
      reconnect: { ...offline, prompt: "consent" },
    },
    incremental: "missing_only",
    mapTokens: standardTokens,
    identity: { kind: "id_token" },
    classify: classifyGoogleApi,
  };
}

export const google: ProviderModule = { id: "google", apis: [gmailApi], fromEnv };
