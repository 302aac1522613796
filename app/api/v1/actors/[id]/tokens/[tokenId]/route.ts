// DELETE /api/v1/actors/:id/tokens/:tokenId — revoke one token of one of the caller's actors
import { getDb } from "@/db/client";
import { revokeActorToken } from "@/lib/authz/actors";
import { param, withUser } from "@/lib/http/route";

export const DELETE = withUser(async (_req, ctx) => Response.json(await revokeActorToken(await getDb(), ctx.user, param(ctx, "id"), param(ctx, "tokenId"))));
