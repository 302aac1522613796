// GET /api/v1/realms/resolve?ref=…|kind=…|operation=…|namespace=… — which realm owns it (people of the tenant;
// agents about the realms they could be granted)
import { getDb } from "@/db/client";
import { withCaller } from "@/lib/http/route";
import { resolveQuery, resolveRealm } from "@/lib/views/resolve";

export const GET = withCaller(async (req, { auth }) => Response.json(await resolveRealm(await getDb(), auth, resolveQuery(new URL(req.url).searchParams))));
