// GET /api/v1/accounts/:id — one of the caller's connected accounts
// DELETE — disconnect it: revoke the token at the provider (RFC 7009) and forget it
import { getDb } from "@/db/client";
import { accountView, disconnectAccount, ownAccount } from "@/lib/connections/accounts";
import { param, withUser } from "@/lib/http/route";

export const GET = withUser(async (_req, ctx) => Response.json(accountView(await ownAccount(await getDb(), ctx.user, param(ctx, "id")))));

export const DELETE = withUser(async (_req, ctx) => Response.json(await disconnectAccount(await getDb(), ctx.user, param(ctx, "id"))));
