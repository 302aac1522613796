// POST /api/v1/remote-providers/:id/check — fetch and validate the provider's manifest now (owner)
import { getDb } from "@/db/client";
import { param, withRole } from "@/lib/http/route";
import { recheckProvider } from "@/lib/remote-admin/register";

export const POST = withRole(["owner"], async (_req, ctx) => Response.json(await recheckProvider(await getDb(), ctx.user, param(ctx, "id"))));
