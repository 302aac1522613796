// GET /api/v1/consent-requests?status=pending — requests addressed to the caller as grantor
import { getDb } from "@/db/client";
import { listConsentQuery, listConsentRequests } from "@/lib/authz/consent";
import { parseWith } from "@/lib/errors";
import { queryOf, withUser } from "@/lib/http/route";

export const GET = withUser(async (req, { user }) =>
  Response.json({ consent_requests: await listConsentRequests(await getDb(), user, parseWith(listConsentQuery, queryOf(req), "query")) }),
);
