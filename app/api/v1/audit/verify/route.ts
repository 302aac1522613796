// GET /api/v1/audit/verify — walk the tenant's hash chain and name the first broken link (owners and support)
import { getDb } from "@/db/client";
import { verifyAuditChain } from "@/lib/audit/verify";
import { withRole } from "@/lib/http/route";

export const GET = withRole(["owner", "support"], async (_req, { user }) => Response.json(await verifyAuditChain(await getDb(), user.tenantId)));
