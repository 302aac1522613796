// Helpers for testing a provider: an authorization context and a call signed exactly as Realmgate signs one, so
// a team can exercise its handlers through the real verification (see README.md). Node built-ins only.
import { randomUUID } from "node:crypto";
import { MAX_CONTEXT_SECONDS, signedHeaders } from "./protocol";
import type { AuthContext } from "./types";

/** A valid context for a registration: issued now, expiring MAX_CONTEXT_SECONDS later, a fresh request id. */
export function testContext(opts: { registrationId: string; tenantId: string; now?: Date } & Partial<AuthContext>): AuthContext {
  const { registrationId, tenantId, now = new Date(), ...overrides } = opts;
  return {
    tenant_id: tenantId,
    registration_id: registrationId,
    actor: { id: "act_test", kind: "hosted_agent", name: "Test agent" },
    grantor: { id: "usr_test", email: "grantor@example.test" },
    operation: "object.get",
    scope: null,
    request_id: `req_${randomUUID()}`,
    issued_at: now.toISOString(),
    expires_at: new Date(now.getTime() + MAX_CONTEXT_SECONDS * 1000).toISOString(),
    manifest_version: "1",
    ...overrides,
  };
}

/** A POST to `path` with `{ context, input }` as its body, signed with the registration's secret. */
export function signedCall(opts: { secret: string; registrationId: string; path: string; context: AuthContext; input: unknown; now?: Date }): {
  method: "POST";
  path: string;
  headers: Record<string, string>;
  body: string;
} {
  const body = JSON.stringify({ context: opts.context, input: opts.input });
  const headers = signedHeaders({ secret: opts.secret, registrationId: opts.registrationId, method: "POST", path: opts.path, body, now: opts.now });
  return { method: "POST", path: opts.path, headers, body };
}
