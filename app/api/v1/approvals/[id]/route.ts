// GET /api/v1/approvals/:id — one approval as its grantor reads it: who asks, the action, the object by its name and
// the exact call as its realm presents it · POST {decision: "approve" | "deny", note?} — decide it (once; a second
// decision is a 409 naming the first). People only; cookie writes are CSRF-checked by withUser.
import { getDb } from "@/db/client";
import { decideApproval, decideApprovalBody, getApproval } from "@/lib/approvals/decide";
import { parseBody } from "@/lib/http/body";
import { param, withUser } from "@/lib/http/route";

export const GET = withUser(async (_req, ctx) => Response.json(await getApproval(await getDb(), ctx.user, param(ctx, "id"))));

export const POST = withUser(async (req, ctx) =>
  Response.json(await decideApproval(await getDb(), ctx.user, param(ctx, "id"), await parseBody(req, decideApprovalBody))),
);
