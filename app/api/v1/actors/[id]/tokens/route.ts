// POST /api/v1/actors/:id/tokens — issue a token for one of the caller's actors (revoke_others rotates)
import { getDb } from "@/db/client";
import { issueActorToken, issueTokenBody } from "@/lib/authz/actors";
import { parseBody } from "@/lib/http/body";
import { param, withUser } from "@/lib/http/route";

export const POST = withUser(async (req, ctx) =>
  Response.json(await issueActorToken(await getDb(), ctx.user, param(ctx, "id"), await parseBody(req, issueTokenBody)), { status: 201 }),
);
