// POST /api/mcp — the MCP gateway (Streamable HTTP, stateless): tools/list and tools/call over the nine tools
import { route } from "@/lib/http/route";
import { handleMcpPost, mcpMethodNotAllowed } from "@/lib/mcp/handler";

export const POST = route((req, { requestId }) => handleMcpPost(req, requestId));
export const GET = route(() => mcpMethodNotAllowed());
export const DELETE = route(() => mcpMethodNotAllowed());
