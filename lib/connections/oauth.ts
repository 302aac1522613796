// The one OAuth 2 / OpenID Connect client, driven by provider configs: authorization requests with PKCE
// (S256), the code exchange at the exact redirect URI, ID token verification, refresh, and RFC 7009
// revocation. No provider is special-cased here; differences live in lib/connections/providers/.
import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from "jose";
import { z } from "zod";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { jsonOf, providerFetch, ProviderCallError } from "./http";
import { endpointsOf, type ProviderConfig } from "./providers";
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

export const tokenResponse = z.object({
  access_token: z.string().min(1).max(8192),
  token_type: z.string().refine((t) => t.toLowerCase() === "bearer", "only bearer tokens are supported"),
  expires_in: z.coerce.number().int().positive().max(10 * 365 * 86_400).optional(),
  refresh_token: z.string().min(1).max(8192).optional(),
  scope: z.string().max(8192).optional(),
  id_token: z.string().max(16_384).optional(),
});
export type TokenResponse = z.infer<typeof tokenResponse>;

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

function unavailable(p: ProviderConfig, err: ProviderCallError, what: string): AppError {
  return new AppError("provider_unavailable", `${p.label} did not complete ${what}: ${err.message}. Nothing was retried.`, {
    status: err.kind === "timeout" ? 504 : 502,
    details: { provider: p.id, failure: err.kind },
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
    res = await providerFetch(token, { method: "POST", headers, body: body.toString(), maxBytes: 64 * 1024 });
  } catch (err) {
    if (err instanceof ProviderCallError) throw unavailable(p, err, what);
    throw err;
  }
  const data = jsonOf(res);
  if (res.status >= 400 && res.status < 500) {
    const code = typeof (data as { error?: unknown })?.error === "string" ? String((data as { error: string }).error).slice(0, 60) : "invalid_request";
    throw new TokenGrantError(code, res.status);
  }
  const parsed = tokenResponse.safeParse(data);
  if (res.status !== 200 || !parsed.success) {
    throw new AppError("provider_unavailable", `${p.label} answered ${what} with ${res.status === 200 ? "an unusable token response" : `status ${res.status}`}.`, {
      status: 502,
      details: { provider: p.id, status: res.status },
    });
  }
  return parsed.data;
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
    const res = await providerFetch(revocation, { method: "POST", headers, body: body.toString(), maxBytes: 64 * 1024 });
    // RFC 7009 §2.2: 200 also for tokens that were already invalid.
    return res.status === 200 ? "revoked" : "failed";
  } catch (err) {
    if (err instanceof ProviderCallError) return "failed";
    throw err;
  }
}

const jwksSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** Verify an ID token: signature (the provider's JWKS), issuer, audience, expiry and our nonce. */
export async function verifyIdToken(p: ProviderConfig, idToken: string, nonce: string): Promise<{ sub: string; email: string | null }> {
  const { jwks } = await endpointsOf(p);
  let set = jwksSets.get(jwks);
  if (!set) {
    set = createRemoteJWKSet(new URL(jwks), { timeoutDuration: env().REALMGATE_PROVIDER_TIMEOUT_MS });
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
