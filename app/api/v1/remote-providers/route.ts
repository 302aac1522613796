// GET /api/v1/remote-providers — the workspace's registered remote providers (owner)
// POST — register one by URL `{url}` (owner): the manifest is fetched and validated first; 201 with the secret, once
import { getDb } from "@/db/client";
import { parseBody } from "@/lib/http/body";
import { withRole } from "@/lib/http/route";
import { listProviders, registerBody, registerByUrl } from "@/lib/remote-admin/register";

export const GET = withRole(["owner"], async (_req, { user }) => Response.json({ providers: await listProviders(await getDb(), user) }));

export const POST = withRole(["owner"], async (req, { user }) => Response.json(await registerByUrl(await getDb(), user, await parseBody(req, registerBody)), { status: 201, headers: { "cache-control": "no-store" } }));
