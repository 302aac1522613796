// GET /api/v1/approvals/:id/timeline — one approval's life from the audit trail (the grantor, owners and support).
import { getDb } from "@/db/client";
import { param, withUser } from "@/lib/http/route";
import { approvalTimeline } from "@/lib/views/timeline";

export const GET = withUser(async (_req, ctx) => Response.json(await approvalTimeline(await getDb(), ctx.user, param(ctx, "id"))));
