// GET /.well-known/oauth-authorization-server — authorization server metadata for MCP clients (RFC 8414)
import { route } from "@/lib/http/route";
import { authorizationServerMetadata, discoveryHeaders } from "@/lib/mcp/metadata";

export const GET = route(() => Response.json(authorizationServerMetadata(), { headers: discoveryHeaders }));
