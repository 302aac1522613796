// POST /api/v1/remote-providers/tokens — a one-time registration token for a provider to register itself (owner); shown once
import { getDb } from "@/db/client";
import { withRole } from "@/lib/http/route";
import { mintRegistrationToken } from "@/lib/remote-admin/register";

export const POST = withRole(["owner"], async (_req, { user }) => Response.json(await mintRegistrationToken(await getDb(), user), { status: 201, headers: { "cache-control": "no-store" } }));
