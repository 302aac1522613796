// Test support: signed calls to a running freight provider over real HTTP, as Realmgate would make them (the
// kit's signedHeaders, a fresh request id and a 2-minute context each time), with every JSON answer checked
// against the protocol's JSON Schemas (docs/provider-protocol/answer.json). Not a test file itself.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
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

const SCHEMA_DIR = path.resolve(import.meta.dirname, "../../docs/provider-protocol");
let schemas: Ajv2020 | null = null;

/** The protocol's schemas, loaded once (the same files Realmgate's side and the kit's tests use). */
export function protocolSchemas(): Ajv2020 {
  if (schemas) return schemas;
  const a = new Ajv2020({ strict: true, allErrors: true });
  addFormats(a);
  for (const f of ["context.json", "call.json", "answer.json", "registration.json", "manifest.json", "manifest-document.json"]) a.addSchema(JSON.parse(readFileSync(path.join(SCHEMA_DIR, f), "utf8")));
  schemas = a;
  return a;
}

const explain = (v: ValidateFunction) => JSON.stringify(v.errors?.slice(0, 5));

/** Throws when an answer breaks the protocol: its envelope (answer.json), and a success's result for its operation. */
export function checkAnswer(op: string, status: number, body: unknown): void {
  const a = protocolSchemas();
  const envelope = a.getSchema("answer.json")!;
  if (!envelope(body)) throw new Error(`${op} answer (HTTP ${status}) breaks answer.json: ${explain(envelope)}`);
  if (status === 200) {
    const result = a.getSchema(`answer.json#/$defs/results/${op}`);
    if (result && !result((body as { result: unknown }).result)) throw new Error(`${op} result breaks answer.json#/$defs/results/${op}: ${explain(result)}`);
  }
}

export async function call(baseUrl: string, op: string, input: Record<string, unknown>, opts: CallOptions = {}): Promise<Answer> {
  const res = await rawCall(baseUrl, op, input, opts);
  const body = (await res.json()) as Answer["body"];
  // The kit's own 401 bad_signature is outside the protocol's codes (Realmgate treats it as provider_unavailable).
  if (res.status !== 401) checkAnswer(op, res.status, body);
  return { status: res.status, body };
}
