// GET /api/v1/tools — the tools this caller could be granted somewhere, with their JSON Schemas (the tool
// catalog), then an agent's working set of exact tools; what it may do with them now is provider_about's and
// object_schema's answer.
import { getDb } from "@/db/client";
import { withCaller } from "@/lib/http/route";
import { catalogOf, listedTools } from "@/lib/tools/working-set";

export const GET = withCaller(async (_req, { auth }) => Response.json({ tools: listedTools(await catalogOf(await getDb(), auth, new Date())) }));
