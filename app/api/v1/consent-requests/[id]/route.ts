// GET /api/v1/consent-requests/:id — one request, with what its page offers: the companion operations (checked by
// default there) and the connected-account walls still ahead of the agent's call · POST — approve (with an expiry) or deny it; an approval
// answers the connected-account walls still ahead of the agent's call (`also_needed`), each with its fix.
import { getDb } from "@/db/client";
import { decideConsentBody, getConsentRequest } from "@/lib/authz/consent";
import { parseWith } from "@/lib/errors";
import { parseBody } from "@/lib/http/body";
import { param, queryOf, withUser } from "@/lib/http/route";
import { wallAhead } from "@/lib/connections/walls";
import { consentCompanions, consentPageQuery, consentWalls, decideAndContinue } from "@/lib/views/consent";

export const GET = withUser(async (req, ctx) => {
  const db = await getDb();
  const request = await getConsentRequest(db, ctx.user, param(ctx, "id"));
  const hints = parseWith(consentPageQuery, queryOf(req), "query");
  const [companions, walls] = await Promise.all([consentCompanions(db, ctx.user, request), consentWalls(db, ctx.user, request, hints)]);
  return Response.json({ ...request, companions, also_needed: walls.map(wallAhead) });
});

export const POST = withUser(async (req, ctx) =>
  Response.json(await decideAndContinue(await getDb(), ctx.user, param(ctx, "id"), await parseBody(req, decideConsentBody), parseWith(consentPageQuery, queryOf(req), "query"))),
);
