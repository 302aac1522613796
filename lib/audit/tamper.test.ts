// The keyed audit chain against the attacks it exists for. Each tampering goes the way an operator (or a
// role with only the app's rights) would: SQL on the tables, with the append-only triggers disabled on purpose
// where the attack needs UPDATE or DELETE. Checkpoints go to a temporary digest store.
import { spawnSync } from "node:child_process";
import { createHash, createHmac, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, asc, eq, gte, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb, type Db, type Executor } from "@/db/client";
import { envOverride, makeTenant, type TestTenant } from "@/test-support";
import { auditCheckpoints, auditEvents, auditHeads, type AuditEventRow } from "@/db/schema";
import { parseEnv } from "@/lib/env";
import { newId } from "@/lib/ids";
import { canonicalJson } from "@/lib/canonical-json";
import { checkCheckpoint, GENESIS_LINK, hashedPayload, linkHash, macOf } from "./chain";
import { readDigestStore, writeDueCheckpoints, type CheckpointOptions } from "./checkpoints";
import { exportAuditLines, verifyExportFile } from "./export";
import { auditKeyring, auditSigner } from "./keys";
import { appendOnLane, recordAudit, type LaneHead } from "./record";
import { verifyAuditChain } from "./verify";

const env = envOverride();
let dir: string;
const forger = "realmgate_test_forger";

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "realmgate-audit-test-"));
  env.set({ REALMGATE_AUDIT_DIGEST_DIR: dir });
  await getDb(); // opening (and migrating) the worker's database is not part of any test's time
});

afterAll(async () => {
  env.restore();
  fs.rmSync(dir, { recursive: true, force: true });
  const db = await getDb();
  await db.execute(sql.raw(`do $$ begin
    if exists (select 1 from pg_roles where rolname = '${forger}') then
      revoke all on audit_events, audit_heads from ${forger};
      revoke all on sequence audit_events_pos_seq from ${forger};
      drop role ${forger};
    end if;
  exception when others then null; end $$`));
});

const quiet: CheckpointOptions = { log: () => {} };
const checkpoint = (db: Db, at = new Date(), opts: CheckpointOptions = {}) => writeDueCheckpoints(db, { ...quiet, now: () => at, ...opts });

async function append(t: TestTenant, n: number, from = 0) {
  await t.db.transaction(async (tx) => {
    for (let i = from; i < from + n; i++) {
      await recordAudit(tx, { tenantId: t.tenantId, event: "tool.call", principal: { type: "user", userId: t.users.alice!.userId }, outcome: "allow", details: { i, nested: { z: 1, a: [1, "x"] } } });
    }
  });
}

async function chainOf(n: number) {
  const t = await makeTenant({ alice: "owner" });
  await append(t, n);
  return t;
}

/** Lane 0's records from `from` on (records appended one transaction after another all go to lane 0). */
const rows = (db: Executor, tenantId: string, from = 1): Promise<AuditEventRow[]> =>
  db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.lane, 0), gte(auditEvents.seq, from))).orderBy(asc(auditEvents.seq));

/** An operator's edit: the append-only triggers disabled on purpose, for this transaction only. */
async function asOperator(db: Db, fn: (tx: Executor) => Promise<void>) {
  await db.transaction(async (tx) => {
    await tx.execute(sql`alter table audit_events disable trigger audit_events_no_update_delete`);
    await tx.execute(sql`alter table audit_checkpoints disable trigger audit_checkpoints_no_update_delete`);
    await fn(tx);
    await tx.execute(sql`alter table audit_checkpoints enable trigger audit_checkpoints_no_update_delete`);
    await tx.execute(sql`alter table audit_events enable trigger audit_events_no_update_delete`);
  });
}

/** A role with the rights the app needs (read and insert audit rows, move the head), and no more. */
async function asAppRole(db: Db, fn: (tx: Executor) => Promise<void>) {
  await db.execute(sql.raw(`do $$ begin create role ${forger} nologin; exception when duplicate_object then null; end $$`));
  await db.execute(sql.raw(`grant select, insert on audit_events to ${forger}`));
  await db.execute(sql.raw(`grant select, update on audit_heads to ${forger}`));
  await db.execute(sql.raw(`grant usage on sequence audit_events_pos_seq to ${forger}`));
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local role ${forger}`));
    await fn(tx);
  });
}

/** The `pos` a record added by hand takes: the next one, as the app would draw it. */
const nextPos = async (tx: Executor) =>
  Number(((await tx.execute(sql`select nextval('audit_events_pos_seq') as pos`)) as unknown as { rows: { pos: string }[] }).rows[0]!.pos);

const moveHead = (tx: Executor, tenantId: string, seq: number, hash: string, lane = 0) =>
  tx.update(auditHeads).set({ seq, hash }).where(and(eq(auditHeads.tenantId, tenantId), eq(auditHeads.lane, lane)));

/** The old attack: change one row, then recompute every later row's SHA-256 link (no key needed), and the head. */
async function rehashWithoutKey(tx: Executor, tenantId: string, fromSeq: number, details: Record<string, unknown>) {
  const list = await rows(tx, tenantId, fromSeq);
  let prev = list[0]!.prevHash;
  for (const r of list) {
    const next = { ...r, details: r.seq === fromSeq ? details : r.details, prevHash: prev };
    const hash = linkHash(next);
    await tx.update(auditEvents).set({ details: next.details, prevHash: prev, hash }).where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.seq, r.seq)));
    prev = hash;
  }
  await moveHead(tx, tenantId, list[list.length - 1]!.seq, prev);
}

/** An insider with the MAC key: change one row and re-MAC it and every later row properly, and the head. */
async function remacWithKey(tx: Executor, tenantId: string, fromSeq: number, details: Record<string, unknown>) {
  const { current } = auditKeyring();
  const list = await rows(tx, tenantId, fromSeq);
  let prev = list[0]!.prevHash;
  for (const r of list) {
    const next = { ...r, details: r.seq === fromSeq ? details : r.details, prevHash: prev };
    const hash = linkHash(next);
    const mac = macOf(current.key, current.kid, tenantId, r.lane, r.seq, prev, hash);
    await tx.update(auditEvents).set({ details: next.details, prevHash: prev, hash, kid: current.kid, mac }).where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.seq, r.seq)));
    prev = mac;
  }
  await moveHead(tx, tenantId, list[list.length - 1]!.seq, prev);
}

/** A plausible record that Realmgate did not write: right seq, right prev link, right SHA-256, no valid MAC. */
async function forge(tx: Executor, t: TestTenant, mac: "garbage" | "none", moveTheHead = true) {
  const [head] = await tx.select().from(auditHeads).where(and(eq(auditHeads.tenantId, t.tenantId), eq(auditHeads.lane, 0)));
  const row = {
    tenantId: t.tenantId,
    lane: 0,
    seq: head!.seq + 1,
    id: newId("evt"),
    at: new Date(),
    event: "grant.created",
    requestId: null,
    principalType: "user",
    userId: t.users.alice!.userId,
    actorId: null,
    namespace: "mail",
    operation: "messages.send",
    ref: null,
    outcome: "ok",
    gate: null,
    reason: null,
    subjectId: null,
    details: { forged: true },
    prevHash: head!.hash,
  };
  const hash = linkHash(row);
  const tag = mac === "garbage" ? randomBytes(32).toString("hex") : null;
  await tx.insert(auditEvents).values({ ...row, pos: await nextPos(tx), hash, kid: tag ? auditKeyring().current.kid : null, mac: tag });
  if (moveTheHead) await moveHead(tx, t.tenantId, row.seq, tag ?? hash);
  return row.seq;
}

describe("verify names each tampering", () => {
  it("an untouched chain verifies, sealed by a checkpoint", async () => {
    const t = await chainOf(6);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, checked: 6, records: 6, checkpoint: null, unsealed: 6 });
    await checkpoint(t.db);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, checked: 6, checkpoint: { seq: 6, in_table: true, in_digest_store: true }, unsealed: 0, warnings: [] });
    const [row] = await rows(t.db, t.tenantId);
    expect(row).toMatchObject({ kid: auditKeyring().current.kid, mac: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it("edited row: one row's details changed", async () => {
    const t = await chainOf(6);
    await checkpoint(t.db);
    await asOperator(t.db, async (tx) => {
      await tx.update(auditEvents).set({ details: { i: 99 } }).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.seq, 3)));
    });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "edited_row", checked: 2, first_broken: { seq: 3, reason: "edited", finding: "edited_row" } });
  });

  it("deleted row: a middle row removed", async () => {
    const t = await chainOf(6);
    await checkpoint(t.db);
    await asOperator(t.db, async (tx) => {
      await tx.delete(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.seq, 3)));
    });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "deleted_row", checked: 2, first_broken: { seq: 3, id: null, reason: "missing" } });
  });

  it("cut tail: the last rows deleted and the head moved back below a checkpoint — even with the table's checkpoints deleted too", async () => {
    const t = await chainOf(10);
    await checkpoint(t.db);
    await append(t, 2, 10);
    const cut = async (also: (tx: Executor) => Promise<void>) =>
      asOperator(t.db, async (tx) => {
        const [seven] = await rows(tx, t.tenantId, 7);
        await tx.delete(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), gte(auditEvents.seq, 8)));
        await moveHead(tx, t.tenantId, 7, seven!.mac!);
        await also(tx);
      });
    await cut(async () => {});
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "cut_tail", checked: 7, records: 7, first_broken: { seq: 8, reason: "truncated" } });
    // The operator also removes the checkpoints they can reach: the digest store outside the database still tells.
    await cut(async (tx) => {
      await tx.delete(auditCheckpoints).where(eq(auditCheckpoints.tenantId, t.tenantId));
    });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({
      ok: false,
      finding: "cut_tail",
      checkpoint: { seq: 10, in_table: false, in_digest_store: true },
      first_broken: { seq: 8 },
    });
  });

  it("the one undetectable window: a cut tail that does not reach a checkpoint looks like nothing happened since", async () => {
    const t = await chainOf(10);
    await checkpoint(t.db);
    await append(t, 3, 10);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, unsealed: 3 });
    await asOperator(t.db, async (tx) => {
      const [ten] = await rows(tx, t.tenantId, 10);
      await tx.delete(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), gte(auditEvents.seq, 11)));
      await moveHead(tx, t.tenantId, 10, ten!.mac!);
    });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, records: 10, unsealed: 0 });
  });

  it("rewritten history: a row changed and every later row re-hashed with SHA-256 (the old attack), with or without a checkpoint", async () => {
    for (const sealed of [true, false]) {
      const t = await chainOf(8);
      if (sealed) await checkpoint(t.db);
      await asOperator(t.db, (tx) => rehashWithoutKey(tx, t.tenantId, 3, { i: 2, rewritten: true }));
      expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "rewritten_history", checked: 2, first_broken: { seq: 3, reason: "rewritten" } });
    }
  });

  it("rewritten history with the MAC key: every row verifies, but the chain is not the one the checkpoint signed", async () => {
    const t = await chainOf(4);
    await checkpoint(t.db);
    await append(t, 4, 4);
    await checkpoint(t.db, new Date(Date.now() + 10 * 60_000));
    expect((await verifyAuditChain(t.db, t.tenantId)).checkpoint?.seq).toBe(8);
    await asOperator(t.db, (tx) => remacWithKey(tx, t.tenantId, 6, { i: 5, rewritten: true }));
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "rewritten_history", checked: 4, first_broken: { seq: 5, reason: "rewritten" } });
  });

  it("forged insert with only the app's rights (INSERT, UPDATE on the head): garbage MAC, no MAC, built upon, or beyond the head", async () => {
    const cases = [
      { mac: "garbage" as const, moveTheHead: true, appendAfter: false },
      { mac: "none" as const, moveTheHead: true, appendAfter: false },
      { mac: "garbage" as const, moveTheHead: true, appendAfter: true },
      { mac: "garbage" as const, moveTheHead: false, appendAfter: false },
    ];
    for (const c of cases) {
      const t = await chainOf(5);
      await checkpoint(t.db);
      let seq = 0;
      await asAppRole(t.db, async (tx) => {
        seq = await forge(tx, t, c.mac, c.moveTheHead);
      });
      if (c.appendAfter) await append(t, 2, 100);
      expect(seq).toBe(6);
      expect(await verifyAuditChain(t.db, t.tenantId), JSON.stringify(c)).toMatchObject({ ok: false, finding: "forged_insert", checked: 5, first_broken: { seq: 6, reason: "forged" } });
    }
    // And the role really is limited: it cannot rewrite rows.
    const t = await chainOf(1);
    await expect(asAppRole(t.db, async (tx) => void (await tx.update(auditEvents).set({ outcome: "deny" }).where(eq(auditEvents.tenantId, t.tenantId))))).rejects.toThrow();
  });

  it("a checkpoint is never written over a chain that does not verify, and a forged checkpoint is named", async () => {
    const t = await chainOf(3);
    await asAppRole(t.db, async (tx) => void (await forge(tx, t, "garbage")));
    const run = await checkpoint(t.db);
    expect(run.written.filter((c) => c.tenant_id === t.tenantId)).toEqual([]);
    expect(run.refused.find((r) => r.tenant_id === t.tenantId)?.broken).toMatchObject({ finding: "forged_insert", seq: 4 });

    const u = await chainOf(3);
    const [three] = await rows(u.db, u.tenantId, 3);
    await u.db.insert(auditCheckpoints).values({ tenantId: u.tenantId, seq: 3, mac: three!.mac!, at: new Date(), kid: auditSigner().current.kid, sig: randomBytes(64).toString("base64url") });
    expect(await verifyAuditChain(u.db, u.tenantId)).toMatchObject({ ok: false, finding: "forged_insert", first_broken: { seq: 3 } });
  });
});

describe("the legacy prefix", () => {
  /** Rows in the format written before the keyed chain: SHA-256 links only, no kid, no MAC. */
  async function legacyChain(n: number) {
    const t = await makeTenant({ alice: "owner" });
    let prev = "0".repeat(64);
    for (let seq = 1; seq <= n; seq++) {
      const row = {
        tenantId: t.tenantId,
        lane: 0,
        seq,
        id: newId("evt"),
        at: new Date(Date.now() - (n - seq) * 1000),
        event: "tool.call",
        requestId: null,
        principalType: "user",
        userId: t.users.alice!.userId,
        actorId: null,
        namespace: "mail",
        operation: "messages.list",
        ref: null,
        outcome: "allow",
        gate: null,
        reason: null,
        subjectId: null,
        details: { legacy: seq },
        prevHash: prev,
      };
      prev = linkHash(row);
      await t.db.insert(auditEvents).values({ ...row, pos: await nextPos(t.db), hash: prev });
    }
    await t.db.insert(auditHeads).values({ tenantId: t.tenantId, seq: n, hash: prev });
    return t;
  }

  it("verifies with the old rule, then the MAC chain from there, and is sealed by the first checkpoint", async () => {
    const t = await legacyChain(3);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, checked: 3, legacy_seq: 3, warnings: [expect.stringContaining("not sealed")] });
    const run = await checkpoint(t.db);
    expect(run.written.find((c) => c.tenant_id === t.tenantId)).toMatchObject({ seq: 3 });
    await append(t, 2, 3);
    const [four] = await rows(t.db, t.tenantId, 4);
    expect(four).toMatchObject({ seq: 4, kid: expect.any(String), prevHash: (await rows(t.db, t.tenantId, 3))[0]!.hash });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, checked: 5, legacy_seq: 3, checkpoint: { seq: 3 }, unsealed: 2, warnings: [] });
  });

  it("an edited legacy row is named; the old attack on a sealed legacy prefix is caught by the checkpoint", async () => {
    const t = await legacyChain(4);
    await asOperator(t.db, async (tx) => void (await tx.update(auditEvents).set({ outcome: "deny" }).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.seq, 2)))));
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "edited_row", first_broken: { seq: 2 } });

    const u = await legacyChain(4);
    await checkpoint(u.db);
    // Re-hashed with SHA-256 the whole legacy chain is self-consistent again — only the checkpoint knows better.
    await asOperator(u.db, (tx) => rehashWithoutKey(tx, u.tenantId, 2, { legacy: "rewritten" }));
    expect(await verifyAuditChain(u.db, u.tenantId)).toMatchObject({ ok: false, finding: "rewritten_history", first_broken: { seq: 1 } });
  });

  it("a MAC-less row after the keyed chain began is a forged insert, not legacy", async () => {
    const t = await legacyChain(2);
    await append(t, 1, 2);
    await asAppRole(t.db, async (tx) => void (await forge(tx, t, "none")));
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "forged_insert", first_broken: { seq: 4 } });
  });
});

describe("checkpoints", () => {
  it("appear at once for a new chain, then after 5 minutes, and after 1,000 records (injected clock)", async () => {
    const t = await chainOf(3);
    const t0 = new Date(Date.now() + 60 * 60_000);
    const mine = async (at: Date) => (await checkpoint(t.db, at)).written.filter((c) => c.tenant_id === t.tenantId).map((c) => c.seq);
    expect(await mine(t0)).toEqual([3]);
    await append(t, 10, 3);
    expect(await mine(new Date(t0.getTime() + 60_000))).toEqual([]);
    expect(await mine(new Date(t0.getTime() + 5 * 60_000 - 1))).toEqual([]);
    expect(await mine(new Date(t0.getTime() + 5 * 60_000))).toEqual([13]);
    const t1 = new Date(t0.getTime() + 5 * 60_000);
    expect(await mine(new Date(t1.getTime() + 10 * 60_000))).toEqual([]); // nothing new: nothing to seal
    await append(t, 999, 13);
    expect(await mine(new Date(t1.getTime() + 1_000))).toEqual([]);
    await append(t, 1, 1012);
    expect(await mine(new Date(t1.getTime() + 2_000))).toEqual([1013]);
    const [row] = await t.db.select().from(auditCheckpoints).where(and(eq(auditCheckpoints.tenantId, t.tenantId), eq(auditCheckpoints.seq, 1013)));
    expect(row!.at.getTime()).toBe(t1.getTime() + 2_000);
  });

  it("one writer: two concurrent runs write one checkpoint", async () => {
    const t = await chainOf(4);
    const runs = await Promise.all([checkpoint(t.db), checkpoint(t.db)]);
    expect(runs.map((r) => r.status).sort()).toEqual(["busy", "ran"]);
    const stored = await t.db.select().from(auditCheckpoints).where(eq(auditCheckpoints.tenantId, t.tenantId));
    expect(stored).toHaveLength(1);
    expect((await readDigestStore(dir, t.tenantId)).checkpoints).toHaveLength(1);
  });

  it.runIf(!!process.env.DATABASE_URL)("one writer across nodes: the advisory lock keeps a second process out", async () => {
    const t = await chainOf(2);
    const { default: pg } = await import("pg");
    const { drizzle } = await import("drizzle-orm/node-postgres");
    const pools = [new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 }), new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 })];
    try {
      const [nodeA, nodeB] = pools.map((p) => drizzle(p) as unknown as Db);
      // Node A holds the lock (as a long run would); node B's run must not write.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const holder = nodeA!.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(7417012)`);
        locked();
        await held;
      });
      await isLocked;
      expect(await checkpoint(nodeB!)).toMatchObject({ status: "locked", written: [] });
      release();
      await holder;
      const [both1, both2] = await Promise.all([checkpoint(nodeA!), checkpoint(nodeB!)]);
      expect([...both1.written, ...both2.written].filter((c) => c.tenant_id === t.tenantId)).toHaveLength(1);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it("the digest store gets the signed checkpoint, outside the database; an edited store line is named", async () => {
    const t = await chainOf(3);
    await checkpoint(t.db);
    const file = path.join(dir, `${t.tenantId}.jsonl`);
    const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual([{ v: 1, tenant_id: t.tenantId, seq: 3, mac: (await rows(t.db, t.tenantId, 3))[0]!.mac, at: expect.any(String), kid: auditSigner().current.kid, sig: expect.any(String) }]);
    expect(checkCheckpoint(auditSigner().verifiers, { ...lines[0], lane: 0 })).toBe("ok");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.writeFileSync(file, `${JSON.stringify({ ...lines[0], seq: 2 })}\n`);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "forged_insert", first_broken: { seq: 2 } });
  });

  it("append-only: the table refuses UPDATE and DELETE of checkpoints", async () => {
    const t = await chainOf(2);
    await checkpoint(t.db);
    await expect(t.db.execute(sql`update audit_checkpoints set seq = 1 where tenant_id = ${t.tenantId}`)).rejects.toThrow();
    await expect(t.db.execute(sql`delete from audit_checkpoints where tenant_id = ${t.tenantId}`)).rejects.toThrow();
  });
});

describe("export and offline verify", () => {
  async function exported(t: TestTenant): Promise<string> {
    const file = path.join(dir, `export-${t.tenantId}.jsonl`);
    const out: string[] = [];
    for await (const line of exportAuditLines(t.db, t.tenantId)) out.push(JSON.stringify(line));
    fs.writeFileSync(file, `${out.join("\n")}\n`);
    return file;
  }
  const offline = (file: string) => verifyExportFile(file, { digestDir: dir, keyring: auditKeyring(), verifiers: auditSigner().verifiers });

  it("round-trips, and names an edited line and a cut file", async () => {
    const t = await chainOf(5);
    await checkpoint(t.db);
    const file = await exported(t);
    const lines = fs.readFileSync(file, "utf8").trim().split("\n");
    expect(lines).toHaveLength(6); // five records and the export's own
    expect(Object.keys(JSON.parse(lines[0]!))).toEqual([
      "tenant_id", "lane", "seq", "id", "at", "event", "request_id", "principal_type", "user_id", "actor_id", "namespace", "operation", "ref", "outcome", "gate", "reason", "subject_id", "details", "prev_hash", "hash", "kid", "mac",
    ]);
    expect(JSON.parse(lines[5]!)).toMatchObject({ seq: 6, event: "audit.exported", principal_type: "system" });
    expect(await offline(file)).toMatchObject({ ok: true, tenant_id: t.tenantId, checked: 6, checkpoint: { seq: 5 }, unsealed: 1 });

    const edited = lines.map((l, i) => (i === 2 ? l.replace('"outcome":"allow"', '"outcome":"deny"') : l));
    fs.writeFileSync(file, `${edited.join("\n")}\n`);
    expect(await offline(file)).toMatchObject({ ok: false, finding: "edited_row", first_broken: { seq: 3 } });

    fs.writeFileSync(file, `${lines.slice(0, 3).join("\n")}\n`);
    expect(await offline(file)).toMatchObject({ ok: false, finding: "cut_tail", first_broken: { seq: 4 } });

    fs.writeFileSync(file, `${lines.filter((_, i) => i !== 1).join("\n")}\n`);
    expect(await offline(file)).toMatchObject({ ok: false, finding: "deleted_row", first_broken: { seq: 2 } });
  });

  it("`npm run audit:verify` checks a file offline (exit 0 intact, 1 edited)", async () => {
    const t = await chainOf(3);
    await checkpoint(t.db);
    const file = await exported(t);
    const run = () =>
      spawnSync(process.execPath, [path.resolve("node_modules/tsx/dist/cli.mjs"), "--tsconfig", "tsconfig.json", "scripts/audit-verify.ts", file, "--digest-dir", dir], {
        encoding: "utf8",
        env: { ...process.env, DATABASE_URL: "" },
      });
    const ok = run();
    expect(ok.stdout, ok.stderr).toContain("Intact: 4 record(s)");
    expect(ok.status).toBe(0);
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, text.replace('"i":1', '"i":7'));
    const bad = run();
    expect(bad.stdout).toContain("Broken (edited_row at #2)");
    expect(bad.status).toBe(1);
  }, 60_000);
});

describe("keys", () => {
  it("never reach the database or the digest store; rotation keeps old records verifiable", async () => {
    const k1 = randomBytes(32);
    const k2 = randomBytes(32);
    const seed = randomBytes(32);
    const forms = (b: Buffer) => [b.toString("base64"), b.toString("base64url"), b.toString("hex")];
    env.set({ REALMGATE_AUDIT_KEYS: `k1:${k1.toString("base64")}`, REALMGATE_AUDIT_SIGNING_KEY: seed.toString("base64") });
    try {
      const t = await chainOf(3);
      await checkpoint(t.db);
      env.set({ REALMGATE_AUDIT_KEYS: `k2:${k2.toString("base64")},k1:${k1.toString("base64")}` });
      await append(t, 2, 3);
      const kids = (await rows(t.db, t.tenantId)).map((r) => r.kid);
      expect(kids).toEqual(["k1", "k1", "k1", "k2", "k2"]);
      expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: true, checked: 5, checkpoint: { seq: 3 } });

      const stored = await t.db.execute(sql`
        select e::text as s from audit_events e where tenant_id = ${t.tenantId}
        union all select c::text from audit_checkpoints c where tenant_id = ${t.tenantId}
        union all select h::text from audit_heads h where tenant_id = ${t.tenantId}`);
      const text = (stored as unknown as { rows: { s: string }[] }).rows.map((r) => r.s).join("\n") + fs.readFileSync(path.join(dir, `${t.tenantId}.jsonl`), "utf8");
      expect(text).toContain("k1");
      for (const secret of [...forms(k1), ...forms(k2), ...forms(seed)]) expect(text).not.toContain(secret);

      env.set({ REALMGATE_AUDIT_KEYS: `k2:${k2.toString("base64")}` });
      expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "unknown_key", first_broken: { seq: 1, reason: "unknown_key" } });
    } finally {
      env.set({ REALMGATE_AUDIT_KEYS: undefined, REALMGATE_AUDIT_SIGNING_KEY: undefined });
    }
  });

  it("are validated at start: a bad value stops start-up with one line naming the variable", () => {
    const base = { AUTH_SECRET: "x".repeat(32) };
    expect(() => parseEnv({ ...base, REALMGATE_AUDIT_KEYS: "k1:c2hvcnQ=" })).toThrow(/^Invalid configuration: REALMGATE_AUDIT_KEYS key "k1" must be 32 bytes in base64/);
    expect(() => parseEnv({ ...base, REALMGATE_AUDIT_KEYS: "nokid" })).toThrow(/^Invalid configuration: REALMGATE_AUDIT_KEYS entry 1 needs a key id/);
    expect(() => parseEnv({ ...base, REALMGATE_AUDIT_SIGNING_KEY: "not base64!" })).toThrow(/^Invalid configuration: REALMGATE_AUDIT_SIGNING_KEY must be an Ed25519 key/);
    expect(() => parseEnv({ ...base, REALMGATE_AUDIT_SIGNING_KEY: randomBytes(31).toString("base64") })).toThrow(/REALMGATE_AUDIT_SIGNING_KEY/);
    expect(parseEnv({ ...base, REALMGATE_AUDIT_KEYS: `a:${randomBytes(32).toString("base64")}`, REALMGATE_AUDIT_SIGNING_KEY: randomBytes(32).toString("base64") })).toBeTruthy();
  });
});

// ------------------------------------------------------------------------------------------------------ lanes
// A tenant's trail as several chains: verification, checkpoints, the export and its offline check work lane by
// lane, and the attacks above are caught in any lane — plus the ones lanes add: a record moved to another lane, a
// lane removed whole, a lane forged from nothing, an export with a lane left out.

const record = (t: TestTenant, i: number) => ({ tenantId: t.tenantId, event: "tool.call" as const, principal: { type: "user" as const, userId: t.users.alice!.userId }, outcome: "allow" as const, details: { i } });

/** Append `n` records to lane `lane` (opened at genesis if it is new), in one transaction that holds it. */
async function onLane(t: TestTenant, lane: number, n: number) {
  await t.db.transaction(async (tx) => {
    await tx.insert(auditHeads).values({ tenantId: t.tenantId, lane, seq: 0, hash: GENESIS_LINK }).onConflictDoNothing();
    for (let i = 0; i < n; i++) {
      const [head] = await tx.select().from(auditHeads).where(and(eq(auditHeads.tenantId, t.tenantId), eq(auditHeads.lane, lane))).for("update");
      await appendOnLane(tx, head as LaneHead, record(t, i));
    }
  });
}

/** A tenant with lanes 0, 1 and 2 holding 3, 2 and 4 records. */
async function threeLanes() {
  const t = await makeTenant({ alice: "owner" });
  await onLane(t, 0, 3);
  await onLane(t, 1, 2);
  await onLane(t, 2, 4);
  return t;
}

const laneRows = (db: Executor, tenantId: string, lane: number) =>
  db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.lane, lane))).orderBy(asc(auditEvents.seq));

describe("a trail of several lanes", () => {
  it("verifies lane by lane; each lane is checkpointed on its own, and lane 0's checkpoints keep their old form", async () => {
    const t = await threeLanes();
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({
      ok: true,
      checked: 9,
      records: 9,
      unsealed: 9,
      lanes: [
        { lane: 0, head_seq: 3, checked: 3, ok: true },
        { lane: 1, head_seq: 2, checked: 2, ok: true },
        { lane: 2, head_seq: 4, checked: 4, ok: true },
      ],
    });
    await checkpoint(t.db);
    const v = await verifyAuditChain(t.db, t.tenantId);
    expect(v).toMatchObject({ ok: true, unsealed: 0, warnings: [] });
    expect(v.lanes.map((l) => l.checkpoint?.seq)).toEqual([3, 2, 4]);
    const lines = fs.readFileSync(path.join(dir, `${t.tenantId}.jsonl`), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.v, l.lane, l.seq])).toEqual([
      [1, undefined, 3],
      [2, 1, 2],
      [2, 2, 4],
    ]);
  });

  it("lane 0 is the chain as it was before lanes: the same canonical fields and the same MAC; another lane also seals its number", async () => {
    const t = await threeLanes();
    const { current } = auditKeyring();
    const [zero] = await laneRows(t.db, t.tenantId, 0);
    const [one] = await laneRows(t.db, t.tenantId, 1);
    // What was hashed and MAC'd before lanes, written out by hand.
    const before = (r: typeof zero) => {
      const { lane: _lane, pos: _pos, hash: _h, kid: _k, mac: _m, ...fields } = r!;
      return fields;
    };
    expect(JSON.parse(hashedPayload(zero!))).not.toHaveProperty("lane");
    expect(zero!.hash).toBe(createHash("sha256").update(hashedPayload({ ...before(zero), lane: 0 }), "utf8").digest("hex"));
    const oldMac = (r: typeof zero) => createHmac("sha256", current.key).update(["realmgate-audit/v2", current.kid, r!.tenantId, String(r!.seq), r!.prevHash, r!.hash].join("\n"), "utf8").digest("hex");
    expect(zero!.mac).toBe(oldMac(zero));
    expect(JSON.parse(hashedPayload(one!))).toMatchObject({ lane: 1 });
    expect(one!.mac).not.toBe(oldMac(one));
    expect(one!.mac).toBe(macOf(current.key, current.kid, t.tenantId, 1, one!.seq, one!.prevHash, one!.hash));
    expect(canonicalJson(JSON.parse(hashedPayload(one!)))).toBe(hashedPayload(one!));
  });

  it("an edited record names its lane", async () => {
    const t = await threeLanes();
    await asOperator(t.db, async (tx) => void (await tx.execute(sql`update audit_events set outcome = 'deny' where tenant_id = ${t.tenantId} and lane = 2 and seq = 3`)));
    const v = await verifyAuditChain(t.db, t.tenantId);
    expect(v).toMatchObject({ ok: false, finding: "edited_row", first_broken: { lane: 2, seq: 3, reason: "edited" } });
    expect(v.ok ? "" : v.message).toContain("#3 (lane 2)");
    expect(v.lanes.map((l) => l.ok)).toEqual([true, true, false]);
  });

  it("a record deleted from a lane is named there, whatever the other lanes hold", async () => {
    const t = await threeLanes();
    await asOperator(t.db, async (tx) => void (await tx.execute(sql`delete from audit_events where tenant_id = ${t.tenantId} and lane = 1 and seq = 1`)));
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "deleted_row", first_broken: { lane: 1, seq: 1 } });
  });

  it("a record moved to another lane — renumbered, relinked, the heads moved — is caught: its MAC seals its lane", async () => {
    const t = await threeLanes();
    const [head0] = await t.db.select().from(auditHeads).where(and(eq(auditHeads.tenantId, t.tenantId), eq(auditHeads.lane, 0)));
    const moved = (await laneRows(t.db, t.tenantId, 1))[1]!;
    await asOperator(t.db, async (tx) => {
      // Lane 1's last record becomes lane 0's next: the right seq, the right prev link, its hash recomputed as lane 0's.
      const asZero = { ...moved, lane: 0, seq: head0!.seq + 1, prevHash: head0!.hash };
      await tx.execute(sql`update audit_events set lane = 0, seq = ${asZero.seq}, prev_hash = ${asZero.prevHash}, hash = ${linkHash(asZero)} where id = ${moved.id}`);
      await tx.update(auditHeads).set({ seq: asZero.seq, hash: moved.mac! }).where(and(eq(auditHeads.tenantId, t.tenantId), eq(auditHeads.lane, 0)));
      await tx.update(auditHeads).set({ seq: 1, hash: (await laneRows(tx, t.tenantId, 1))[0]!.mac! }).where(and(eq(auditHeads.tenantId, t.tenantId), eq(auditHeads.lane, 1)));
    });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "forged_insert", first_broken: { lane: 0, seq: 4 } });
  });

  it("a lane removed whole — its records and its head — after a checkpoint sealed it: a cut tail in that lane", async () => {
    const t = await threeLanes();
    await checkpoint(t.db);
    await asOperator(t.db, async (tx) => {
      await tx.execute(sql`delete from audit_events where tenant_id = ${t.tenantId} and lane = 2`);
      await tx.delete(auditHeads).where(and(eq(auditHeads.tenantId, t.tenantId), eq(auditHeads.lane, 2)));
    });
    const v = await verifyAuditChain(t.db, t.tenantId);
    expect(v).toMatchObject({ ok: false, finding: "cut_tail", first_broken: { lane: 2, seq: 1, reason: "truncated" } });
    expect(v.ok ? "" : v.message).toContain("Lane 2 ends at #0");
  });

  it("a lane's tail cut below its checkpoint, its head moved back: a cut tail naming the lane", async () => {
    const t = await threeLanes();
    await checkpoint(t.db);
    const rows = await laneRows(t.db, t.tenantId, 2);
    await asOperator(t.db, async (tx) => {
      await tx.execute(sql`delete from audit_events where tenant_id = ${t.tenantId} and lane = 2 and seq > 2`);
      await tx.update(auditHeads).set({ seq: 2, hash: rows[1]!.mac! }).where(and(eq(auditHeads.tenantId, t.tenantId), eq(auditHeads.lane, 2)));
    });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "cut_tail", first_broken: { lane: 2, seq: 3 } });
  });

  /** A record in a lane Realmgate never opened: a copy of a real one, at #1 from genesis, with a MAC that is not one. */
  async function forgeLane(t: TestTenant, lane: number) {
    const row = { ...(await laneRows(t.db, t.tenantId, 0))[0]!, id: newId("evt"), lane, seq: 1, prevHash: GENESIS_LINK, details: { forged: true } };
    const values = { ...row, pos: await nextPos(t.db), hash: linkHash(row), mac: "0".repeat(64) };
    await t.db.insert(auditEvents).values(values);
    return values;
  }

  it("a lane forged from nothing — a head and a record without a valid MAC — is a forged insert", async () => {
    const t = await threeLanes();
    const forged = await forgeLane(t, 5);
    await t.db.insert(auditHeads).values({ tenantId: t.tenantId, lane: 5, seq: 1, hash: forged.mac });
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, finding: "forged_insert", first_broken: { lane: 5, seq: 1 } });
  });

  it("records in a lane that has no head are found and named, though no head or checkpoint points at them", async () => {
    const t = await threeLanes();
    await forgeLane(t, 6);
    expect(await verifyAuditChain(t.db, t.tenantId)).toMatchObject({ ok: false, first_broken: { lane: 6 } });
  });
});

describe("the export of several lanes", () => {
  async function exported(t: TestTenant): Promise<string[]> {
    const out: string[] = [];
    for await (const line of exportAuditLines(t.db, t.tenantId)) out.push(JSON.stringify(line));
    return out;
  }
  const offline = (lines: string[]) => {
    const file = path.join(dir, `export-${newId("evt")}.jsonl`);
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    return verifyExportFile(file, { digestDir: dir, keyring: auditKeyring(), verifiers: auditSigner().verifiers });
  };

  it("is lane by lane, each ascending, and verifies offline; a lane left out or out of order is named", async () => {
    const t = await threeLanes();
    await checkpoint(t.db);
    const lines = await exported(t);
    const places = lines.map((l) => JSON.parse(l) as { lane: number; seq: number });
    // Ten records: the nine and the export's own (in whichever lane it took).
    expect(places).toHaveLength(10);
    expect(places).toEqual([...places].sort((a, b) => a.lane - b.lane || a.seq - b.seq));
    expect(await offline(lines)).toMatchObject({ ok: true, tenant_id: t.tenantId, checked: 10, unsealed: 1 });

    const withoutLane1 = lines.filter((_, i) => places[i]!.lane !== 1);
    expect(await offline(withoutLane1)).toMatchObject({ ok: false, finding: "cut_tail", first_broken: { lane: 1, seq: 1 } });

    const lane2First = [...lines.filter((_, i) => places[i]!.lane === 2), ...lines.filter((_, i) => places[i]!.lane !== 2)];
    expect(await offline(lane2First)).toMatchObject({ ok: false, finding: "forged_insert" });
  });
});
