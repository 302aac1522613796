import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditHeads, tenants } from "@/db/schema";
import { newId } from "@/lib/ids";
import { makeTenant } from "@/test-support";
import { recordAudit } from "./record";
import { verifyAuditChain } from "./verify";

async function chainOf(n: number) {
  const t = await makeTenant({ alice: "owner" });
  for (let i = 0; i < n; i++) {
    await t.db.transaction((tx) =>
      recordAudit(tx, { tenantId: t.tenantId, event: "tool.call", principal: { type: "user", userId: t.users.alice!.userId }, outcome: "allow", details: { i, nested: { z: 1, a: [1, "x"] } } }),
    );
  }
  return t;
}

/** Edit or delete rows the way an attacker with table access would: with the append-only trigger disabled. */
async function tamper(db: Awaited<ReturnType<typeof makeTenant>>["db"], statement: ReturnType<typeof sql>) {
  await db.transaction(async (tx) => {
    await tx.execute(sql`alter table audit_events disable trigger audit_events_no_update_delete`);
    await tx.execute(statement);
    await tx.execute(sql`alter table audit_events enable trigger audit_events_no_update_delete`);
  });
}

describe("the audit hash chain", () => {
  it("verifies an untouched chain", async () => {
    const t = await chainOf(5);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, checked: 5, head_seq: 5 });
  });

  it("refuses UPDATE and DELETE on audit rows", async () => {
    const t = await chainOf(1);
    await expect(t.db.execute(sql`update audit_events set outcome = 'deny' where tenant_id = ${t.tenantId}`)).rejects.toThrow();
    await expect(t.db.execute(sql`delete from audit_events where tenant_id = ${t.tenantId}`)).rejects.toThrow();
    expect((await verifyAuditChain(t.db, t.tenantId)).ok).toBe(true);
  });

  it("names an edited row as the first broken link", async () => {
    const t = await chainOf(5);
    await tamper(t.db, sql`update audit_events set outcome = 'deny' where tenant_id = ${t.tenantId} and seq = 3`);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, checked: 2, first_broken: { seq: 3, reason: "edited" } });
  });

  it("detects an edited detail even when the hash column is recomputed naively", async () => {
    const t = await chainOf(4);
    await tamper(t.db, sql`update audit_events set details = '{"i": 99}'::jsonb, hash = md5('x') where tenant_id = ${t.tenantId} and seq = 2`);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, first_broken: { seq: 2 } });
  });

  it("names a deleted row", async () => {
    const t = await chainOf(5);
    await tamper(t.db, sql`delete from audit_events where tenant_id = ${t.tenantId} and seq = 2`);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, checked: 1, first_broken: { seq: 2, reason: "missing" } });
  });

  it("notices a deleted tail", async () => {
    const t = await chainOf(3);
    await tamper(t.db, sql`delete from audit_events where tenant_id = ${t.tenantId} and seq = 3`);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, first_broken: { seq: 3, reason: "truncated" } });
  });

  it("keeps one unforked chain under concurrent writers", async () => {
    const t = await makeTenant({ alice: "owner" });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.db.transaction((tx) => recordAudit(tx, { tenantId: t.tenantId, event: "tool.call", principal: { type: "system" }, outcome: "ok", details: { i } })),
      ),
    );
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, checked: 20, head_seq: 20 });
  });

  it("a tenant's first records, written concurrently, start one chain: the head is created once", async () => {
    const t = await makeTenant({ alice: "owner" });
    const tenantId = newId("tnt");
    await t.db.insert(tenants).values({ id: tenantId, slug: tenantId.toLowerCase(), name: "First records" });
    expect(await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId))).toEqual([]);
    const seqs = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.db.transaction((tx) => recordAudit(tx, { tenantId, event: "tool.call", principal: { type: "system" }, outcome: "ok", details: { i } }))),
    );
    expect(seqs.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(await verifyAuditChain(t.db, tenantId)).toMatchObject({ ok: true, checked: 12, head_seq: 12 });
  });
});
