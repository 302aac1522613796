// The navigation's pending badge: how many decisions wait for the signed-in person — consent requests and
// single-call approvals, pending and not past their time (as their lists count them). One statement, no rows.
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { approvals, consentRequests } from "@/db/schema";

export async function pendingRequestCount(db: Executor, who: { tenantId: string; userId: string }, now = new Date()): Promise<number> {
  const requests = db
    .select({ n: sql<number>`count(*)::int` })
    .from(consentRequests)
    .where(
      and(
        eq(consentRequests.tenantId, who.tenantId),
        eq(consentRequests.grantorId, who.userId),
        eq(consentRequests.status, "pending"),
        or(isNull(consentRequests.expiresAt), gt(consentRequests.expiresAt, now)),
      ),
    );
  const calls = db
    .select({ n: sql<number>`count(*)::int` })
    .from(approvals)
    .where(and(eq(approvals.tenantId, who.tenantId), eq(approvals.grantorId, who.userId), eq(approvals.status, "pending"), gt(approvals.expiresAt, now)));
  const [row] = await db.select({ n: sql<number>`(${requests}) + (${calls})` }).from(sql`(select 1) as one`);
  return Number(row?.n ?? 0);
}
