// POST /api/v1/tools/:tool — a name that is not one of the nine tools (each has a static route of its own, found
// first): the same handler, which runs an exact tool of the calling agent's working set or answers 404 `not_found`
// (`unknown_tool`) (../tool-route.ts).
import { toolRoute } from "@/app/api/v1/tools/tool-route";

const handlers = toolRoute();
export const POST = handlers.POST;
export const GET = handlers.GET;
export const PUT = handlers.PUT;
export const PATCH = handlers.PATCH;
export const DELETE = handlers.DELETE;
