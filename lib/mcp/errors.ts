// OAuth's own error wire format (RFC 6749 §5.2, RFC 7591 §3.2.2): the token, registration and revocation
// endpoints answer `{error, error_description}`, which is what OAuth clients (the MCP SDK among them) parse.
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable"
  | "server_error";

export class OAuthProtocolError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === "invalid_client" ? 401 : error === "temporarily_unavailable" ? 429 : error === "server_error" ? 500 : 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthProtocolError";
  }
}

export function oauthErrorResponse(err: OAuthProtocolError, requestId: string): Response {
  return Response.json(
    { error: err.error, error_description: err.description },
    { status: err.status, headers: { ...err.headers, "cache-control": "no-store", "x-request-id": requestId, ...corsHeaders } },
  );
}

/** Discovery, registration, token and revocation take no cookies, so any origin may call them (browser-based clients). */
export const corsHeaders = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-max-age": "600",
} as const;
