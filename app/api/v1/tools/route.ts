// GET /api/v1/tools — the tools this caller may use, with their JSON Schemas (the tool catalog)
import { getDb } from "@/db/client";
import { withCaller } from "@/lib/http/route";
import { toolCatalogFor } from "@/lib/tools/catalog";

export const GET = withCaller(async (_req, { auth }) => Response.json({ tools: await toolCatalogFor(await getDb(), auth) }));
