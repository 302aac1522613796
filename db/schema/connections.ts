// Connected accounts (a user's accounts at outside providers, with their sealed tokens) and the
// short-lived OAuth flows that create, upgrade and reconnect them.
import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";
import { tenants, users } from "./tenancy";

export const accountStatuses = ["active", "needs_reconnect", "revoked"] as const;
export type AccountStatus = (typeof accountStatuses)[number];

export const connectedAccounts = pgTable(
  "connected_accounts",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** Provider config id (`google`, `devmail`…). */
    provider: text("provider").notNull(),
    /** The API the provider speaks (`gmail`): which realm can use the account. */
    api: text("api").notNull(),
    /** The provider's stable subject (`sub`) for the account. */
    externalId: text("external_id").notNull(),
    email: text("email"),
    label: text("label").notNull(),
    /** Realmgate claims the granted scopes cover (`gmail:read`…). */
    claims: text("claims").array().notNull(),
    /** Provider scopes granted to the latest token. */
    scopes: text("scopes").array().notNull(),
    status: text("status", { enum: accountStatuses }).notNull(),
    statusReason: text("status_reason"),
    /** Vault key id and sealed token set (AES-256-GCM); null once disconnected. */
    secretKid: text("secret_kid"),
    secret: text("secret"),
    tokenExpiresAt: timestampCol("token_expires_at"),
    /** Bumped on every token or status change: detached writes apply only to the version they read. */
    version: integer("version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
    lastUsedAt: timestampCol("last_used_at"),
  },
  (t) => [
    uniqueIndex("connected_accounts_external").on(t.tenantId, t.userId, t.provider, t.externalId),
    // Labels name accounts in selectors, so live ones are unique per user, ignoring case.
    uniqueIndex("connected_accounts_label").on(t.tenantId, t.userId, sql`lower(${t.label})`).where(sql`${t.status} <> 'revoked'`),
    index("connected_accounts_user").on(t.tenantId, t.userId),
    check("connected_accounts_status_check", sql`${t.status} in ('active', 'needs_reconnect', 'revoked')`),
  ],
);
export type ConnectedAccount = typeof connectedAccounts.$inferSelect;

export const connectionIntents = ["connect", "upgrade", "reconnect"] as const;
export type ConnectionIntent = (typeof connectionIntents)[number];

/** One OAuth authorization in progress: single use, bound to its user, short-lived. */
export const connectionFlows = pgTable(
  "connection_flows",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    intent: text("intent", { enum: connectionIntents }).notNull(),
    /** The account being upgraded or reconnected. */
    accountId: text("account_id"),
    /** SHA-256 of the `state` parameter; the state itself is never stored. */
    stateHash: text("state_hash").notNull().unique(),
    codeVerifier: text("code_verifier").notNull(),
    nonce: text("nonce").notNull(),
    scopes: text("scopes").array().notNull(),
    claims: text("claims").array().notNull(),
    label: text("label"),
    returnTo: text("return_to").notNull(),
    createdAt: createdAt(),
    expiresAt: timestampCol("expires_at").notNull(),
    consumedAt: timestampCol("consumed_at"),
  },
  (t) => [index("connection_flows_user").on(t.tenantId, t.userId), check("connection_flows_intent_check", sql`${t.intent} in ('connect', 'upgrade', 'reconnect')`)],
);
export type ConnectionFlow = typeof connectionFlows.$inferSelect;
