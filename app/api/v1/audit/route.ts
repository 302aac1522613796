// GET /api/v1/audit — the tenant's audit trail, filtered and paged (owners and support; support views are audited)
import { getDb } from "@/db/client";
import { listAuditEvents, listAuditQuery } from "@/lib/audit/query";
import { parseWith } from "@/lib/errors";
import { queryOf, withRole } from "@/lib/http/route";

export const GET = withRole(["owner", "support"], async (req, { user }) =>
  Response.json(await listAuditEvents(await getDb(), user, parseWith(listAuditQuery, queryOf(req), "query"))),
);
