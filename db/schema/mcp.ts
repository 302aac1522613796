// The MCP gateway's OAuth 2.1 state: registered or discovered clients, single-use authorization codes,
// rotating refresh tokens grouped in families, and the tallies of the rate limiter.
// Codes and refresh tokens are stored only as SHA-256 hashes.
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, idColumn, timestampCol } from "./columns";
import { actors } from "./authz";
import { tenants, users } from "./tenancy";

export const mcpClientRegistrations = ["dcr", "cimd"] as const;

/**
 * OAuth clients. Not tenant data: a client exists before anyone signs in. `dcr` rows are created by dynamic
 * client registration (RFC 7591); `cimd` rows are the last fetched Client ID Metadata Document, kept for
 * display only — the document is fetched again on every authorization request.
 */
export const mcpClients = pgTable(
  "mcp_clients",
  {
    id: idColumn(),
    /** `cli_…` for registered clients; the https URL of the metadata document for `cimd`. */
    clientId: text("client_id").notNull().unique(),
    registration: text("registration", { enum: mcpClientRegistrations }).notNull(),
    clientName: text("client_name").notNull(),
    redirectUris: text("redirect_uris").array().notNull(),
    /** The client metadata as accepted (bounded, unknown fields dropped). */
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    fetchedAt: timestampCol("fetched_at"),
  },
  (t) => [check("mcp_clients_registration_check", sql`${t.registration} in ('dcr', 'cimd')`)],
);
export type McpClient = typeof mcpClients.$inferSelect;

/** Authorization codes: hashed, single use, short-lived; bound to client, redirect URI, PKCE challenge and resource. */
export const mcpAuthorizationCodes = pgTable(
  "mcp_authorization_codes",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull().unique(),
    clientId: text("client_id").notNull(),
    actorId: text("actor_id").notNull().references(() => actors.id, { onDelete: "cascade" }),
    grantorId: text("grantor_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    resource: text("resource").notNull(),
    scope: text("scope").notNull(),
    /** The refresh-token family this code started (set on first use, so a replayed code can revoke it). */
    familyId: text("family_id"),
    expiresAt: timestampCol("expires_at").notNull(),
    usedAt: timestampCol("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("mcp_codes_actor").on(t.actorId)],
);
export type McpAuthorizationCode = typeof mcpAuthorizationCodes.$inferSelect;

/**
 * Refresh tokens. Every use rotates: the used row gets `rotated_at` and a new row joins the same family.
 * Presenting a rotated token again is reuse: the whole family is revoked (and with it its access tokens,
 * which carry the family id and are checked against it on every request).
 */
export const mcpRefreshTokens = pgTable(
  "mcp_refresh_tokens",
  {
    id: idColumn(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id, { onDelete: "cascade" }),
    familyId: text("family_id").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    clientId: text("client_id").notNull(),
    actorId: text("actor_id").notNull().references(() => actors.id, { onDelete: "cascade" }),
    resource: text("resource").notNull(),
    scope: text("scope").notNull(),
    expiresAt: timestampCol("expires_at").notNull(),
    rotatedAt: timestampCol("rotated_at"),
    /**
     * Set on every live token of the family when a call needed a scope the connection lacks: the next refresh
     * answers invalid_grant (the step-up signal), so the client authorizes again asking for this scope.
     */
    stepUpScope: text("step_up_scope"),
    revokedAt: timestampCol("revoked_at"),
    revokeReason: text("revoke_reason"),
    createdAt: createdAt(),
  },
  (t) => [index("mcp_refresh_family").on(t.familyId), index("mcp_refresh_actor").on(t.actorId)],
);
export type McpRefreshToken = typeof mcpRefreshTokens.$inferSelect;

/**
 * The rate limiter's tallies (app nodes are stateless, so the limiter lives here): weights counted into fixed
 * windows per bucket (`calls:<principal id>`, `register:<client address>`); a window's count is the sum of its
 * tallies. A check adds to a tally no open transaction holds (SKIP LOCKED) or starts one, so an actor's concurrent
 * calls never wait on each other and a bucket has about one tally per call in flight at once (a few more when two
 * checks race for one). Expired tallies are deleted a few at a time by later checks (SKIP LOCKED: none waits).
 */
export const rateLimitHits = pgTable(
  "rate_limit_hits",
  {
    bucket: text("bucket").notNull(),
    windowStart: timestampCol("window_start").notNull(),
    weight: integer("weight").notNull(),
    /** The end of the tally's window: past it, the tally counts for nothing and may be deleted. */
    expiresAt: timestampCol("expires_at").notNull(),
  },
  (t) => [index("rate_limit_hits_bucket").on(t.bucket, t.windowStart), index("rate_limit_hits_expires").on(t.expiresAt)],
);
