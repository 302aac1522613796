import { eq, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { describe, expect, it } from "vitest";
import { dbKind } from "@/db/client";
import { auditHeads, tenants } from "@/db/schema";
import { newId } from "@/lib/ids";
import { makeTenant, roundTrips } from "@/test-support";
import { listAuditEvents, listAuditQuery } from "./query";
import { GENESIS_HASH, laneColumn, laneCte, leaseLane, MAX_LANES, recordAudit } from "./record";
import { verifyAuditChain } from "./verify";

const onPostgres = (await dbKind()) === "postgres";

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
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, checked: 5, records: 5 });
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

  it("keeps every lane unforked under concurrent writers: each lane's records are #1 to #n, linked, and all verify", async () => {
    const t = await makeTenant({ alice: "owner" });
    const written = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.db.transaction((tx) => recordAudit(tx, { tenantId: t.tenantId, event: "tool.call", principal: { type: "system" }, outcome: "ok", details: { i } })),
      ),
    );
    expectGapless(written);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, checked: 20, records: 20 });
  });

  it("a tenant's first records, written concurrently, open its lanes once each: no lane forks", async () => {
    const t = await makeTenant({ alice: "owner" });
    const tenantId = newId("tnt");
    await t.db.insert(tenants).values({ id: tenantId, slug: tenantId.toLowerCase(), name: "First records" });
    expect(await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId))).toEqual([]);
    const written = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.db.transaction((tx) => recordAudit(tx, { tenantId, event: "tool.call", principal: { type: "system" }, outcome: "ok", details: { i } }))),
    );
    expectGapless(written);
    const heads = await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId));
    expect(heads.map((h) => h.lane).sort((a, b) => a - b)).toEqual(Array.from({ length: heads.length }, (_, i) => i));
    expect(await verifyAuditChain(t.db, tenantId)).toMatchObject({ ok: true, checked: 12, records: 12 });
  });
});

/** Within each lane the records written are #1, #2, … with no gap and no number twice. */
function expectGapless(written: { lane: number; seq: number }[]) {
  const byLane = new Map<number, number[]>();
  for (const w of written) byLane.set(w.lane, [...(byLane.get(w.lane) ?? []), w.seq]);
  for (const seqs of byLane.values()) expect(seqs.sort((a, b) => a - b)).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
}

const rec = (t: Awaited<ReturnType<typeof makeTenant>>, i: number) => ({ tenantId: t.tenantId, event: "tool.call" as const, principal: { type: "system" as const }, outcome: "ok" as const, details: { i } });

describe.skipIf(!onPostgres)("taking a lane (PostgreSQL: transactions at once)", () => {
  it(`with all ${MAX_LANES} lanes held, a writer is answered service_unavailable at once: it never waits for a lane`, async () => {
    const t = await makeTenant({ alice: "owner" });
    await t.db.insert(auditHeads).values(Array.from({ length: MAX_LANES }, (_, lane) => ({ tenantId: t.tenantId, lane, seq: 0, hash: GENESIS_HASH })));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const allLocked = new Promise<void>((r) => (locked = r));
    const holder = t.db.transaction(async (tx) => {
      await tx.select().from(auditHeads).where(eq(auditHeads.tenantId, t.tenantId)).for("update");
      locked();
      await held;
    });
    await allLocked;
    const started = Date.now();
    const err = await t.db.transaction((tx) => recordAudit(tx, rec(t, 1))).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "service_unavailable", details: { reason: "audit_lanes_busy", retry_hint: "retry_later" } });
    expect(Date.now() - started).toBeLessThan(2_000);
    release();
    await holder;
    // Free again: the next writer appends, and the trail still verifies.
    expect(await t.db.transaction((tx) => recordAudit(tx, rec(t, 2)))).toMatchObject({ lane: 0, seq: 1 });
    expect(await t.db.select().from(auditHeads).where(eq(auditHeads.tenantId, t.tenantId))).toHaveLength(MAX_LANES);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, records: 1 });
  });

  it("a call in flight holds its lane from gate one to COMMIT: another writer takes another lane at once", async () => {
    const t = await makeTenant({ alice: "owner" });
    await t.db.transaction((tx) => recordAudit(tx, rec(t, 0)));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let laneTaken!: () => void;
    const taken = new Promise<void>((r) => (laneTaken = r));
    const holder = t.db.transaction(async (tx) => {
      await takeAhead(tx, t.tenantId);
      laneTaken();
      await held;
      return recordAudit(tx, rec(t, 2));
    });
    await taken;
    // Lane 0 is held by the call in flight: this writer neither waits for it nor forks it.
    const second = await t.db.transaction((tx) => recordAudit(tx, rec(t, 1)));
    expect(second).toMatchObject({ lane: 1, seq: 1 });
    release();
    expect(await holder).toMatchObject({ lane: 0, seq: 2 });
    // Free again, the lowest lane is taken next.
    expect(await t.db.transaction((tx) => recordAudit(tx, rec(t, 3)))).toMatchObject({ lane: 0, seq: 3 });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, records: 4, lanes: [{ lane: 0 }, { lane: 1 }] });
  });

  it("a record appended and not yet committed: other writers go on, a reader of the trail waits for it and then sees it", async () => {
    const t = await makeTenant({ alice: "owner" });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let appended!: () => void;
    const first = new Promise<void>((r) => (appended = r));
    const holder = t.db.transaction(async (tx) => {
      await recordAudit(tx, rec(t, 0));
      appended();
      await held;
    });
    await first;
    // Numbered before the next writer's record, it has not committed: writers do not wait for it…
    await t.db.transaction((tx) => recordAudit(tx, rec(t, 1)));
    // …but a page read now would show the later record without it, and a reader paging on would never see it.
    const page = listAuditEvents(t.db, { ...t.users.alice!, requestId: "req_test" }, listAuditQuery.parse({ limit: 10 }));
    expect(await Promise.race([page.then(() => "read"), new Promise((r) => setTimeout(() => r("waiting"), 300))])).toBe("waiting");
    release();
    await holder;
    expect((await page).events.map((e) => e.details.i)).toEqual([1, 0]);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, records: 2 });
  });
});

/** What gate one's statement does: lock a free lane of the tenant and hand its head to the transaction's first record. */
const takeAhead = async (tx: Executor, tenantId: string) => {
  const r = (await tx.execute(sql`with ${laneCte(tenantId)} select ${laneColumn}`)) as unknown as { rows: { audit_lane: unknown }[] };
  leaseLane(tx, tenantId, r.rows[0]!.audit_lane);
};

describe("a lane taken ahead (gate one's statement takes it for a tool call)", () => {
  it("the first record uses it: one statement, no lane of its own to lock", async () => {
    const t = await chainOf(2);
    const sent = await t.db.transaction(async (tx) => {
      await takeAhead(tx, t.tenantId);
      const rt = roundTrips();
      await recordAudit(tx, rec(t, 3));
      return rt.stop();
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^with turn as \( select pg_advisory_xact_lock_shared.* insert into audit_events/);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, records: 3 });
  });

  it("is not used once a record was appended after it was read — in a savepoint too — so the lane never forks", async () => {
    const t = await chainOf(2);
    await t.db.transaction(async (tx) => {
      await takeAhead(tx, t.tenantId);
      // An effect's own record, in its savepoint, kept: the lane's head moved past what was leased.
      await tx.transaction((sp) => recordAudit(sp, rec(t, 3)));
      await recordAudit(tx, rec(t, 4));
    });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, records: 4 });
  });

  it("is not used for another tenant's record", async () => {
    const t = await chainOf(1);
    const u = await chainOf(1);
    await t.db.transaction(async (tx) => {
      await takeAhead(tx, t.tenantId);
      await recordAudit(tx, rec(u, 2));
    });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, records: 1 });
    expect(await verifyAuditChain(t.db, u.tenantId)).toMatchObject({ ok: true, records: 2 });
  });
});
