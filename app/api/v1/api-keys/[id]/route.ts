// DELETE /api/v1/api-keys/:id — revoke one of the caller's API keys
import { getDb } from "@/db/client";
import { revokeApiKey } from "@/lib/authz/api-keys";
import { param, withUser } from "@/lib/http/route";

export const DELETE = withUser(async (_req, ctx) => Response.json(await revokeApiKey(await getDb(), ctx.user, param(ctx, "id"))));
