// GET /api/v1/consent-requests/:id — one request · POST — approve (with an expiry) or deny it
import { getDb } from "@/db/client";
import { decideConsentBody, decideConsentRequest, getConsentRequest } from "@/lib/authz/consent";
import { parseBody } from "@/lib/http/body";
import { param, withUser } from "@/lib/http/route";

export const GET = withUser(async (_req, ctx) => Response.json(await getConsentRequest(await getDb(), ctx.user, param(ctx, "id"))));

export const POST = withUser(async (req, ctx) =>
  Response.json(await decideConsentRequest(await getDb(), ctx.user, param(ctx, "id"), await parseBody(req, decideConsentBody))),
);
