// GET /api/v1/tools — how to call a tool over REST, the tools this caller could be granted somewhere, with their
// JSON Schemas and MCP hints (the tool catalog), then an agent's working set of exact tools; what it may do with
// them now is provider_about's and object_schema's answer.
import { getDb } from "@/db/client";
import { withCaller } from "@/lib/http/route";
import { catalogOf, restToolList } from "@/lib/tools/working-set";

export const GET = withCaller(async (_req, { auth }) => Response.json(restToolList(await catalogOf(await getDb(), auth, new Date()))));
