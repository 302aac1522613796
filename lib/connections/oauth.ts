// The one OAuth 2 / OpenID Connect client, driven by provider configs: authorization requests with PKCE
// (S256), the code exchange at the exact redirect URI, ID token verification, refresh, and RFC 7009
// revocation. No provider is special-cased here; differences live in lib/connections/providers/.
import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify } from "jose";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { jsonOf, NetError, netFetch } from "@/lib/net";
import { providerFailure, providerFetch } from "./http";
import { endpointPolicy, endpointsOf, type Identity, type ProviderConfig } from "./providers";
import type { TokenResponse } from "./providers/tokens";
import type { ConnectionIntent } from "@/db/schema";

/** Where every provider sends the person back; registered with each provider exactly as written. */
export const CALLBACK_PATH = "/api/v1/connections/callback";
export const redirectUri = () => `${env().appUrl}${CALLBACK_PATH}`;

export const randomToken = () => randomBytes(32).toString("base64url");
export const pkceChallenge = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

export async function authorizationUrl(
  p: ProviderConfig,
  req: { intent: ConnectionIntent; scopes: string[]; state: string; nonce: string; codeVerifier: string; loginHint?: string | null },
): Promise<string> {
  const { authorization } = await endpointsOf(p);
  const url = new URL(authorization);
  const params: Record<string, string> = {
    ...p.authParams[req.intent],
    response_type: "code",
    client_id: p.clientId,
    redirect_uri: redirectUri(),
    scope: req.scopes.join(" "),
    state: req.state,
    nonce: req.nonce,
    code_challenge: pkceChallenge(req.codeVerifier),
    code_challenge_method: "S256",
  };
  if (req.loginHint) params.login_hint = req.loginHint;
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
  if (res.status >= 400 && res.status < 500) {
    const code = typeof (data as { error?: unknown })?.error === "string" ? String((data as { error: string }).error).slice(0, 60) : "invalid_request";
    throw new TokenGrantError(code, res.status);
  }
  const mapped = res.status === 200 ? p.mapTokens(data) : null;
  if (!mapped) {
    throw new AppError("provider_unavailable", `${p.label} answered ${what} with ${res.status === 200 ? "an unusable token response" : `status ${res.status}`}.`, {
      status: 502,
      details: { provider: p.id, status: res.status },
    });
  }
  return mapped;
}

export function exchangeCode(p: ProviderConfig, input: { code: string; codeVerifier: string }): Promise<TokenResponse> {
  return tokenRequest(p, { grant_type: "authorization_code", code: input.code, redirect_uri: redirectUri(), code_verifier: input.codeVerifier }, "the sign-in");
}

export function refreshAccessToken(p: ProviderConfig, refreshToken: string): Promise<TokenResponse> {
  return tokenRequest(p, { grant_type: "refresh_token", refresh_token: refreshToken }, "a token refresh");
}

/** RFC 7009. `unsupported` when the provider has no revocation endpoint. Provider errors are reported, not thrown. */
export async function revokeToken(p: ProviderConfig, token: string, hint: "refresh_token" | "access_token"): Promise<"revoked" | "unsupported" | "failed"> {
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
