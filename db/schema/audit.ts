// The audit trail: append-only, hash-chained per tenant. `audit_heads` holds each tenant's last link and
// serialises writers, so the chain never forks.
import { bigint, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const auditEvents = pgTable(
  "audit_events",
  {
    tenantId: text("tenant_id").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    id: text("id").notNull(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
    event: text("event").notNull(),
    requestId: text("request_id"),
    /** Who did it: a user, a delegated actor (with its grantor), or the system. */
    principalType: text("principal_type").notNull(),
    userId: text("user_id"),
    actorId: text("actor_id"),
    namespace: text("namespace"),
    operation: text("operation"),
    ref: text("ref"),
    outcome: text("outcome").notNull(),
    gate: text("gate"),
    reason: text("reason"),
    subjectId: text("subject_id"),
    details: jsonb("details").$type<Record<string, unknown>>().notNull(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.seq] }),
    uniqueIndex("audit_events_id").on(t.id),
    index("audit_events_tenant_at").on(t.tenantId, t.at),
    index("audit_events_subject").on(t.tenantId, t.subjectId),
    index("audit_events_actor").on(t.tenantId, t.actorId),
  ],
);
export type AuditEventRow = typeof auditEvents.$inferSelect;

export const auditHeads = pgTable("audit_heads", {
  tenantId: text("tenant_id").primaryKey(),
  seq: bigint("seq", { mode: "number" }).notNull(),
  hash: text("hash").notNull(),
});
