// The navigation's pending-request badge: how many consent requests wait for the signed-in person to decide
// (pending and not expired, as the consent list counts them). One count, no rows.
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { consentRequests } from "@/db/schema";

export async function pendingRequestCount(db: Executor, who: { tenantId: string; userId: string }, now = new Date()): Promise<number> {
  const [row] = await db
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
  return row?.n ?? 0;
}
