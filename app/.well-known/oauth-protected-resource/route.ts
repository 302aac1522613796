// GET /.well-known/oauth-protected-resource — protected resource metadata of the MCP gateway (RFC 9728)
import { route } from "@/lib/http/route";
import { discoveryHeaders, protectedResourceMetadata } from "@/lib/mcp/metadata";

export const GET = route(() => Response.json(protectedResourceMetadata(), { headers: discoveryHeaders }));
