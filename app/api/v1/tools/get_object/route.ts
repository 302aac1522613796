// POST /api/v1/tools/get_object — run the tool; the body is its input (app/api/v1/tools/tool-route.ts).
import { toolRoute } from "@/app/api/v1/tools/tool-route";

const handlers = toolRoute("get_object");
export const POST = handlers.POST;
export const GET = handlers.GET;
export const PUT = handlers.PUT;
export const PATCH = handlers.PATCH;
export const DELETE = handlers.DELETE;
