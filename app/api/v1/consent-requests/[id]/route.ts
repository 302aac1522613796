// GET /api/v1/consent-requests/:id — one request · POST — approve (with an expiry) or deny it; an approval
// answers the connected-account walls still ahead of the agent's call (`also_needed`), each with its fix.
import { getDb } from "@/db/client";
import { decideConsentBody, getConsentRequest } from "@/lib/authz/consent";
import { parseWith } from "@/lib/errors";
import { parseBody } from "@/lib/http/body";
import { param, queryOf, withUser } from "@/lib/http/route";
import { consentPageQuery, decideAndContinue } from "@/lib/views/consent";

export const GET = withUser(async (_req, ctx) => Response.json(await getConsentRequest(await getDb(), ctx.user, param(ctx, "id"))));

export const POST = withUser(async (req, ctx) =>
  Response.json(await decideAndContinue(await getDb(), ctx.user, param(ctx, "id"), await parseBody(req, decideConsentBody), parseWith(consentPageQuery, queryOf(req), "query"))),
);
