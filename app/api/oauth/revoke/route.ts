// POST /api/oauth/revoke — token revocation (RFC 7009): revokes the token's whole family
import { route } from "@/lib/http/route";
import { preflight, revocationEndpoint } from "@/lib/mcp/endpoints";

export const POST = route((req, { requestId }) => revocationEndpoint(req, requestId));
export const OPTIONS = route(() => preflight());
