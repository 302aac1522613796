// GET /api/v1/realms — the caller's realms as service cards: kinds, connection status, operation counts
import { getDb } from "@/db/client";
import { withUser } from "@/lib/http/route";
import { realmCards } from "@/lib/views/realms";

export const GET = withUser(async (_req, { user }) => Response.json({ realms: await realmCards(await getDb(), user) }));
