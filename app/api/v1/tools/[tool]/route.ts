// POST /api/v1/tools/:tool — run one of the nine tools; the body is the tool's input. An actor's token is looked up
// and its request counted against its rate limit (shared with MCP) in the call's own transaction, in the statement
// that reads gate one (lib/tools/dispatch.ts).
import { readJson } from "@/lib/http/body";
import { methodNotAllowed, param, withToolCaller } from "@/lib/http/route";
import { rateLimits } from "@/lib/mcp/config";
import { dispatch } from "@/lib/tools/dispatch";

export const POST = withToolCaller(
  async (req, ctx) => Response.json(await dispatch(ctx.caller, param(ctx, "tool"), await readJson(req))),
  () => ({ countActorCalls: rateLimits().mcp }),
);

// A tool is called with POST only: anything else is a JSON 405 naming it, not Next.js's empty one.
export const GET = methodNotAllowed(["POST"]);
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
