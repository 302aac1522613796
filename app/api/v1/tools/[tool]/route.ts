// POST /api/v1/tools/:tool — run one of the nine tools; the body is the tool's input. An actor's request is counted
// against its rate limit (shared with MCP) in the statement that authenticates it.
import { readJson } from "@/lib/http/body";
import { param, withCaller } from "@/lib/http/route";
import { rateLimits } from "@/lib/mcp/config";
import { dispatch } from "@/lib/tools/dispatch";

export const POST = withCaller(
  async (req, ctx) => Response.json(await dispatch(ctx.auth, param(ctx, "tool"), await readJson(req))),
  () => ({ countActorCalls: rateLimits().mcp }),
);
