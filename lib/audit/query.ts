// Reading the audit trail (owners and support): filters, newest first across lanes (by `pos`, the order records
// were numbered in), keyset-paged by it, each page only as far as every record numbered has committed (settledPos). A
// support person's own views are audited too, coalesced per view and filter within ten minutes (./views.ts).
import { and, desc, eq, gte, lt, lte, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { auditEvents } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { settledPos } from "./record";
import { auditView, type AuditEventView } from "./view";
import { recordSupportView, viewFilters } from "./views";

/** An ISO time with its offset, in the years 1 to 9999 once in UTC (what the database stores; year 0 or 10000 it refuses). */
const storableTime = z.iso.datetime({ offset: true }).refine((v) => {
  const year = new Date(v).getUTCFullYear();
  return year >= 1 && year <= 9999;
}, "must be a time in the years 1 to 9999 (UTC)");

export const listAuditQuery = z.strictObject({
  user_id: z.string().max(64).optional(),
  actor_id: z.string().max(64).optional(),
  namespace: z.string().max(64).optional(),
  operation: z.string().max(250).optional(),
  event: z.string().max(64).optional(),
  outcome: z.enum(["allow", "deny", "ok", "error"]).optional(),
  subject_id: z.string().max(64).optional(),
  from: storableTime.optional(),
  to: storableTime.optional(),
  /** The page after this one: the `next_before` of the page before. */
  before: z
    .union([z.number().int().min(1), z.string().regex(/^[1-9][0-9]{0,15}$/, "must be the next_before of the page before").transform(Number)])
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export type ListAuditQuery = z.infer<typeof listAuditQuery>;

export { auditView, type AuditEventView };

type Viewer = { tenantId: string; userId: string; role: string; requestId: string };

export function assertAuditReader(who: Viewer) {
  if (who.role !== "owner" && who.role !== "support") throw new AppError("forbidden", "The audit trail is for owners and support staff.");
}

export async function listAuditEvents(db: Db, who: Viewer, q: ListAuditQuery, view = "audit.list") {
  assertAuditReader(who);
  const conds: SQL[] = [eq(auditEvents.tenantId, who.tenantId)];
  if (q.user_id) conds.push(eq(auditEvents.userId, q.user_id));
  if (q.actor_id) conds.push(eq(auditEvents.actorId, q.actor_id));
  if (q.namespace) conds.push(eq(auditEvents.namespace, q.namespace));
  if (q.operation) conds.push(eq(auditEvents.operation, q.operation));
  if (q.event) conds.push(eq(auditEvents.event, q.event));
  if (q.outcome) conds.push(eq(auditEvents.outcome, q.outcome));
  if (q.subject_id) conds.push(eq(auditEvents.subjectId, q.subject_id));
  if (q.from) conds.push(gte(auditEvents.at, new Date(q.from)));
  if (q.to) conds.push(lte(auditEvents.at, new Date(q.to)));
  if (q.before) conds.push(lt(auditEvents.pos, q.before));
  // Only as far as every record numbered has committed (or never will): no gap below the page can fill later.
  conds.push(lte(auditEvents.pos, await settledPos(db, who.tenantId)));
  return db.transaction(async (tx) => {
    const rows = await tx.select().from(auditEvents).where(and(...conds)).orderBy(desc(auditEvents.pos)).limit(q.limit);
    if (who.role === "support") {
      // One record per person, view and filter within ten minutes (./views.ts): paging and reloads coalesce.
      await recordSupportView(tx, who, { view, filters: viewFilters(q) });
    }
    const events = rows.map(auditView);
    return { events, next_before: rows.length === q.limit ? rows[rows.length - 1]!.pos : null };
  });
}
