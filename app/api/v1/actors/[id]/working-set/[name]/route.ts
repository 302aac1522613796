// DELETE /api/v1/actors/:id/working-set/:name — take one exact tool out of the agent's working set (audited
// working_set.changed); the answer is the set as it is now
import { getDb } from "@/db/client";
import { param, withUser } from "@/lib/http/route";
import { removeWorkingSetTool } from "@/lib/views/working-set";

export const DELETE = withUser(async (_req, ctx) => Response.json(await removeWorkingSetTool(await getDb(), ctx.user, param(ctx, "id"), param(ctx, "name"))));
