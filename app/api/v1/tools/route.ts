// GET /api/v1/tools — the nine tools with their JSON Schemas (the tool catalog), the same for every caller;
// what this caller may do with them is provider_about's and object_schema's answer.
import { withCaller } from "@/lib/http/route";
import { toolCatalog } from "@/lib/tools/catalog";

export const GET = withCaller(async () => Response.json({ tools: toolCatalog() }));
