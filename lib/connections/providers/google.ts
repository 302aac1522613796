// Google, for real use: configured by GOOGLE_CLIENT_ID / GOOGLE_CLIENT_SECRET (docs/connections.md has the
// console steps). Google merges incremental scopes into the existing grant (include_granted_scopes).
import { ConfigError, type Env } from "@/lib/env";
import type { ProviderConfig } from "./types";

export function googleProvider(cfg: Env): ProviderConfig | null {
  if (!cfg.GOOGLE_CLIENT_ID && !cfg.GOOGLE_CLIENT_SECRET) return null;
  if (!cfg.GOOGLE_CLIENT_ID || !cfg.GOOGLE_CLIENT_SECRET) {
    throw new ConfigError("Invalid configuration: GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are required together");
  }
  const offline = { access_type: "offline", include_granted_scopes: "true" };
  return {
    id: "google",
    label: "Google",
    api: "gmail",
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
  };
}
