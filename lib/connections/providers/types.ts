// What a provider is, as data: its OAuth 2 / OpenID Connect endpoints and client, the API it speaks, and
// the authorization parameters it needs per intent. One OAuth client flow (lib/connections/flows.ts)
// drives every provider from this shape.
import type { ConnectionIntent } from "@/db/schema";

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
  /** The Realmgate claim, e.g. `gmail:send`. */
  name: string;
  /** What a person is agreeing to, in a few words. */
  label: string;
  /** The scope asked for when this claim is missing. */
  request: string;
  /** Any of these granted scopes satisfies the claim (broader scopes included). */
  satisfiedBy: string[];
};

export type ProviderConfig = {
  /** Stable id stored with each account (`google`, `devmail`). */
  id: string;
  label: string;
  /** The API family the provider speaks (`gmail`), i.e. which realm can use its accounts. */
  api: string;
  /** Base URL of that API, e.g. `https://gmail.googleapis.com`. */
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
   * grant (Google's include_granted_scopes), `union` when the new token carries only what was asked.
   */
  incremental: "missing_only" | "union";
};
