// POST /api/v1/tools/:tool — run one of the nine tools; the body is the tool's input
import { getDb } from "@/db/client";
import { readJson } from "@/lib/http/body";
import { callerBucket, enforceRateLimit } from "@/lib/limits/rate-limit";
import { param, withCaller } from "@/lib/http/route";
import { rateLimits } from "@/lib/mcp/config";
import { dispatch } from "@/lib/tools/dispatch";

export const POST = withCaller(async (req, ctx) => {
  if (ctx.auth.kind === "actor") await enforceRateLimit(await getDb(), callerBucket(ctx.auth.actorId), rateLimits().mcp, "requests");
  return Response.json(await dispatch(ctx.auth, param(ctx, "tool"), await readJson(req)));
});
