// GET /api/v1/realms/:namespace — one realm's service card and every operation with the caller's modes (ceiling_mode, choice_mode, mode: off, ask, on)
import { getDb } from "@/db/client";
import { param, withUser } from "@/lib/http/route";
import { realmDetail } from "@/lib/views/realms";

export const GET = withUser(async (_req, ctx) => Response.json(await realmDetail(await getDb(), ctx.user, param(ctx, "namespace"))));
