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

/**
 * An operation's mode for agents: `off` (never), `ask` (each call waits for a person's approval of that exact
 * request), `on` (under a live grant). Read operations are on or off. Stricter wins: off < ask < on.
 */
export const operationModes = ["off", "ask", "on"] as const;
export type OperationMode = (typeof operationModes)[number];

/**
 * The owner ceiling: an operation's mode for the tenant's agents. No row: `on`, except a destructive operation
 * in a tenant whose `destructive_default` is `ask`.
 */
export const ceilingSettings = pgTable(
  "ceiling_settings",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    operation: text("operation").notNull(),
    mode: text("mode", { enum: operationModes }).notNull(),
    updatedBy: text("updated_by").notNull(),
    updatedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.namespace, t.operation] }), check("ceiling_settings_mode_check", sql`${t.mode} in ('off', 'ask', 'on')`)],
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
    openDescription: boolean("open_description").notNull().default(true),
    /** Agents act only on the actions in their working set (`operation_not_selected` otherwise). Off by default. */
    selectedOnly: boolean("selected_only").notNull().default(false),
    updatedBy: text("updated_by").notNull(),
    updatedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.namespace] })],
);

/** A user's own narrowing of the ceiling for agents acting for them (a mode never loosens the ceiling's). No row: `on`. */
export const userChoices = pgTable(
  "user_choices",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    operation: text("operation").notNull(),
    mode: text("mode", { enum: operationModes }).notNull(),
    updatedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId, t.namespace, t.operation] }), check("user_choices_mode_check", sql`${t.mode} in ('off', 'ask', 'on')`)],
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

export const approvalStatuses = ["pending", "approved", "denied", "expired", "consumed", "void"] as const;
export type ApprovalStatus = (typeof approvalStatuses)[number];

/**
 * A person's approval of one exact call of an operation in `ask` mode: who asks, for whom, what (operation,
 * target, the tool input and its digest). Approved, it lets exactly that input run once; the call that runs it
 * consumes it in the effect's transaction and keeps the result, which later retries replay.
 */
export const approvals = pgTable(
  "approvals",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    actorId: text("actor_id").notNull().references(() => actors.id, { onDelete: "cascade" }),
    grantorId: text("grantor_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** The actor token or OAuth token family that asked: revoking it voids the approval. */
    credentialId: text("credential_id").notNull(),
    tool: text("tool").notNull(),
    namespace: text("namespace").notNull(),
    operation: text("operation").notNull(),
    ref: text("ref"),
    /** SHA-256 (hex) of the canonical JSON of the tool input without approval_id and idempotency_key. */
    payloadDigest: text("payload_digest").notNull(),
    /** That input (its canonical JSON ≤ 8 KB, else its size), as the person reads it on the approval page. */
    input: jsonb("input").$type<ConsentRequestInput | null>(),
    status: text("status", { enum: approvalStatuses }).notNull().default("pending"),
    note: text("note"),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
    decidedAt: timestampCol("decided_at"),
    decidedBy: text("decided_by"),
    consumedAt: timestampCol("consumed_at"),
    /** The consuming call's result, replayed to every later call with this approval. */
    result: jsonb("result").$type<unknown>(),
    /** Why a void approval stopped counting (revoked actor, token family, operation turned off). */
    voidReason: text("void_reason"),
  },
  (t) => [
    index("approvals_grantor").on(t.tenantId, t.grantorId, t.status),
    index("approvals_actor").on(t.tenantId, t.actorId, t.status),
    check("approvals_status_check", sql`${t.status} in ('pending', 'approved', 'denied', 'expired', 'consumed', 'void')`),
  ],
);
export type Approval = typeof approvals.$inferSelect;
