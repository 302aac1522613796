// The MCP gateway's fixed facts: its URLs (derived from APP_URL, so the token audience and the discovery
// documents always agree), its OAuth scopes, lifetimes and limits.
import { env } from "@/lib/env";
import type { Risk } from "@/lib/realms/contract";
import { isLoopbackHost } from "@/lib/http/forwarded";

export { isLoopbackHost };

/** The MCP endpoint's absolute URL: the resource (RFC 8707) and the only audience our access tokens carry. */
export const mcpResourceUrl = () => `${env().appUrl}/api/mcp`;
/** The authorization server's issuer identifier (RFC 8414): the app's origin, no trailing slash. */
export const oauthIssuer = () => env().appUrl;
export const protectedResourceMetadataUrl = () => `${env().appUrl}/.well-known/oauth-protected-resource/api/mcp`;

export const oauthEndpoints = () => {
  const base = env().appUrl;
  return {
    authorization: `${base}/oauth/authorize`,
    token: `${base}/api/oauth/token`,
    registration: `${base}/api/oauth/register`,
    revocation: `${base}/api/oauth/revoke`,
  };
};

/**
 * Scopes say how far the approved operations reach, not which ones (grants do that): `realms:read` for
 * read operations, `realms:write` for anything that writes or destroys. A write call with a read-only token
 * is refused with 403 `insufficient_scope` before it reaches the dispatcher.
 */
export const SCOPE_READ = "realms:read";
export const SCOPE_WRITE = "realms:write";

/** The scope a call of this risk needs: reads `realms:read`, anything that changes something `realms:write`. */
export const scopeForRisk = (risk: Risk): string => (risk === "read" ? SCOPE_READ : SCOPE_WRITE);
export const scopesSupported = [SCOPE_READ, SCOPE_WRITE] as const;

export const ACCESS_TOKEN_TTL_SECONDS = 600;
export const AUTHORIZATION_CODE_TTL_SECONDS = 120;
/** How long a consent form stays valid between showing and approving it. */
export const CONSENT_REQUEST_TTL_SECONDS = 600;
/** Refresh tokens live as long as the approved grants; "never" gets a sliding 90 days, renewed by each rotation. */
export const OPEN_ENDED_REFRESH_TTL_SECONDS = 90 * 86_400;

/** Client ID Metadata Documents: fetched with these bounds. */
export const CLIENT_METADATA_TIMEOUT_MS = 5_000;
export const CLIENT_METADATA_MAX_BYTES = 64 * 1024;

/** Requests to /api/mcp: bounded body and time. */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;
export const MCP_REQUEST_TIMEOUT_MS = 30_000;

/** Rate limits, from the validated configuration (a load test raises them; an out-of-range value stops start-up). */
export function rateLimits() {
  const cfg = env();
  return {
    mcp: { limit: cfg.MCP_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 },
    register: { limit: cfg.OAUTH_REGISTER_LIMIT_PER_HOUR, windowSeconds: 3600 },
  };
}

/**
 * A development or test deployment on a loopback http origin may accept loopback http client-id URLs
 * (Client ID Metadata Documents served by a local tool). Anywhere else client ids must be https.
 */
export function loopbackDeployment(): boolean {
  const u = new URL(env().appUrl);
  return u.protocol === "http:" && isLoopbackHost(u.hostname);
}
