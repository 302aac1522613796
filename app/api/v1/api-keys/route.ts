// GET /api/v1/api-keys — the caller's API keys · POST — create one (the key is shown once)
import { getDb } from "@/db/client";
import { createApiKey, createApiKeyBody, listApiKeys } from "@/lib/authz/api-keys";
import { parseBody } from "@/lib/http/body";
import { withUser } from "@/lib/http/route";

export const GET = withUser(async (_req, { user }) => Response.json({ api_keys: await listApiKeys(await getDb(), user) }));

export const POST = withUser(async (req, { user }) => {
  const { name } = await parseBody(req, createApiKeyBody);
  return Response.json(await createApiKey(await getDb(), user, name), { status: 201 });
});
