// POST /api/oauth/token — token endpoint for MCP clients: authorization_code (+ PKCE S256) and rotating refresh_token
import { route } from "@/lib/http/route";
import { preflight, tokenEndpoint } from "@/lib/mcp/endpoints";

export const POST = route((req, { requestId }) => tokenEndpoint(req, requestId));
export const OPTIONS = route(() => preflight());
