// GET /api/v1/approvals?status=pending|all — the single-call approvals the caller's agents asked them for
// (people only: session or personal API key), those still waiting first.
import { getDb } from "@/db/client";
import { listApprovals, listApprovalsQuery } from "@/lib/approvals/decide";
import { parseWith } from "@/lib/errors";
import { queryOf, withUser } from "@/lib/http/route";

export const GET = withUser(async (req, { user }) =>
  Response.json({ approvals: await listApprovals(await getDb(), user, parseWith(listApprovalsQuery, queryOf(req), "query")) }),
);
