// GET /api/v1/accounts — the caller's connected accounts (never a token), and the providers they can connect
import { getDb } from "@/db/client";
import { listAccounts } from "@/lib/connections/accounts";
import { providerChoices } from "@/lib/views/connections";
import { withUser } from "@/lib/http/route";

export const GET = withUser(async (_req, { user }) => Response.json({ accounts: await listAccounts(await getDb(), user, { usage: true }), providers: providerChoices() }));
