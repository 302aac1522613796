// POST /api/v1/actors/:id/revoke — revoke an actor, its tokens and its grants, with a reason
import { getDb } from "@/db/client";
import { revokeActor, revokeBody } from "@/lib/authz/actors";
import { parseBody } from "@/lib/http/body";
import { param, withUser } from "@/lib/http/route";

export const POST = withUser(async (req, ctx) => {
  const { reason } = await parseBody(req, revokeBody);
  return Response.json(await revokeActor(await getDb(), ctx.user, param(ctx, "id"), reason));
});
