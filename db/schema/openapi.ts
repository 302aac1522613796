// Imported OpenAPI services (realm_type "openapi"): the realm row with its stored document and encrypted
// credential, one light card + execution plan per operation, and the owner's curation of operations
// (kept apart from the cards so it survives a re-import).
import { sql } from "drizzle-orm";
import { boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";
import { tenants, users } from "./tenancy";

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (v) => (v instanceof Uint8Array ? v : new Uint8Array(v as ArrayBufferLike)),
});

export const openapiRealms = pgTable(
  "openapi_realms",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    namespace: text("namespace").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    /** Words that help capability search find this service (owner-supplied). */
    keywords: text("keywords").array().notNull().default(sql`'{}'::text[]`),
    baseUrl: text("base_url").notNull(),
    /** How the document arrived: `upload`, `paste` or `url` (then `spec_url` says where from). */
    specSource: text("spec_source").notNull(),
    specUrl: text("spec_url"),
    specVersion: text("spec_version").notNull(),
    specSha256: text("spec_sha256").notNull(),
    /** The document as imported (canonical JSON, gzip): re-reads and audits never refetch it. */
    specGzip: bytea("spec_gzip").notNull(),
    operationCount: integer("operation_count").notNull(),
    /** Bumped by every re-import and curation change: manifest caches are keyed by (id, version). */
    version: integer("version").notNull().default(1),
    /** AES-256-GCM of the credential JSON (`v1.<iv>.<tag>.<ciphertext>`, base64url); null = none. */
    credentialSealed: text("credential_sealed"),
    credentialKind: text("credential_kind"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("openapi_realms_tenant_namespace").on(t.tenantId, t.namespace)],
);
export type OpenapiRealm = typeof openapiRealms.$inferSelect;

export const openapiOperations = pgTable(
  "openapi_operations",
  {
    realmId: text("realm_id").notNull().references(() => openapiRealms.id, { onDelete: "cascade" }),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    /** The action name: the operationId as written, or `METHOD/path` where there is none (or it is not a usable name). */
    action: text("action").notNull(),
    /** Position in the document, so manifests list operations in the author's order. */
    position: integer("position").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    /** The light card (lib/realms/openapi/compile.ts OperationCard). */
    card: jsonb("card").notNull(),
    /** The exact contract: input JSON Schema and how payload fields map onto the request. */
    contract: jsonb("contract").notNull(),
  },
  (t) => [primaryKey({ columns: [t.realmId, t.action] }), index("openapi_operations_tenant").on(t.tenantId, t.realmId, t.position)],
);
export type OpenapiOperation = typeof openapiOperations.$inferSelect;

export const openapiCurations = pgTable(
  "openapi_curations",
  {
    realmId: text("realm_id").notNull().references(() => openapiRealms.id, { onDelete: "cascade" }),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    action: text("action").notNull(),
    hidden: boolean("hidden").notNull().default(false),
    label: text("label"),
    keywords: text("keywords").array().notNull().default(sql`'{}'::text[]`),
    risk: text("risk", { enum: ["read", "write", "destructive"] }),
    exactGrantOnly: boolean("exact_grant_only").notNull().default(false),
    updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
    updatedAt: timestampCol("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.realmId, t.action] }), index("openapi_curations_tenant").on(t.tenantId, t.realmId)],
);
export type OpenapiCuration = typeof openapiCurations.$inferSelect;
