// GET /api/v1/actors — the caller's delegated actors (?all=1: the tenant's, for owners and support)
// POST — create an actor (and its first token, shown once)
import { getDb } from "@/db/client";
import { createActor, createActorBody, listActors } from "@/lib/authz/actors";
import { AppError } from "@/lib/errors";
import { parseBody } from "@/lib/http/body";
import { queryOf, withUser } from "@/lib/http/route";

export const GET = withUser(async (req, { user }) => Response.json({ actors: await listActors(await getDb(), user, { all: queryOf(req).all === "1" }) }));

export const POST = withUser(async (req, { user }) => {
  if (user.role === "support") throw new AppError("forbidden", "Support staff review actors; they do not create them.");
  const body = await parseBody(req, createActorBody);
  return Response.json(await createActor(await getDb(), user, body), { status: 201 });
});
