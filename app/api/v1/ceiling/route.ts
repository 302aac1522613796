// GET /api/v1/ceiling?namespace= — the owner ceiling (and the caller's choices) per operation, and whether agents
// may read the realm's description without asking
// PATCH — owners turn operations on or off for the whole tenant's agents, and the open description on or off
import { getDb } from "@/db/client";
import { ceilingChangeBody, changeCeiling, operationStates, readOpenDescription } from "@/lib/authz/policy";
import { AppError } from "@/lib/errors";
import { parseBody } from "@/lib/http/body";
import { queryOf, withRole, withUser } from "@/lib/http/route";

export const GET = withUser(async (req, { user }) => {
  const ns = queryOf(req).namespace;
  if (!ns) throw new AppError("invalid_input", "Give ?namespace=.");
  const db = await getDb();
  return Response.json({ namespace: ns, operations: await operationStates(db, user.tenantId, user.userId, ns), open_description: await readOpenDescription(db, user.tenantId, ns) });
});

export const PATCH = withRole(["owner"], async (req, { user }) => {
  const body = await parseBody(req, ceilingChangeBody);
  return Response.json({ namespace: body.namespace, ...(await changeCeiling(await getDb(), user, body)) });
});
