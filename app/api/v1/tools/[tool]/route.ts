// POST /api/v1/tools/:tool — run one of the nine tools; the body is the tool's input
import { readJson } from "@/lib/http/body";
import { param, withCaller } from "@/lib/http/route";
import { dispatch } from "@/lib/tools/dispatch";

export const POST = withCaller(async (req, ctx) => Response.json(await dispatch(ctx.auth, param(ctx, "tool"), await readJson(req))));
