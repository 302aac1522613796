// verifyCall: a call Realmgate signed passes; any change to what is signed, a stale or future clock, an expired
// or over-long context, another registration or tenant, a reused request id is refused with bad_signature.
import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { ProviderError } from "./errors";
import { HEADER_REGISTRATION, HEADER_SIGNATURE, HEADER_TIMESTAMP, sign, signedHeaders } from "./protocol";
import { ReplayCache } from "./replay";
import { signedCall, testContext } from "./testing";
import type { AuthContext } from "./types";
import { verifyCall, type VerifyOptions } from "./verify";

const secret = "rgs_test_secret";
const registrationId = "rrp_1";
const tenantId = "ten_1";
const now = new Date("2026-12-01T10:00:00.000Z");
const path = "/freight/ops/get";

function call(overrides: { context?: Partial<AuthContext>; input?: unknown; now?: Date } = {}) {
  const context = testContext({ registrationId, tenantId, now, ...overrides.context });
  return signedCall({ secret, registrationId, path, context, input: overrides.input ?? { ref: "freight:shipment:1", full: false }, now: overrides.now ?? now });
}

function verify(c: ReturnType<typeof call>, over: Partial<VerifyOptions> = {}) {
  return verifyCall({ secret, registrationId, tenantId, method: c.method, path: c.path, headers: c.headers, body: Buffer.from(c.body), replay: new ReplayCache(), now, ...over });
}

/** The refusal's message (failing the test when the call passes or fails otherwise). */
function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).code).toBe("bad_signature");
    expect((e as ProviderError).status).toBe(401);
    return (e as ProviderError).message;
  }
  throw new Error("the call was accepted");
}

describe("verifyCall", () => {
  it("accepts a signed call and returns its context and input", () => {
    const c = call();
    const out = verify(c);
    expect(out.context).toEqual(JSON.parse(c.body).context);
    expect(out.input).toEqual({ ref: "freight:shipment:1", full: false });
  });

  it("refuses a changed body, path, method, timestamp or secret", () => {
    const c = call();
    expect(refusal(() => verify({ ...c, body: c.body.replace("shipment:1", "shipment:2") }))).toMatch(/signature does not match/);
    expect(refusal(() => verify(c, { path: "/freight/ops/delete" }))).toMatch(/signature does not match/);
    expect(refusal(() => verify(c, { method: "PUT" }))).toMatch(/signature does not match/);
    const ts = Number(c.headers[HEADER_TIMESTAMP]) + 1;
    expect(refusal(() => verify({ ...c, headers: { ...c.headers, [HEADER_TIMESTAMP]: String(ts) } }))).toMatch(/signature does not match/);
    expect(refusal(() => verify(c, { secret: "rgs_other" }))).toMatch(/signature does not match/);
  });

  it("refuses missing, repeated or malformed headers", () => {
    const c = call();
    for (const h of [HEADER_REGISTRATION, HEADER_TIMESTAMP, HEADER_SIGNATURE]) {
      const headers: Record<string, string> = { ...c.headers };
      delete headers[h];
      expect(refusal(() => verify({ ...c, headers }))).toBe(`missing header ${h}`);
    }
    expect(refusal(() => verify(c, { headers: { ...c.headers, [HEADER_SIGNATURE]: [c.headers[HEADER_SIGNATURE]!, c.headers[HEADER_SIGNATURE]!] } }))).toMatch(/sent once/);
    expect(refusal(() => verify({ ...c, headers: { ...c.headers, [HEADER_SIGNATURE]: "v2=abc" } }))).toMatch(/must be v1=/);
    expect(refusal(() => verify({ ...c, headers: { ...c.headers, [HEADER_TIMESTAMP]: "1.5" } }))).toMatch(/integer/);
    expect(refusal(() => verify({ ...c, headers: { ...c.headers, [HEADER_TIMESTAMP]: `0${c.headers[HEADER_TIMESTAMP]}` } }))).toMatch(/integer/);
  });

  it("refuses a timestamp more than 300 s from the clock, either way", () => {
    expect(() => verify(call({ now: new Date(now.getTime() - 300_000) }))).not.toThrow();
    expect(refusal(() => verify(call({ now: new Date(now.getTime() - 301_000) })))).toMatch(/300 s from/);
    expect(refusal(() => verify(call({ now: new Date(now.getTime() + 301_000) })))).toMatch(/300 s from/);
  });

  it("refuses an expired context", () => {
    const issued = new Date(now.getTime() - 200_000);
    const c = call({ context: { issued_at: issued.toISOString(), expires_at: now.toISOString() } });
    expect(refusal(() => verify(c))).toBe("the context has expired");
  });

  it("refuses a context living longer than 300 s, or issued in the future", () => {
    const long = call({ context: { expires_at: new Date(now.getTime() + 301_000).toISOString() } });
    expect(refusal(() => verify(long))).toMatch(/within 300 s/);
    const future = new Date(now.getTime() + 301_000);
    const early = call({ context: { issued_at: future.toISOString(), expires_at: new Date(future.getTime() + 10_000).toISOString() } });
    expect(refusal(() => verify(early))).toBe("the context was issued in the future");
  });

  it("refuses a replayed request id, and a forged copy does not burn the real one", () => {
    const replay = new ReplayCache();
    const real = call();
    const forged = { ...real, headers: { ...real.headers, [HEADER_SIGNATURE]: `v1=${"0".repeat(64)}` } };
    expect(refusal(() => verify(forged, { replay }))).toMatch(/signature does not match/);
    // A forgery with a valid signature but another tenant (a stolen secret of another deployment, say) neither.
    expect(refusal(() => verify(real, { replay, tenantId: "ten_other" }))).toMatch(/another tenant/);
    expect(() => verify(real, { replay })).not.toThrow();
    expect(refusal(() => verify(real, { replay }))).toMatch(/request id was seen before/);
    expect(replay.size).toBe(1);
  });

  it("refuses another registration, in the header or in the context", () => {
    const c = call();
    expect(refusal(() => verify(c, { registrationId: "rrp_2" }))).toBe("the call names another registration");
    const context = testContext({ registrationId: "rrp_2", tenantId, now });
    const body = JSON.stringify({ context, input: {} });
    const headers = signedHeaders({ secret, registrationId, method: "POST", path, body, now });
    expect(refusal(() => verify({ method: "POST", path, headers, body }))).toBe("the context names another registration");
  });

  it("refuses another tenant, and skips the tenant check when none is given", () => {
    const c = call({ context: { tenant_id: "ten_2" } });
    expect(refusal(() => verify(c))).toBe("the context names another tenant");
    expect(() => verify(c, { tenantId: undefined })).not.toThrow();
  });

  it("refuses a body that is not { context, input } or a context of the wrong shape", () => {
    const signedBody = (body: string) => ({ method: "POST" as const, path, body, headers: signedHeaders({ secret, registrationId, method: "POST", path, body, now }) });
    expect(refusal(() => verify(signedBody("not json")))).toBe("the body is not JSON");
    expect(refusal(() => verify(signedBody(JSON.stringify({ context: testContext({ registrationId, tenantId, now }) }))))).toMatch(/\{ context, input \}/);
    const good = testContext({ registrationId, tenantId, now });
    const bad: [string, unknown][] = [
      ["actor", { id: "act_1", kind: "hosted_agent" }],
      ["grantor", null],
      ["scope", { kinds: ["freight.shipment"] }],
      ["issued_at", "yesterday"],
      ["expires_at", 1796119200],
      ["request_id", ""],
    ];
    for (const [field, value] of bad) {
      const body = JSON.stringify({ context: { ...good, [field]: value }, input: {} });
      expect(refusal(() => verify(signedBody(body)))).toContain(`context.${field}`);
    }
    const noScope: Record<string, unknown> = { ...good };
    delete noScope.scope;
    expect(refusal(() => verify(signedBody(JSON.stringify({ context: noScope, input: {} }))))).toContain("context.scope");
    const scoped = JSON.stringify({ context: { ...good, scope: { refs: ["freight:shipment:1"] } }, input: {} });
    expect(verify(signedBody(scoped)).context.scope).toEqual({ refs: ["freight:shipment:1"] });
  });

  it("checks the signature with the exact bytes received", () => {
    const body = JSON.stringify({ context: testContext({ registrationId, tenantId, now }), input: {} });
    const ts = Math.floor(now.getTime() / 1000);
    const headers = { [HEADER_REGISTRATION]: registrationId, [HEADER_TIMESTAMP]: String(ts), [HEADER_SIGNATURE]: sign(secret, "POST", path, ts, `${body} `) };
    expect(refusal(() => verify({ method: "POST", path, headers, body }))).toMatch(/signature does not match/);
    expect(() => verify({ method: "POST", path, headers, body: `${body} ` })).not.toThrow();
  });
});
