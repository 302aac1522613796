// The nine tools' REST route handlers: POST runs the tool (its body is the tool's input), any other method is a JSON
// 405. Each tool has a static route of its own (`<tool>/route.ts` beside this file), so Next.js finds it by its exact
// path rather than by matching the dynamic `[tool]` segment on every call; `[tool]` still answers any other name
// (404 `not_found`, `unknown_tool` in its details) exactly as before. Both are built here, so they cannot drift apart.
import { readJson } from "@/lib/http/body";
import { methodNotAllowed, param, withToolCaller } from "@/lib/http/route";
import { rateLimits } from "@/lib/mcp/config";
import { dispatch } from "@/lib/tools/dispatch";
import type { ToolName } from "@/lib/tools/schemas";

/**
 * The handlers of one tool's route (`tool`), or of the dynamic `[tool]` route (no `tool`: the name is the path's).
 * An actor's token is looked up and its request counted against its rate limit (shared with MCP) in the call's own
 * transaction, in the statement that reads gate one (lib/tools/dispatch.ts).
 */
export function toolRoute(tool?: ToolName) {
  const POST = withToolCaller(
    async (req, ctx) => Response.json(await dispatch(ctx.caller, tool ?? param(ctx, "tool"), await readJson(req))),
    () => ({ countActorCalls: rateLimits().mcp }),
  );
  // A tool is called with POST only: anything else is a JSON 405 naming it, not Next.js's empty one.
  const GET = methodNotAllowed(["POST"]);
  return { POST, GET, PUT: GET, PATCH: GET, DELETE: GET };
}
