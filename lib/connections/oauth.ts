// The one OAuth 2 / OpenID Connect client, driven by provider configs: authorization requests with PKCE
// (S256), the code exchange at the exact redirect URI, ID token verification (or identity from the provider's
// API), refresh, and revocation (RFC 7009, or the provider's API). No provider is special-cased here;
// differences live in lib/connections/providers/.
import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify } from "jose";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { headerOf, jsonOf, NetError, netFetch, type NetResponse } from "@/lib/net";
import { providerFailure, providerFetch } from "./http";
import { endpointPolicy, endpointsOf, type ApiProbe, type Identity, type ProviderConfig } from "./providers";
import type { TokenResponse } from "./providers/tokens";
import type { ConnectionIntent } from "@/db/schema";

/** Where every provider sends the person back; registered with each provider exactly as written. */
export const CALLBACK_PATH = "/api/v1/connections/callback";
export const redirectUri = () => `${env().appUrl}${CALLBACK_PATH}`;

export const randomToken = () => randomBytes(32).toString("base64url");
export const pkceChallenge = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

export async function authorizationUrl(
  p: ProviderConfig,
  req: { intent: ConnectionIntent; scopes: string[]; state: string; nonce: string; codeVerifier: string; account?: { externalId: string; email: string | null } | null },
): Promise<string> {
  const { authorization } = await endpointsOf(p);
  const url = new URL(authorization);
  const { param, separator } = p.scopeRequest ?? { param: "scope", separator: " " };
  const params: Record<string, string> = {
    ...p.authParams[req.intent],
    response_type: "code",
    client_id: p.clientId,
    redirect_uri: redirectUri(),
    [param]: req.scopes.join(separator),
    state: req.state,
    nonce: req.nonce,
    code_challenge: pkceChallenge(req.codeVerifier),
    code_challenge_method: "S256",
  };
  if (req.account) {
    const hint = p.accountHint ? p.accountHint(req.account) : req.account.email ? { login_hint: req.account.email } : {};
    Object.assign(params, hint);
  }
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

export { standardTokens, tokenResponse, type TokenResponse } from "./providers/tokens";

/** The token endpoint refused the grant (expired or revoked refresh token, reused or foreign code…). */
export class TokenGrantError extends Error {
  constructor(
    readonly error: string,
    readonly status: number,
  ) {
    super(`the token endpoint refused the grant (${error})`);
    this.name = "TokenGrantError";
  }
}

function unavailable(p: ProviderConfig, err: NetError, what: string): AppError {
  const f = providerFailure(err);
  return new AppError("provider_unavailable", `${p.label} did not complete ${what}: ${f.message}. Nothing was retried.`, {
    status: f.status,
    details: { provider: p.id, failure: f.kind },
    cause: err,
  });
}

async function tokenRequest(p: ProviderConfig, form: Record<string, string>, what: string): Promise<TokenResponse> {
  const { token } = await endpointsOf(p);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  const body = new URLSearchParams(form);
  if (p.tokenAuthMethod === "client_secret_basic") {
    // RFC 6749 §2.3.1: the client id and secret are form-encoded before Basic encoding.
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(p.clientId)}:${encodeURIComponent(p.clientSecret)}`).toString("base64")}`;
  } else {
    body.set("client_id", p.clientId);
    body.set("client_secret", p.clientSecret);
  }
  let res;
  try {
    res = await providerFetch(token, { method: "POST", headers, body: body.toString(), maxBytes: 64 * 1024, allowPrivate: endpointPolicy(p) });
  } catch (err) {
    if (err instanceof NetError) throw unavailable(p, err, what);
    throw err;
  }
  const data = jsonOf(res);
  // Rate-limited is not a refusal of the grant: the same grant works once the provider lets calls in again.
  if (res.status === 429) throw rateLimited(p, res, what);
  if (res.status >= 400 && res.status < 500) {
    const code = typeof (data as { error?: unknown })?.error === "string" ? String((data as { error: string }).error).slice(0, 60) : "invalid_request";
    throw new TokenGrantError(code, res.status);
  }
  const mapped = res.status === 200 ? p.mapTokens(data) : null;
  if (mapped && "refused" in mapped) throw new TokenGrantError(mapped.refused.slice(0, 60), res.status);
  if (!mapped) {
    throw new AppError("provider_unavailable", `${p.label} answered ${what} with ${res.status === 200 ? "an unusable token response" : `status ${res.status}`}.`, {
      status: 502,
      details: { provider: p.id, status: res.status },
    });
  }
  return mapped;
}

/** The `Retry-After` of an answer when it is a number of seconds (the form Realmgate passes on), else null. */
export function retryAfterOf(res: NetResponse): string | null {
  const v = headerOf(res, "retry-after");
  return v && /^\d{1,6}$/.test(v) ? v : null;
}

/** A provider's HTTP 429, as imported services answer one: `rate_limited` with its Retry-After. Nothing was retried. */
export function rateLimited(p: ProviderConfig, res: NetResponse, what: string, details: Record<string, unknown> = {}): AppError {
  const retryAfter = retryAfterOf(res);
  return new AppError("rate_limited", `${p.label} is rate-limiting ${what}${retryAfter ? `; retry after ${retryAfter} s` : ""}. Nothing was retried.`, {
    headers: retryAfter ? { "Retry-After": retryAfter } : {},
    details: { provider: p.id, provider_status: 429, retried: false, ...(retryAfter ? { retry_after_seconds: Number(retryAfter) } : {}), ...details },
  });
}

export function exchangeCode(p: ProviderConfig, input: { code: string; codeVerifier: string }): Promise<TokenResponse> {
  return tokenRequest(p, { grant_type: "authorization_code", code: input.code, redirect_uri: redirectUri(), code_verifier: input.codeVerifier }, "the sign-in");
}

export function refreshAccessToken(p: ProviderConfig, refreshToken: string): Promise<TokenResponse> {
  return tokenRequest(p, { grant_type: "refresh_token", refresh_token: refreshToken }, "a token refresh");
}

export type Revocation = "revoked" | "unsupported" | "failed";

/** RFC 7009. `unsupported` when the provider has no revocation endpoint. Provider errors are reported, not thrown. */
export async function revokeToken(p: ProviderConfig, token: string, hint: "refresh_token" | "access_token"): Promise<Revocation> {
  const { revocation } = await endpointsOf(p).catch(() => ({ revocation: undefined }));
  if (revocation === null) return "unsupported";
  if (revocation === undefined) return "failed";
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  const body = new URLSearchParams({ token, token_type_hint: hint });
  if (p.tokenAuthMethod === "client_secret_basic") {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(p.clientId)}:${encodeURIComponent(p.clientSecret)}`).toString("base64")}`;
  } else {
    body.set("client_id", p.clientId);
    body.set("client_secret", p.clientSecret);
  }
  try {
    const res = await providerFetch(revocation, { method: "POST", headers, body: body.toString(), maxBytes: 64 * 1024, allowPrivate: endpointPolicy(p) });
    // RFC 7009 §2.2: 200 also for tokens that were already invalid.
    return res.status === 200 ? "revoked" : "failed";
  } catch (err) {
    if (err instanceof NetError) return "failed";
    throw err;
  }
}

/**
 * End the account's grant at the provider, by its revocation strategy. RFC 7009: the refresh token (which ends
 * the grant at most providers), then the access token too, where it may not. The provider's API: the access
 * token as bearer, refreshed once first when the provider no longer accepts it (an expired, rotating token).
 */
export async function revokeGrant(p: ProviderConfig, tokens: { access_token: string; refresh_token: string | null }): Promise<Revocation> {
  const how = p.revocation ?? { kind: "rfc7009" };
  if (how.kind === "rfc7009") {
    if (!tokens.refresh_token) return revokeToken(p, tokens.access_token, "access_token");
    const r = await revokeToken(p, tokens.refresh_token, "refresh_token");
    if (r === "revoked") await revokeToken(p, tokens.access_token, "access_token");
    return r;
  }
  const once = async (accessToken: string) => {
    const res = await providerFetch(`${p.apiBaseUrl}${how.path}`, { method: how.method, headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" }, maxBytes: 64 * 1024 });
    return { status: res.status, body: jsonOf(res) };
  };
  try {
    let answer = await once(tokens.access_token);
    if (!how.revoked(answer) && p.classify(answer).outcome === "auth_invalid" && tokens.refresh_token) {
      const fresh = await refreshAccessToken(p, tokens.refresh_token).catch(() => null);
      if (fresh) answer = await once(fresh.access_token);
    }
    return how.revoked(answer) ? "revoked" : "failed";
  } catch (err) {
    if (err instanceof NetError) return "failed";
    throw err;
  }
}

const jwksSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** jose fetches signing keys through lib/net too; a timeout is reported the way jose expects (TimeoutError). */
const jwksFetch = (p: ProviderConfig) => netFetch({ timeoutMs: () => env().REALMGATE_PROVIDER_TIMEOUT_MS, maxBytes: 512 * 1024, allowPrivate: endpointPolicy(p) });

/** Verify an ID token: signature (the provider's JWKS), issuer, audience, expiry and our nonce. */
export async function verifyIdToken(p: ProviderConfig, idToken: string, nonce: string): Promise<Identity> {
  const { jwks } = await endpointsOf(p);
  let set = jwksSets.get(jwks);
  if (!set) {
    set = createRemoteJWKSet(new URL(jwks), { timeoutDuration: env().REALMGATE_PROVIDER_TIMEOUT_MS, [customFetch]: jwksFetch(p) });
    jwksSets.set(jwks, set);
  }
  try {
    const { payload } = await jwtVerify(idToken, set, { issuer: [p.issuer, ...p.issuerAliases], audience: p.clientId, clockTolerance: 60 });
    if (payload.nonce !== nonce) throw new Error("nonce mismatch");
    if (typeof payload.sub !== "string" || !payload.sub) throw new Error("no subject");
    const email = typeof payload.email === "string" && payload.email_verified !== false ? payload.email : null;
    return { sub: payload.sub, email };
  } catch (cause) {
    if (cause instanceof joseErrors.JWKSTimeout) {
      throw new AppError("provider_unavailable", `${p.label} did not publish its signing keys in time.`, { status: 504, details: { provider: p.id, failure: "timeout" }, cause });
    }
    throw new AppError("invalid_input", `${p.label} returned an identity token that does not verify.`, { details: { provider: p.id, flow_error: "id_token_invalid" }, cause });
  }
}

/**
 * The identity behind a new access token, from the provider's userinfo endpoint (providers whose identity
 * strategy is `userinfo`). A refusal or an unusable answer is `invalid_input` (flow_error id_token_invalid).
 */
export async function fetchUserinfo(p: ProviderConfig, url: string, accessToken: string, map: (body: unknown) => Identity | null): Promise<Identity> {
  let res;
  try {
    res = await providerFetch(url, { headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" }, maxBytes: 64 * 1024 });
  } catch (err) {
    if (err instanceof NetError) throw unavailable(p, err, "the sign-in");
    throw err;
  }
  const identity = res.status === 200 ? map(jsonOf(res)) : null;
  if (!identity || !identity.sub) {
    throw new AppError("invalid_input", `${p.label} did not say which account signed in (userinfo answered ${res.status}).`, { details: { provider: p.id, flow_error: "id_token_invalid" } });
  }
  return identity;
}

/**
 * The identity behind a new access token, from the provider's own API (providers whose identity strategy is
 * `api`): `resolve` asks what it needs with the token. No answer, or one that names nobody, is `invalid_input`
 * (flow_error id_token_invalid); a rate-limited one is `rate_limited`.
 */
export async function identityFromApi(p: ProviderConfig, accessToken: string, resolve: (call: ApiProbe) => Promise<Identity | null>): Promise<Identity> {
  const call: ApiProbe = async (req) => {
    const url = new URL(`${p.apiBaseUrl}${req.path}`);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
    let res;
    try {
      res = await providerFetch(url.toString(), { method: req.method ?? "GET", headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" }, maxBytes: 256 * 1024 });
    } catch (err) {
      if (err instanceof NetError) throw unavailable(p, err, "the sign-in");
      throw err;
    }
    if (res.status === 429) throw rateLimited(p, res, "the sign-in");
    return { status: res.status, body: jsonOf(res) };
  };
  const identity = await resolve(call);
  if (!identity || !identity.sub) {
    throw new AppError("invalid_input", `${p.label} did not say which account signed in.`, { details: { provider: p.id, flow_error: "id_token_invalid" } });
  }
  return identity;
}
