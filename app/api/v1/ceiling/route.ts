// GET /api/v1/ceiling?namespace= — the owner ceiling (and the caller's choices) per operation
// PATCH — owners turn operations on or off for the whole tenant's agents
import { getDb } from "@/db/client";
import { changeCeiling, operationStates, settingsChangeBody } from "@/lib/authz/policy";
import { AppError } from "@/lib/errors";
import { parseBody } from "@/lib/http/body";
import { queryOf, withRole, withUser } from "@/lib/http/route";

export const GET = withUser(async (req, { user }) => {
  const ns = queryOf(req).namespace;
  if (!ns) throw new AppError("invalid_input", "Give ?namespace=.");
  return Response.json({ namespace: ns, operations: await operationStates(await getDb(), user.tenantId, user.userId, ns) });
});

export const PATCH = withRole(["owner"], async (req, { user }) => {
  const body = await parseBody(req, settingsChangeBody);
  return Response.json({ namespace: body.namespace, operations: await changeCeiling(await getDb(), user, body) });
});
