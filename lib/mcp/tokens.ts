// Token primitives of the MCP authorization server: short-lived access tokens (JWT, HS256, key derived for
// purpose "mcp-token"), opaque codes and refresh tokens (random, stored hashed), PKCE S256, and the signed
// consent request that carries a validated authorization request from the consent page to its form post.
import { createHash, hkdfSync, randomBytes } from "node:crypto";
import { decodeProtectedHeader, jwtVerify, SignJWT, type JWTPayload } from "jose";
import { z } from "zod";
import { deriveKey, safeEqual } from "@/lib/delivery/keys";
import { ACCESS_TOKEN_TTL_SECONDS, CONSENT_REQUEST_TTL_SECONDS, mcpResourceUrl, oauthIssuer } from "./config";

const ALG = "HS256";
const ACCESS_TYP = "at+jwt"; // RFC 9068
const CONSENT_TYP = "rg-consent+jwt";

/** A refusal of a presented token, with a reason safe to show the client. */
export class TokenRejected extends Error {}

const accessKey = () => new Uint8Array(deriveKey("mcp-token"));
/** Consent requests get their own key, derived from the token key, so neither can stand in for the other. */
const consentKey = () => new Uint8Array(hkdfSync("sha256", deriveKey("mcp-token"), "", "realmgate/mcp-consent/v1", 32));
/** The key id names the current key without revealing it; a token carrying any other kid is refused unread. */
const keyId = (key: Uint8Array) => `mcp-${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;

export type AccessClaims = {
  actorId: string;
  tenantId: string;
  clientId: string;
  /** The refresh-token family (one per approval); revoking it kills its access tokens at the next request. */
  familyId: string;
  scopes: string[];
  expiresAt: Date;
};

const claimsSchema = z.object({
  sub: z.string().min(1),
  tid: z.string().min(1),
  client_id: z.string().min(1),
  fid: z.string().min(1),
  scope: z.string(),
  jti: z.string().min(1),
  exp: z.number(),
});

export async function mintAccessToken(
  c: Omit<AccessClaims, "expiresAt">,
  opts: { now?: Date; ttlSeconds?: number } = {},
): Promise<{ token: string; expiresIn: number; expiresAt: Date }> {
  const key = accessKey();
  const iat = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const ttl = opts.ttlSeconds ?? ACCESS_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({ tid: c.tenantId, client_id: c.clientId, fid: c.familyId, scope: c.scopes.join(" ") })
    .setProtectedHeader({ alg: ALG, typ: ACCESS_TYP, kid: keyId(key) })
    .setIssuer(oauthIssuer())
    .setAudience(mcpResourceUrl())
    .setSubject(c.actorId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttl)
    .setJti(randomBytes(16).toString("base64url"))
    .sign(key);
  return { token, expiresIn: ttl, expiresAt: new Date((iat + ttl) * 1000) };
}

/** Looks like a JWT (three base64url parts) rather than one of our prefixed opaque tokens. */
export const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);

/**
 * Verify an access token: our current key and HS256 only, our issuer, exactly one audience that is this
 * server's MCP URL (RFC 8707), not expired. Anything else is a TokenRejected naming why.
 */
export async function verifyAccessToken(token: string, now = new Date()): Promise<AccessClaims> {
  const key = accessKey();
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw new TokenRejected("The access token is malformed.");
  }
  if (header.alg !== ALG) throw new TokenRejected("The access token uses an algorithm this server does not accept.");
  if (header.kid !== keyId(key)) throw new TokenRejected("The access token was signed by a key this server does not know.");
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [ALG],
      typ: ACCESS_TYP,
      issuer: oauthIssuer(),
      audience: mcpResourceUrl(),
      currentDate: now,
      requiredClaims: ["exp", "iat", "sub", "jti", "aud"],
    }));
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    if (code === "ERR_JWT_EXPIRED") throw new TokenRejected("The access token has expired.");
    if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED") throw new TokenRejected(`The access token is not for this server (${(cause as { claim?: string }).claim ?? "claims"}).`);
    throw new TokenRejected("The access token's signature or format is invalid.");
  }
  // jose accepts an audience list that merely contains ours; a token for several resources is not ours alone.
  if (payload.aud !== mcpResourceUrl()) throw new TokenRejected("The access token's audience is not exactly this server's MCP URL.");
  const c = claimsSchema.safeParse(payload);
  if (!c.success) throw new TokenRejected("The access token lacks required claims.");
  return {
    actorId: c.data.sub,
    tenantId: c.data.tid,
    clientId: c.data.client_id,
    familyId: c.data.fid,
    scopes: c.data.scope.split(" ").filter(Boolean),
    expiresAt: new Date(c.data.exp * 1000),
  };
}

// --- opaque secrets ---------------------------------------------------------------------------------

/** `rgc_…` authorization codes and `rgr_…` refresh tokens: 256 random bits, stored only as SHA-256. */
export const newOpaqueToken = (prefix: "rgc" | "rgr") => `${prefix}_${randomBytes(32).toString("base64url")}`;
export const hashToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

// --- PKCE (RFC 7636), S256 only --------------------------------------------------------------------

export const codeChallengeSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be a base64url SHA-256 (43 characters)");
const verifierSchema = z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/);

export const s256 = (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url");

export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!verifierSchema.safeParse(verifier).success) return false;
  return safeEqual(s256(verifier), challenge);
}

// --- consent requests ------------------------------------------------------------------------------

/** A validated authorization request, as carried from the consent page to the approval. */
export const consentRequestSchema = z.object({
  client_id: z.string(),
  client_name: z.string(),
  redirect_uri: z.string(),
  state: z.string().nullable(),
  code_challenge: z.string(),
  scopes: z.array(z.string()),
  resource: z.string(),
  /** The authorize page's own query, to return to it (e.g. when nothing was selected). */
  query: z.string(),
});
export type ConsentRequest = z.infer<typeof consentRequestSchema>;

/** Sign a consent request for one signed-in user; the form post must come from that same user. */
export async function signConsentRequest(req: ConsentRequest, userId: string, now = new Date()): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ req })
    .setProtectedHeader({ alg: ALG, typ: CONSENT_TYP })
    .setSubject(userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + CONSENT_REQUEST_TTL_SECONDS)
    .sign(consentKey());
}

export async function verifyConsentRequest(token: string, userId: string, now = new Date()): Promise<ConsentRequest> {
  try {
    const { payload } = await jwtVerify(token, consentKey(), { algorithms: [ALG], typ: CONSENT_TYP, subject: userId, currentDate: now });
    return consentRequestSchema.parse(payload.req);
  } catch (cause) {
    throw new TokenRejected("This consent form has expired or was not shown to you; start the connection again from your app.", { cause });
  }
}
