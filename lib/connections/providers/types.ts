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
  /** RFC 7009 revocation endpoint; null when the provider has none (or revokes through its API: `ProviderConfig.revocation`). */
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
  /** The scope (or the scopes, all of them) asked for when this claim is missing. */
  request: string | string[];
  /**
   * Any of these satisfies the claim (broader scopes included): a granted scope, or a list of scopes that are
   * all granted (a claim a provider splits into several scopes).
   */
  satisfiedBy: (string | string[])[];
};

/** How the authorization request names the scopes: RFC 6749's `scope`, space-separated, unless a provider says otherwise. */
export type ScopeRequest = { param: string; separator: string };

/**
 * Who signed in, as the provider says it: a stable subject (unique per account at this provider: an account
 * that exists once per workspace names the workspace in it) and, when verified, an email. `label`: how a new
 * account is named when the person gives no label (else its email).
 */
export type Identity = { sub: string; email: string | null; label?: string | null };

/** A GET or POST to the provider's API (under `apiBaseUrl`) with the new access token, answered as classify sees answers. */
export type ApiProbe = (req: { method?: "GET" | "POST"; path: string; query?: Record<string, string> }) => Promise<ProviderAnswer>;

/**
 * How a completed sign-in names its account: a verified OpenID Connect ID token (signature, issuer,
 * audience, nonce), a call to a userinfo endpoint with the new access token, mapped by the provider, or calls
 * to the provider's own API (`resolve` asks what it needs through `call`; null when the answers do not say).
 */
export type IdentityStrategy =
  | { kind: "id_token" }
  | { kind: "userinfo"; url: string; map(body: unknown): Identity | null }
  | { kind: "api"; resolve(call: ApiProbe): Promise<Identity | null> };

/**
 * How a grant is ended at the provider: RFC 7009 at `endpoints.revocation` (the default), or a call to the
 * provider's API with the access token as bearer (`revoked` says whether the answer ended it).
 */
export type RevocationStrategy = { kind: "rfc7009" } | { kind: "api"; method: "GET" | "POST"; path: string; revoked(answer: ProviderAnswer): boolean };

/**
 * What the token endpoint's successful (HTTP 200) answer holds: tokens, a refusal in the provider's own words
 * (a provider that answers `200 {ok:false, error}`: the grant is refused as a 4xx would), or null when unusable.
 */
export type TokenAnswer = TokenResponse | { refused: string } | null;

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
  /** Rate-limited (an HTTP 429: `rate_limited` with its Retry-After) or failing: nothing is retried. */
  | "unavailable"
  /** The provider judged the request itself wrong. */
  | "rejected";

/** An API answer as classify sees it: the status and the body as JSON (null when it is not JSON). */
export type ProviderAnswer = { status: number; body: unknown };
/**
 * `message`: the provider's own words for a refusal (bounded), shown to the caller. `scopes`: for a
 * `missing_scope`, the scopes the provider says the call needed, when it says (the claims asking for them are
 * then the ones demanded, rather than those the operation declares).
 */
export type Verdict = { outcome: ProviderOutcome; message: string | null; scopes?: string[] };

export type ProviderConfig = {
  /** Stable id stored with each account; the name of its folder (or of a variant living in its folder, as devslack in slack/). */
  id: string;
  label: string;
  /** The API family the provider speaks, i.e. which realm can use its accounts (the realm's `connection.api`). */
  api: string;
  /** Base URL of that API. */
  apiBaseUrl: string;
  /**
   * Other origins the account's token may be sent to (`https://files.example.com`): where the API's answers point
   * for a file's bytes or an upload (AccountSession.transfer). Nowhere else ever sees the token.
   */
  tokenOrigins?: string[];
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
  /** How the scopes are named in the authorization request; `{ param: "scope", separator: " " }` when absent. */
  scopeRequest?: ScopeRequest;
  /**
   * Authorization parameters that point the provider at the account being upgraded or reconnected; absent:
   * `login_hint` with its email.
   */
  accountHint?(account: { externalId: string; email: string | null }): Record<string, string>;
  /** Extra authorization request parameters per intent (prompt, access_type…). */
  authParams: Record<ConnectionIntent, Record<string, string>>;
  /**
   * How an upgrade asks for more: `missing_only` when the provider merges new scopes into the existing
   * grant, `union` when the new token carries only what was asked.
   */
  incremental: "missing_only" | "union";
  /**
   * The token endpoint's successful answer as a token response (its `scope` space-separated), a refusal, or null
   * when it is unusable.
   */
  mapTokens(raw: unknown): TokenAnswer;
  identity: IdentityStrategy;
  /** How disconnecting ends the grant; RFC 7009 when absent. */
  revocation?: RevocationStrategy;
  /** What an API answer means, in the provider's dialect (an HTTP 200 may say no, as Slack's `{ok: false}`). */
  classify(answer: ProviderAnswer): Verdict;
};

/** A provider folder's export: the API families it can speak, and its configuration from the environment. */
export type ProviderModule = {
  id: string;
  apis: ApiFamily[];
  /** Null when the provider is not configured; throws ConfigError (one line naming the variable) when misconfigured. */
  fromEnv(source: Record<string, string | undefined>): ProviderConfig | null;
};
