// GET /api/v1/me — who the caller is, in which tenant, with which role
import { getDb } from "@/db/client";
import { describeUser } from "@/lib/authz/users";
import { withUser } from "@/lib/http/route";

export const GET = withUser(async (_req, { user }) => Response.json(await describeUser(await getDb(), user)));
