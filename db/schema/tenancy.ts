// Tenants, users, memberships, sign-in identities and personal API keys.
import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";

export const roles = ["owner", "member", "support"] as const;
export type Role = (typeof roles)[number];

export const tenants = pgTable("tenants", {
  id: idColumn(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  /**
   * The ceiling mode of a destructive operation the owner never set: `ask` for tenants made since approvals
   * exist (so realms added later, imported ones included, start there), `on` for those made before.
   */
  destructiveDefault: text("destructive_default", { enum: ["ask", "on"] }).notNull().default("ask"),
  /**
   * What the tool catalog an agent is sent may weigh, nine generic tools and its working set of exact tools
   * together, in bytes of canonical JSON: 16 KB by default, the owner may set 8 KB to 48 KB.
   */
  catalogBudgetBytes: integer("catalog_budget_bytes").notNull().default(16384),
  createdAt: createdAt(),
}, (t) => [check("tenants_catalog_budget_check", sql`${t.catalogBudgetBytes} between 8192 and 49152`)]);
export type Tenant = typeof tenants.$inferSelect;

export const users = pgTable(
  "users",
  {
    id: idColumn(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    /** scrypt hash; only for the development sign-in (demo users). */
    passwordHash: text("password_hash"),
    /** Bumped by "sign out of all devices": every session signed in under an older version ends. */
    sessionVersion: integer("session_version").notNull().default(1),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_lower").on(sql`lower(${t.email})`)],
);
export type User = typeof users.$inferSelect;

export const memberships = pgTable(
  "memberships",
  {
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: roles }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.userId] }),
    index("memberships_user").on(t.userId),
    check("memberships_role_check", sql`${t.role} in ('owner', 'member', 'support')`),
  ],
);
export type Membership = typeof memberships.$inferSelect;

/** An external sign-in identity (OpenID Connect issuer + subject) linked to a user. */
export const identities = pgTable(
  "identities",
  {
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] })],
);

/** Personal API keys: act as their user on the REST API. Only a SHA-256 of the key is stored. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The first characters of the key, shown so a person can tell keys apart. */
    displayPrefix: text("display_prefix").notNull(),
    hash: text("hash").notNull().unique(),
    createdAt: createdAt(),
    lastUsedAt: timestampCol("last_used_at"),
    revokedAt: timestampCol("revoked_at"),
  },
  (t) => [index("api_keys_user").on(t.tenantId, t.userId)],
);
export type ApiKey = typeof apiKeys.$inferSelect;

/**
 * Sessions that ended at sign-out before their JWT expired: a denylist keyed by the session id the JWT carries,
 * checked on every request. Rows are useless after `expires_at` (the JWT's own expiry) and are pruned then.
 */
export const endedSessions = pgTable(
  "ended_sessions",
  {
    sessionId: text("session_id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestampCol("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("ended_sessions_expiry").on(t.expiresAt)],
);
