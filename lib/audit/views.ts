// A support person's views of the trail, coalesced: one `support.viewed` record per person, view and filter
// within ten minutes. Reloading the console, paging through older events or a tab regaining focus does not
// crowd the trail; a different filter, another grant's timeline or the same view after ten minutes is a new
// record. The window is read from the trail itself (the database), so it holds across processes and restarts.
import { and, eq, gt, lte, sql, type SQL } from "drizzle-orm";
import { ADVISORY_LOCKS } from "@/db/advisory-locks";
import type { Executor } from "@/db/client";
import { auditEvents } from "@/db/schema";
import { recordChange } from "./record";

export const VIEW_COALESCE_MS = 10 * 60_000;

type Who = { tenantId: string; userId: string; requestId?: string | null };

/** What a view's record says: the view's name and what it was looking at (filters without paging). */
export type ViewDetails = { view: string } & Record<string, unknown>;

/** The paging fields say which page of a search was read, not what was searched: they do not make a new view. */
export function viewFilters(q: Record<string, unknown>): Record<string, unknown> {
  const { limit: _limit, before: _before, ...rest } = q;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined && v !== ""));
}

/**
 * Record a support view unless the same person recorded the same view (same details) in the last ten minutes.
 * Runs in the caller's transaction, last: the person's views take turns on an advisory lock held to COMMIT, so
 * two views read at once cannot both pass the check. Returns whether a record was written.
 */
export async function recordSupportView(
  tx: Executor,
  who: Who,
  details: ViewDetails,
  fields: { namespace?: string | null; subjectId?: string | null } = {},
  now: Date = new Date(),
): Promise<boolean> {
  await tx.execute(sql`select pg_advisory_xact_lock(${ADVISORY_LOCKS.supportViews}, hashtext(${`${who.tenantId}/${who.userId}`}))`);
  const normalised = JSON.parse(JSON.stringify(details)) as ViewDetails;
  if (await recordedRecently(tx, who, "support.viewed", sql`${auditEvents.details} = ${JSON.stringify(normalised)}::jsonb`, now)) return false;
  await recordChange(tx, who, "support.viewed", { ...fields, details: normalised, at: now });
  return true;
}

/** Whether the same person recorded the same chain check (same result) in the last ten minutes. */
export async function recentlyVerified(tx: Executor, who: Who, ok: boolean, now: Date = new Date()): Promise<boolean> {
  return recordedRecently(tx, who, "audit.verified", sql`${auditEvents.details}->>'ok' = ${String(ok)}`, now);
}

/** Whether this person recorded this event, with details matching `match`, in the last ten minutes. */
async function recordedRecently(tx: Executor, who: Who, event: string, match: SQL, now: Date): Promise<boolean> {
  const [recent] = await tx
    .select({ id: auditEvents.id })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.tenantId, who.tenantId),
        gt(auditEvents.at, new Date(now.getTime() - VIEW_COALESCE_MS)),
        lte(auditEvents.at, now),
        eq(auditEvents.event, event),
        eq(auditEvents.userId, who.userId),
        match,
      ),
    )
    .limit(1);
  return recent !== undefined;
}
