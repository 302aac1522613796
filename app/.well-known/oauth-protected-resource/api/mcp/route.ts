// GET /.well-known/oauth-protected-resource/api/mcp — the same document at the path-suffixed URL (RFC 9728 §3.1)
import { route } from "@/lib/http/route";
import { discoveryHeaders, protectedResourceMetadata } from "@/lib/mcp/metadata";

export const GET = route(() => Response.json(protectedResourceMetadata(), { headers: discoveryHeaders }));
