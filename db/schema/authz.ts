// Delegated actors and their tokens, grants, the owner ceiling, user choices, and consent requests.
import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";
import { tenants, users } from "./tenancy";

export const actorKinds = ["hosted_agent", "mcp_client", "automation"] as const;
export type ActorKind = (typeof actorKinds)[number];

/** A delegated actor: never the user. `grantorId` is the user who created it and approves its grants. */
export const actors = pgTable(
  "actors",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    grantorId: text("grantor_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: actorKinds }).notNull(),
    name: text("name").notNull(),
    /** For mcp_client actors: the OAuth client it was created for. */
    clientId: text("client_id"),
    createdAt: createdAt(),
    lastUsedAt: timestampCol("last_used_at"),
    revokedAt: timestampCol("revoked_at"),
    revokedBy: text("revoked_by"),
    revokeReason: text("revoke_reason"),
  },
  (t) => [index("actors_tenant_grantor").on(t.tenantId, t.grantorId), check("actors_kind_check", sql`${t.kind} in ('hosted_agent', 'mcp_client', 'automation')`)],
);
export type Actor = typeof actors.$inferSelect;

export const actorTokens = pgTable(
  "actor_tokens",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    actorId: text("actor_id").notNull().references(() => actors.id, { onDelete: "cascade" }),
    displayPrefix: text("display_prefix").notNull(),
    hash: text("hash").notNull().unique(),
    expiresAt: timestampCol("expires_at"),
    createdAt: createdAt(),
    lastUsedAt: timestampCol("last_used_at"),
    revokedAt: timestampCol("revoked_at"),
  },
  (t) => [index("actor_tokens_actor").on(t.actorId)],
);
export type ActorToken = typeof actorTokens.$inferSelect;

/**
 * A grant's resource scope: exact refs (what the realm's lineage says they contain is covered too), or one
 * connected account of the grantor. Null means the whole namespace. Never a string prefix.
 */
export type ResourceScope = { refs: string[]; account_id?: never } | { account_id: string; refs?: never };

/** Why one operation of a grant stopped working although the grant is live: its meaning changed. */
export type GrantSuspension = { at: string; change: string };

export const grants = pgTable(
  "grants",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    actorId: text("actor_id").notNull().references(() => actors.id, { onDelete: "cascade" }),
    grantorId: text("grantor_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    /** Exact operation keys. */
    operations: text("operations").array().notNull(),
    /** "Every action of the realm" (except exact-grant-only ones): a flag, never a string an action could equal. */
    allActions: boolean("all_actions").notNull().default(false),
    resourceScope: jsonb("resource_scope").$type<ResourceScope | null>(),
    /** Operations suspended on this grant because their meaning changed (re-import, curation): key → what changed. */
    suspensions: jsonb("suspensions").$type<Record<string, GrantSuspension>>().notNull().default({}),
    expiresAt: timestampCol("expires_at"),
    createdAt: createdAt(),
    consentRequestId: text("consent_request_id"),
    revokedAt: timestampCol("revoked_at"),
    revokedBy: text("revoked_by"),
    revokeReason: text("revoke_reason"),
  },
  (t) => [index("grants_actor_ns").on(t.tenantId, t.actorId, t.namespace)],
);
export type Grant = typeof grants.$inferSelect;

/** The owner ceiling: an operation is allowed for the tenant's agents unless a row turns it off. */
export const ceilingSettings = pgTable(
  "ceiling_settings",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    operation: text("operation").notNull(),
    enabled: boolean("enabled").notNull(),
    updatedBy: text("updated_by").notNull(),
    updatedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.namespace, t.operation] })],
);

/**
 * The owner's per-realm rules for agents, beside the per-operation ceiling. `openDescription`: agents may read
 * the realm's description (provider.about, object.schema) without a grant, wherever the ceiling and their
 * grantor's choices leave those operations on. No row: the defaults (open).
 */
export const realmSettings = pgTable(
  "realm_settings",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    openDescription: boolean("open_description").notNull(),
    updatedBy: text("updated_by").notNull(),
    updatedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.namespace] })],
);

/** A user's own narrowing of the ceiling for agents acting for them. */
export const userChoices = pgTable(
  "user_choices",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    operation: text("operation").notNull(),
    enabled: boolean("enabled").notNull(),
    updatedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId, t.namespace, t.operation] })],
);

export const consentStatuses = ["pending", "approved", "denied"] as const;

export const consentRequests = pgTable(
  "consent_requests",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    actorId: text("actor_id").notNull().references(() => actors.id, { onDelete: "cascade" }),
    grantorId: text("grantor_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    operations: text("operations").array().notNull(),
    resourceScope: jsonb("resource_scope").$type<ResourceScope | null>(),
    /** The target the attempt named (null: the namespace), shown to the grantor by its name. */
    ref: text("ref"),
    /** Other refs the attempt named (in fields or the payload), sorted: part of the request's identity. */
    namedRefs: text("named_refs").array().notNull().default(sql`'{}'::text[]`),
    /**
     * The input of the call that made the request, as the grantor reads it on the consent page: its canonical JSON
     * when at most 8 KB, else `{too_large: true, bytes}`. Null for requests recorded before it was kept.
     */
    input: jsonb("input").$type<ConsentRequestInput | null>(),
    /** A pending request lapses then; its page says so. */
    expiresAt: timestampCol("expires_at"),
    status: text("status", { enum: consentStatuses }).notNull().default("pending"),
    attempts: bigint("attempts", { mode: "number" }).notNull().default(1),
    createdAt: createdAt(),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    decidedAt: timestampCol("decided_at"),
    decidedBy: text("decided_by"),
    grantId: text("grant_id"),
  },
  (t) => [index("consent_requests_grantor").on(t.tenantId, t.grantorId, t.status)],
);
/** What a consent request keeps of its call's input (bounded). */
export type ConsentRequestInput = { value: Record<string, unknown> } | { too_large: true; bytes: number };
export type ConsentRequest = typeof consentRequests.$inferSelect;
