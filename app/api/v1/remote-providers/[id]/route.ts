// GET /api/v1/remote-providers/:id — one registration (owner); DELETE — remove it (the realm goes with it)
import { getDb } from "@/db/client";
import { param, withRole } from "@/lib/http/route";
import { getProvider, removeProvider } from "@/lib/remote-admin/register";

export const GET = withRole(["owner"], async (_req, ctx) => Response.json(await getProvider(await getDb(), ctx.user, param(ctx, "id"))));
export const DELETE = withRole(["owner"], async (_req, ctx) => Response.json(await removeProvider(await getDb(), ctx.user, param(ctx, "id"))));
