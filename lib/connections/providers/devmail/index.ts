// A mail provider configured entirely from REALMGATE_DEVMAIL_*: any OpenID Connect issuer (endpoints from
// its discovery document) in front of an API that speaks the Gmail REST dialect. `npm run dev` and the
// e2e tests point it at a local one (dev/fake-gmail.ts); a self-hosted gateway works the same way.
import { z } from "zod";
import { ConfigError, optionalUrl } from "@/lib/env";
import { standardTokens } from "../tokens";
import { providerEnv } from "../env";
import { classifyGoogleApi, gmailApi } from "../google/gmail";
import type { ProviderConfig, ProviderModule } from "../types";

export const devmailEnv = z.object({
  REALMGATE_DEVMAIL_ISSUER: optionalUrl,
  REALMGATE_DEVMAIL_CLIENT_ID: z.string().trim().optional(),
  REALMGATE_DEVMAIL_CLIENT_SECRET: z.string().trim().optional(),
  REALMGATE_DEVMAIL_API_URL: optionalUrl,
  REALMGATE_DEVMAIL_NAME: z.string().trim().optional(),
});

const REQUIRED = ["REALMGATE_DEVMAIL_ISSUER", "REALMGATE_DEVMAIL_CLIENT_ID", "REALMGATE_DEVMAIL_CLIENT_SECRET", "REALMGATE_DEVMAIL_API_URL"] as const;

function fromEnv(source: Record<string, string | undefined>): ProviderConfig | null {
  const cfg = providerEnv(devmailEnv, source);
  const set = REQUIRED.filter((v) => cfg[v]);
  if (set.length === 0) return null;
  const missing = REQUIRED.filter((v) => !cfg[v]);
  if (missing.length) throw new ConfigError(`Invalid configuration: ${missing[0]} is required when any REALMGATE_DEVMAIL_* variable is set`);
  return {
    id: "devmail",
    label: cfg.REALMGATE_DEVMAIL_NAME || "Development mail",
    api: gmailApi.id,
    apiBaseUrl: cfg.REALMGATE_DEVMAIL_API_URL!.replace(/\/+$/, ""),
    issuer: cfg.REALMGATE_DEVMAIL_ISSUER!.replace(/\/+$/, ""),
    issuerAliases: [],
    endpoints: "discover",
    clientId: cfg.REALMGATE_DEVMAIL_CLIENT_ID!,
    clientSecret: cfg.REALMGATE_DEVMAIL_CLIENT_SECRET!,
    tokenAuthMethod: "client_secret_basic",
    // OpenID Connect issues a refresh token only for offline_access with an explicit consent prompt.
    baseScopes: ["openid", "email", "offline_access"],
    authParams: {
      connect: { prompt: "login consent" },
      upgrade: { prompt: "consent" },
      reconnect: { prompt: "login consent" },
    },
    incremental: "union",
    mapTokens: standardTokens,
    identity: { kind: "id_token" },
    // The Gmail dialect, errors included.
    classify: classifyGoogleApi,
  };
}

export const devmail: ProviderModule = { id: "devmail", apis: [gmailApi], fromEnv };
