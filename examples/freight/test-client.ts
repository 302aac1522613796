// Test support: signed calls to a running freight provider over real HTTP, as Realmgate would make them (the
// kit's signedHeaders, a fresh request id and a 2-minute context each time). Not a test file itself.
import { randomUUID } from "node:crypto";
import { signedHeaders } from "../../provider-kit/protocol";
import type { Registration } from "../../provider-kit/server";
import type { AuthContext } from "../../provider-kit/types";

export const TEST_REGISTRATION: Registration = { registrationId: "rrp_test", tenantId: "ten_test", secret: "rgs_test_secret_0123456789abcdef" };

export type CallOptions = { email?: string; scope?: AuthContext["scope"]; operation?: string; registration?: Registration };
export type Answer = { status: number; body: { manifest_version?: string; result?: Record<string, unknown>; error?: { code: string; message: string; details?: Record<string, unknown> } } };

export function contextFor(opts: CallOptions = {}): AuthContext {
  const r = opts.registration ?? TEST_REGISTRATION;
  const issued = new Date();
  return {
    tenant_id: r.tenantId,
    registration_id: r.registrationId,
    actor: { id: "act_test", kind: "hosted_agent", name: "Dispatch helper" },
    grantor: { id: "usr_test", email: opts.email ?? "alice@acme.test" },
    operation: opts.operation ?? "object.get",
    scope: opts.scope ?? null,
    request_id: `req_${randomUUID()}`,
    issued_at: issued.toISOString(),
    expires_at: new Date(issued.getTime() + 120_000).toISOString(),
    manifest_version: "1",
  };
}

/** The raw response of one signed call (stream_file answers bytes, not JSON). */
export async function rawCall(baseUrl: string, op: string, input: Record<string, unknown>, opts: CallOptions = {}): Promise<Response> {
  const r = opts.registration ?? TEST_REGISTRATION;
  const path = `${new URL(baseUrl).pathname.replace(/\/+$/, "")}/ops/${op}`;
  const body = JSON.stringify({ context: contextFor(opts), input });
  return fetch(new URL(path, baseUrl), { method: "POST", headers: signedHeaders({ secret: r.secret, registrationId: r.registrationId, method: "POST", path, body }), body });
}

export async function call(baseUrl: string, op: string, input: Record<string, unknown>, opts: CallOptions = {}): Promise<Answer> {
  const res = await rawCall(baseUrl, op, input, opts);
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}
