// GET /api/v1/tools — the tools this caller could be granted somewhere, with their JSON Schemas (the tool
// catalog); what it may do with them now is provider_about's and object_schema's answer.
import { getDb } from "@/db/client";
import { withCaller } from "@/lib/http/route";
import { toolCatalogFor } from "@/lib/tools/catalog";

export const GET = withCaller(async (_req, { auth }) => Response.json({ tools: await toolCatalogFor(await getDb(), auth) }));
