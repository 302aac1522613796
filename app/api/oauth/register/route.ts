// POST /api/oauth/register — dynamic client registration for MCP clients without a metadata document (RFC 7591)
import { route } from "@/lib/http/route";
import { preflight, registrationEndpoint } from "@/lib/mcp/endpoints";

export const POST = route((req, { requestId }) => registrationEndpoint(req, requestId));
export const OPTIONS = route(() => preflight());
