// POST /api/v1/connections/start — begin connecting, upgrading or reconnecting an account; answers the
// provider's authorization URL for the browser to visit
import { getDb } from "@/db/client";
import { startConnection, startConnectionBody } from "@/lib/connections/flows";
import { parseBody } from "@/lib/http/body";
import { withUser } from "@/lib/http/route";

export const POST = withUser(async (req, { user }) => Response.json(await startConnection(await getDb(), user, await parseBody(req, startConnectionBody)), { status: 201 }));
