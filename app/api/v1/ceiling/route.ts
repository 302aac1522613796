// GET /api/v1/ceiling?namespace= — the owner ceiling (and the caller's choices) per operation, and whether agents
// may read the realm's description without asking, and whether they act only on operations they selected
// PATCH — owners set operations off / ask / on for the whole tenant's agents, the open description, and selected_only
import { getDb } from "@/db/client";
import { ceilingChangeBody, changeCeiling, operationStates, readOpenDescription, readSelectedOnly } from "@/lib/authz/policy";
import { AppError } from "@/lib/errors";
import { parseBody } from "@/lib/http/body";
import { queryOf, withRole, withUser } from "@/lib/http/route";

export const GET = withUser(async (req, { user }) => {
  const ns = queryOf(req).namespace;
  if (!ns) throw new AppError("invalid_input", "Give ?namespace=.");
  const db = await getDb();
  return Response.json({
    namespace: ns,
    operations: await operationStates(db, user.tenantId, user.userId, ns), open_description: await readOpenDescription(db, user.tenantId, ns),
    selected_only: await readSelectedOnly(db, user.tenantId, ns),
  });
});

export const PATCH = withRole(["owner"], async (req, { user }) => {
  const body = await parseBody(req, ceilingChangeBody);
  return Response.json({ namespace: body.namespace, ...(await changeCeiling(await getDb(), user, body)) });
});
