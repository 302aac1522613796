// What a provider is: its OAuth 2 / OpenID Connect endpoints and client, the API it speaks, the
// authorization parameters it needs per intent, and the few things only it knows — how its token endpoint
// answers, how it says who signed in, and how its API says no. One OAuth client flow
// (lib/connections/flows.ts) and one API session (session.ts) drive every provider from this shape; each
// provider lives in its own folder here (`<id>/index.ts`) and is listed once in `index.ts`.
import type { ConnectionIntent } from "@/db/schema";
import type { TokenResponse } from "./tokens";

export type OAuthEndpoints = {
  authorization: string;
  token: string;
  /** RFC 7009 revocation endpoint; null when the provider has none. */
  revocation: string | null;
  jwks: string;
};

/** An API family: the claims Realmgate speaks about, and which provider scopes satisfy each. */
export type ApiFamily = {
  id: string;
  label: string;
  claims: ClaimDef[];
};

export type ClaimDef = {
  /** The Realmgate claim, `<api>:<verb>`. */
  name: string;
  /** What a person is agreeing to, in a few words. */
  label: string;
  /** The scope asked for when this claim is missing. */
  request: string;
  /** Any of these granted scopes satisfies the claim (broader scopes included). */
  satisfiedBy: string[];
};

/** Who signed in, as the provider says it: a stable subject and, when verified, an email. */
export type Identity = { sub: string; email: string | null };

/**
 * How a completed sign-in names its account: a verified OpenID Connect ID token (signature, issuer,
 * audience, nonce), or a call to a userinfo endpoint with the new access token, mapped by the provider.
 */
export type IdentityStrategy = { kind: "id_token" } | { kind: "userinfo"; url: string; map(body: unknown): Identity | null };

/** What an answer of the provider's API means, whatever its dialect. */
export type ProviderOutcome =
  | "ok"
  /** The access token is no longer accepted (refresh once, then reconnect). */
  | "auth_invalid"
  /** The grant lacks a scope the call needs (an upgrade is demanded). */
  | "missing_scope"
  /** The provider refuses this account the call for another reason. */
  | "denied"
  | "not_found"
  /** Rate-limited or failing: nothing is retried. */
  | "unavailable"
  /** The provider judged the request itself wrong. */
  | "rejected";

/** An API answer as classify sees it: the status and the body as JSON (null when it is not JSON). */
export type ProviderAnswer = { status: number; body: unknown };
/** `message`: the provider's own words for a refusal (bounded), shown to the caller. */
export type Verdict = { outcome: ProviderOutcome; message: string | null };

export type ProviderConfig = {
  /** Stable id stored with each account; the name of its folder. */
  id: string;
  label: string;
  /** The API family the provider speaks, i.e. which realm can use its accounts (the realm's `connection.api`). */
  api: string;
  /** Base URL of that API. */
  apiBaseUrl: string;
  issuer: string;
  /** Other `iss` values the provider's ID tokens may carry. */
  issuerAliases: string[];
  /** Fixed endpoints, or "discover" from `<issuer>/.well-known/openid-configuration`. */
  endpoints: OAuthEndpoints | "discover";
  clientId: string;
  clientSecret: string;
  tokenAuthMethod: "client_secret_basic" | "client_secret_post";
  /** Scopes asked for on every authorization besides the claims' (identity, a refresh token). */
  baseScopes: string[];
  /** Extra authorization request parameters per intent (prompt, access_type…). */
  authParams: Record<ConnectionIntent, Record<string, string>>;
  /**
   * How an upgrade asks for more: `missing_only` when the provider merges new scopes into the existing
   * grant, `union` when the new token carries only what was asked.
   */
  incremental: "missing_only" | "union";
  /** The token endpoint's successful answer as a token response, or null when it is unusable. */
  mapTokens(raw: unknown): TokenResponse | null;
  identity: IdentityStrategy;
  /** What an API answer means. A 2xx must be `ok`. */
  classify(answer: ProviderAnswer): Verdict;
};

/** A provider folder's export: the API families it can speak, and its configuration from the environment. */
export type ProviderModule = {
  id: string;
  apis: ApiFamily[];
  /** Null when the provider is not configured; throws ConfigError (one line naming the variable) when misconfigured. */
  fromEnv(source: Record<string, string | undefined>): ProviderConfig | null;
};
