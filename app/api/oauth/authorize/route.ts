// POST /api/oauth/authorize — the consent page's decision: approve (creates the MCP client's actor and grants) or deny
import { withUser } from "@/lib/http/route";
import { submitConsent } from "@/lib/mcp/endpoints";

export const POST = withUser((req, { user }) => submitConsent(req, user));
