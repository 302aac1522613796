// GET /api/v1/actors/:id/working-set — one of the caller's agents' working set: the catalog proof as the agent's
// tools/list has it, each exact tool by title and realm with its size and last use, when the set lapses, the
// tools it holds that are not listed and why, and the budget
import { getDb } from "@/db/client";
import { param, withUser } from "@/lib/http/route";
import { workingSetView } from "@/lib/views/working-set";

export const GET = withUser(async (_req, ctx) => Response.json(await workingSetView(await getDb(), ctx.user, param(ctx, "id"))));
