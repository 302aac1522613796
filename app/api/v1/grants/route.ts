// GET /api/v1/grants — grants the caller gave (?scope=tenant for owners and support; ?actor_id, ?status)
// POST — grant one of the caller's actors exact operations of one realm
import { getDb } from "@/db/client";
import { createGrant, createGrantBody, listGrants, listGrantsQuery } from "@/lib/authz/grants";
import { parseWith } from "@/lib/errors";
import { parseBody } from "@/lib/http/body";
import { queryOf, withUser } from "@/lib/http/route";

export const GET = withUser(async (req, { user }) =>
  Response.json({ grants: await listGrants(await getDb(), user, parseWith(listGrantsQuery, queryOf(req), "query")) }),
);

export const POST = withUser(async (req, { user }) => Response.json(await createGrant(await getDb(), user, await parseBody(req, createGrantBody)), { status: 201 }));
