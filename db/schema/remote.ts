// Remote realms (realm_type "remote"): a provider in its own process, registered per tenant by an owner (by URL)
// or by the provider itself with a one-time registration token. The row keeps the manifest as last validated,
// its version, the sealed per-registration secret calls are signed with, and whether the provider is usable.
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";
import { tenants, users } from "./tenancy";

export const remoteProviderStatuses = ["active", "unavailable"] as const;
export type RemoteProviderStatus = (typeof remoteProviderStatuses)[number];

export const remoteProviders = pgTable(
  "remote_providers",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    /** The base URL the provider serves `/manifest` and `/ops/<operation>` under (no trailing slash). */
    baseUrl: text("base_url").notNull(),
    /** The manifest as last validated (realm_type "remote"); the realm is built from it. */
    manifest: jsonb("manifest").notNull(),
    /** The provider's own version text for that manifest (every answer names the current one). */
    manifestVersion: text("manifest_version").notNull(),
    /** Bumped by every change of manifest or status: built realms are cached by (id, version). */
    version: integer("version").notNull().default(1),
    /** AES-256-GCM of the signing secret (`<kid>.<sealed>`), bound to tenant + registration. */
    secretSealed: text("secret_sealed").notNull(),
    status: text("status", { enum: remoteProviderStatuses }).notNull().default("active"),
    /** Why it is unavailable (shown on its card): the manifest problems, in words. */
    statusReason: text("status_reason"),
    registeredBy: text("registered_by").references(() => users.id, { onDelete: "set null" }),
    /** `owner` (by URL) or `token` (the provider registered itself). */
    registeredVia: text("registered_via").notNull(),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("remote_providers_tenant_namespace").on(t.tenantId, t.namespace),
    check("remote_providers_status_check", sql`${t.status} in ('active', 'unavailable')`),
  ],
);
export type RemoteProvider = typeof remoteProviders.$inferSelect;

/** One-time registration tokens an owner mints for a provider to register itself (only the SHA-256 is kept). */
export const remoteRegistrationTokens = pgTable(
  "remote_registration_tokens",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    createdBy: text("created_by").notNull().references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestampCol("expires_at").notNull(),
    usedAt: timestampCol("used_at"),
    /** The registration it made. */
    providerId: text("provider_id").references(() => remoteProviders.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("remote_registration_tokens_hash").on(t.tokenHash), index("remote_registration_tokens_tenant").on(t.tenantId)],
);
