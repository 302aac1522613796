// POST /api/v1/tools/upsert_object — run the tool; the body is its input (app/api/v1/tools/tool-route.ts).
import { toolRoute } from "@/app/api/v1/tools/tool-route";

export const { POST, GET, PUT, PATCH, DELETE } = toolRoute("upsert_object");
