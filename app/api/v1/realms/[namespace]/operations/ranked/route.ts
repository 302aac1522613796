// GET /api/v1/realms/:namespace/operations/ranked?query= — one realm's operations ranked for what a person typed
// (the capability ranker object_schema(query) uses), best first. People only; support staff may look too.
import { z } from "zod";
import { getDb } from "@/db/client";
import { parseWith } from "@/lib/errors";
import { param, queryOf, withUser } from "@/lib/http/route";
import { MAX_RANK_QUERY, rankRealmOperations } from "@/lib/views/realms";

const rankQuery = z.strictObject({ query: z.string().max(MAX_RANK_QUERY), limit: z.coerce.number().int().min(1).max(200).optional() });

export const GET = withUser(async (req, ctx) => {
  const q = parseWith(rankQuery, queryOf(req), "query");
  return Response.json(await rankRealmOperations(await getDb(), ctx.user, param(ctx, "namespace"), q.query, q.limit));
});
