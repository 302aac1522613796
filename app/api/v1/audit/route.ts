// GET /api/v1/audit — the tenant's audit trail, filtered and paged (owners and support; support views are audited),
// with the names of the connected accounts, providers and permissions the page mentions (lib/views/audit.ts)
import { getDb } from "@/db/client";
import { listAuditQuery } from "@/lib/audit/query";
import { auditPage } from "@/lib/views/audit";
import { parseWith } from "@/lib/errors";
import { queryOf, withRole } from "@/lib/http/route";

export const GET = withRole(["owner", "support"], async (req, { user }) =>
  Response.json(await auditPage(await getDb(), user, parseWith(listAuditQuery, queryOf(req), "query"))),
);
