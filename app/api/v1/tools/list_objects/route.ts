// POST /api/v1/tools/list_objects — run the tool; the body is its input (app/api/v1/tools/tool-route.ts).
import { toolRoute } from "@/app/api/v1/tools/tool-route";

export const { POST, GET, PUT, PATCH, DELETE } = toolRoute("list_objects");
