// GET /api/v1/choices?namespace= — the caller's own choices, bounded by the ceiling
// PATCH — turn operations on or off for agents acting for the caller
import { getDb } from "@/db/client";
import { changeChoices, operationStates, settingsChangeBody } from "@/lib/authz/policy";
import { AppError } from "@/lib/errors";
import { parseBody } from "@/lib/http/body";
import { queryOf, withRole, withUser } from "@/lib/http/route";

export const GET = withUser(async (req, { user }) => {
  const ns = queryOf(req).namespace;
  if (!ns) throw new AppError("invalid_input", "Give ?namespace=.");
  return Response.json({ namespace: ns, operations: await operationStates(await getDb(), user.tenantId, user.userId, ns) });
});

export const PATCH = withRole(["owner", "member"], async (req, { user }) => {
  const body = await parseBody(req, settingsChangeBody);
  return Response.json({ namespace: body.namespace, operations: await changeChoices(await getDb(), user, body) });
});
