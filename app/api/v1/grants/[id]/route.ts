// DELETE /api/v1/grants/:id — revoke a grant (its grantor, or a tenant owner), with a reason
import { getDb } from "@/db/client";
import { revokeBody } from "@/lib/authz/actors";
import { revokeGrant } from "@/lib/authz/grants";
import { parseBody } from "@/lib/http/body";
import { param, withUser } from "@/lib/http/route";

export const DELETE = withUser(async (req, ctx) => {
  const { reason } = await parseBody(req, revokeBody);
  return Response.json(await revokeGrant(await getDb(), ctx.user, param(ctx, "id"), reason));
});
