// POST /api/v1/remote-providers/register — a provider registers itself: `Authorization: Bearer rgr_…` (a one-time
// registration token an owner minted) and `{url}`; 201 `{provider, secret, tenant_id}`. No session is involved.
import { getDb } from "@/db/client";
import { parseBody } from "@/lib/http/body";
import { route } from "@/lib/http/route";
import { registerBody, registerWithToken } from "@/lib/remote-admin/register";

export const POST = route(async (req, { requestId }) =>
  Response.json(await registerWithToken(await getDb(), req.headers.get("authorization"), await parseBody(req, registerBody), requestId), { status: 201, headers: { "cache-control": "no-store" } }),
);
