// Stored files (hosted by agents or rendered by realms) and idempotency records of effectful tool calls.
import { bigint, customType, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";
import { tenants } from "./tenancy";

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (v) => (v instanceof Uint8Array ? v : new Uint8Array(v as ArrayBufferLike)),
});

export const files = pgTable(
  "files",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    /** The user whose authority may read it (the user, or an actor's grantor). */
    ownerUserId: text("owner_user_id").notNull(),
    name: text("name").notNull(),
    contentType: text("content_type").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    sha256: text("sha256").notNull(),
    content: bytea("content").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("files_tenant").on(t.tenantId)],
);

export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    /** `usr_…` or `act_…`: keys are per caller. */
    principalId: text("principal_id").notNull(),
    tool: text("tool").notNull(),
    key: text("key").notNull(),
    bodyHash: text("body_hash").notNull(),
    result: jsonb("result").$type<unknown>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.principalId, t.tool, t.key] })],
);

/**
 * Upload slots already used (provider-backed links minted by an action such as Slack's request_upload): a slot
 * uploads once. Keyed by the SHA-256 of the link's signature; kept until the link would have expired anyway.
 */
export const liveUrlUses = pgTable("live_url_uses", {
  sigHash: text("sig_hash").primaryKey(),
  tenantId: text("tenant_id")
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" }),
  expiresAt: timestampCol("expires_at").notNull(),
  usedAt: createdAt(),
});
