// GET /api/v1/audit/export — the audit trail as CSV, with the audit list's filters (owners and support; audited)
import { getDb } from "@/db/client";
import { auditCsvStream, exportAuditQuery } from "@/lib/audit/csv";
import { parseWith } from "@/lib/errors";
import { queryOf, withRole } from "@/lib/http/route";

export const GET = withRole(["owner", "support"], async (req, { user }) => {
  const q = parseWith(exportAuditQuery, queryOf(req), "query");
  const body = await auditCsvStream(await getDb(), user, q);
  const day = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="realmgate-audit-${day}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
