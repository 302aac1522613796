// Discovery documents: protected resource metadata for /api/mcp (RFC 9728) and the authorization server's
// metadata (RFC 8414), both derived from APP_URL so they always agree with the tokens we issue.
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { mcpResourceUrl, oauthEndpoints, oauthIssuer, scopesSupported } from "./config";

export function protectedResourceMetadata(): OAuthProtectedResourceMetadata {
  return {
    resource: mcpResourceUrl(),
    authorization_servers: [oauthIssuer()],
    scopes_supported: [...scopesSupported],
    bearer_methods_supported: ["header"],
    resource_name: "Realmgate MCP gateway",
  };
}

export function authorizationServerMetadata(): OAuthMetadata & { authorization_response_iss_parameter_supported: boolean } {
  const e = oauthEndpoints();
  return {
    issuer: oauthIssuer(),
    authorization_endpoint: e.authorization,
    token_endpoint: e.token,
    registration_endpoint: e.registration,
    revocation_endpoint: e.revocation,
    scopes_supported: [...scopesSupported],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** Public, cacheable briefly, readable cross-origin (browser-based MCP clients discover too). */
export const discoveryHeaders = { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" } as const;
