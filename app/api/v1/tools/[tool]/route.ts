// POST /api/v1/tools/:tool — a name that is not one of the nine tools (each has a static route of its own, found
// first): the same handler, which runs an exact tool of the calling agent's working set or answers 404 `not_found`
// (`unknown_tool`) (../tool-route.ts).
import { toolRoute } from "@/app/api/v1/tools/tool-route";

export const { POST, GET, PUT, PATCH, DELETE } = toolRoute();
