// GET /api/v1/grants/:id/timeline — one grant's life: requested, created, used, denied, revoked (its grantor, owners, support)
import { getDb } from "@/db/client";
import { grantTimeline } from "@/lib/views/timeline";
import { param, withUser } from "@/lib/http/route";

export const GET = withUser(async (_req, ctx) => Response.json(await grantTimeline(await getDb(), ctx.user, param(ctx, "id"))));
