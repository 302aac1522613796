// GET /api/v1/audit/verify — walk the tenant's hash chain and name the first broken link (owners and support;
// each verification is itself audited)
import { getDb } from "@/db/client";
import { verifyAuditChainAs } from "@/lib/audit/directory";
import { withRole } from "@/lib/http/route";

export const GET = withRole(["owner", "support"], async (_req, { user }) => Response.json(await verifyAuditChainAs(await getDb(), user)));
