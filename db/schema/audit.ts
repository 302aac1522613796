// The audit trail: append-only, chained per tenant and lane. A tenant's records form a few chains, its lanes
// (lane 0 is the chain as it was before lanes; a writer takes whichever lane no open transaction holds, so one
// busy tenant's writers do not queue on one row). Each record's `hash` is the SHA-256 of its canonical fields
// (which include `prev_hash`, the previous record's link in its lane); records written since the keyed chain
// carry `kid` and `mac`, an HMAC-SHA256 under that key over the hash, and `mac` is their link. Legacy records
// (kid null) link by `hash`. `audit_heads` holds each lane's last link and serialises that lane's writers, so a
// lane never forks. `pos` orders records across lanes: drawn from one sequence as a record is appended, under its
// tenant's numbering turn (lib/audit/record.ts), so a reader that takes the turn never sees a gap filled later.
// `audit_checkpoints` holds Ed25519-signed (lane, seq, link) triples, also written to the digest store outside
// the database (lib/audit/checkpoints.ts).
import { bigint, index, jsonb, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const auditEvents = pgTable(
  "audit_events",
  {
    tenantId: text("tenant_id").notNull(),
    /** The chain this record is in (lib/audit/record.ts); `seq` counts within it. */
    lane: smallint("lane").notNull().default(0),
    seq: bigint("seq", { mode: "number" }).notNull(),
    /** Order across lanes (and tenants): drawn from one sequence as the record is appended. Not hashed. */
    pos: bigint("pos", { mode: "number" }).notNull().generatedByDefaultAsIdentity(),
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
    /** The audit key that made `mac`; null on legacy (SHA-256-only) records. Never the key itself. */
    kid: text("kid"),
    /** HMAC-SHA256 (hex) under `kid` over kid, tenant, lane (past lane 0), seq and `hash`: the record's link. */
    mac: text("mac"),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.lane, t.seq] }),
    uniqueIndex("audit_events_id").on(t.id),
    uniqueIndex("audit_events_tenant_pos").on(t.tenantId, t.pos),
    index("audit_events_tenant_at").on(t.tenantId, t.at),
    index("audit_events_subject").on(t.tenantId, t.subjectId),
    index("audit_events_actor").on(t.tenantId, t.actorId),
  ],
);
export type AuditEventRow = typeof auditEvents.$inferSelect;

export const auditHeads = pgTable(
  "audit_heads",
  {
    tenantId: text("tenant_id").notNull(),
    lane: smallint("lane").notNull().default(0),
    seq: bigint("seq", { mode: "number" }).notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.lane] })],
);

/** Signed checkpoints: "tenant T's lane L had `seq` records ending in link `mac` at `at`" (append-only). */
export const auditCheckpoints = pgTable(
  "audit_checkpoints",
  {
    tenantId: text("tenant_id").notNull(),
    lane: smallint("lane").notNull().default(0),
    seq: bigint("seq", { mode: "number" }).notNull(),
    /** The chain link at `seq`: the record's MAC (its SHA-256 hash for a legacy-only prefix). */
    mac: text("mac").notNull(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
    /** The signing key's id (a digest of its Ed25519 public key). */
    kid: text("kid").notNull(),
    /** Ed25519 signature (base64url) over the canonical checkpoint. */
    sig: text("sig").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.lane, t.seq] })],
);
export type AuditCheckpointRow = typeof auditCheckpoints.$inferSelect;
