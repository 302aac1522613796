// recordConsentRequest: one statement finds the live request for this very ask and counts it again, or makes a new
// one (with its audit record). What a person approves is what the asking call asked: a different ask is a new request.
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, consentRequests } from "@/db/schema";
import { env } from "@/lib/env";
import { makeActor, makeTenant, type TestTenant } from "@/test-support";
import { recordConsentRequest } from "./consent";

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant({ alice: "owner" });
});

type Ask = Partial<Parameters<typeof recordConsentRequest>[1]>;

describe("recordConsentRequest", () => {
  let actorId: string;
  const ask = (over: Ask = {}) =>
    t.db.transaction((tx) =>
      recordConsentRequest(tx, {
        tenantId: t.tenantId,
        actorId,
        grantorId: t.users.alice!.userId,
        namespace: "docs",
        operations: ["object.get"],
        ref: "docs:document:doc_consent1",
        requestId: "req_consent",
        ...over,
      }),
    );
  const row = async (id: string) => (await t.db.select().from(consentRequests).where(eq(consentRequests.id, id)))[0]!;
  const requested = async (id: string) =>
    (await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "consent.requested"), eq(auditEvents.subjectId, id)))).length;

  beforeAll(async () => {
    actorId = (await makeActor(t, t.users.alice!, "Consent asker")).actorId;
  });

  it("a first ask makes a pending request, as asked, audited once; asking again counts it, keeps the latest input, audits nothing more", async () => {
    const now = new Date(Date.now() - 60_000);
    const first = await ask({ operations: ["object.get", "object.get"], namedRefs: ["docs:document:doc_b", "docs:document:doc_a", "docs:document:doc_consent1"], callInput: { ref: "docs:document:doc_consent1", v: 1 }, now });
    expect(first.created).toBe(true);
    const made = await row(first.id);
    expect(made).toMatchObject({
      status: "pending",
      attempts: 1,
      operations: ["object.get"],
      ref: "docs:document:doc_consent1",
      // Sorted, without duplicates or the target.
      namedRefs: ["docs:document:doc_a", "docs:document:doc_b"],
      input: { value: { ref: "docs:document:doc_consent1", v: 1 } },
    });
    expect(made.createdAt.getTime()).toBe(now.getTime());
    expect(made.expiresAt!.getTime()).toBe(now.getTime() + env().REALMGATE_CONSENT_REQUEST_TTL);
    expect(await requested(first.id)).toBe(1);

    const later = new Date();
    const again = await ask({ operations: ["object.get"], namedRefs: ["docs:document:doc_a", "docs:document:doc_b"], callInput: { ref: "docs:document:doc_consent1", v: 2 }, now: later });
    expect(again).toEqual({ id: first.id, created: false });
    const counted = await row(first.id);
    expect(counted).toMatchObject({ attempts: 2, input: { value: { ref: "docs:document:doc_consent1", v: 2 } } });
    expect(counted.lastAttemptAt.getTime()).toBe(later.getTime());
    // An ask without an input keeps the one shown.
    await ask({ namedRefs: ["docs:document:doc_b", "docs:document:doc_a"] });
    expect(await row(first.id)).toMatchObject({ attempts: 3, input: { value: { v: 2 } } });
    expect(await requested(first.id)).toBe(1);
  });

  it("another operation set, target or namespace is another request", async () => {
    const base = await ask({ ref: "docs:document:doc_consent2" });
    expect((await ask({ ref: "docs:document:doc_consent2", operations: ["object.get", "object.upsert"] })).id).not.toBe(base.id);
    expect((await ask({ ref: "docs:document:doc_consent3" })).id).not.toBe(base.id);
    expect((await ask({ ref: null })).id).not.toBe(base.id);
    expect((await ask({ ref: "docs:document:doc_consent2", namespace: "memory" })).id).not.toBe(base.id);
    expect(await ask({ ref: "docs:document:doc_consent2" })).toEqual({ id: base.id, created: false });
  });

  it("a request that expired, or was decided, is never counted again: the next ask makes a new one", async () => {
    const old = await ask({ ref: "docs:document:doc_consent4", now: new Date(Date.now() - env().REALMGATE_CONSENT_REQUEST_TTL - 60_000) });
    const fresh = await ask({ ref: "docs:document:doc_consent4" });
    expect(fresh.created).toBe(true);
    expect(fresh.id).not.toBe(old.id);
    expect((await row(old.id)).attempts).toBe(1);
    await t.db.update(consentRequests).set({ status: "denied" }).where(eq(consentRequests.id, fresh.id));
    const after = await ask({ ref: "docs:document:doc_consent4" });
    expect(after.created).toBe(true);
    expect((await row(fresh.id)).attempts).toBe(1);
  });
});
