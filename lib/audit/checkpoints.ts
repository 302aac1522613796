// Checkpoints: after records commit, the node holding the checkpoint lock signs the head of each lane of each
// tenant with Ed25519 — at least every CHECKPOINT_EVERY_RECORDS records and every CHECKPOINT_EVERY_MS — and
// stores the signature twice: in `audit_checkpoints` (append-only) and in the digest store outside the database,
// one append-only JSONL file per tenant (`<dir>/<tenant id>.jsonl`, one checkpoint per line, lanes together). A
// checkpoint only seals a lane that verifies from its previous checkpoint; a lane that does not is logged and
// left unsealed. Verification (verify.ts) then detects a tail cut below a checkpoint and history rewritten under it.
import fs from "node:fs/promises";
import path from "node:path";
import { and, asc, eq, gt, lte, sql } from "drizzle-orm";
import { ADVISORY_LOCKS } from "@/db/advisory-locks";
import type { Db, Executor } from "@/db/client";
import { auditCheckpoints, auditEvents, type AuditEventRow } from "@/db/schema";
import { checkpointVersion, GENESIS_LINK, isLane, laneName, linkOf, recordName, signCheckpoint, walkChain, type Broken, type Checkpoint } from "./chain";
import { auditDigestDir, auditKeyring, auditSigner, type AuditKeyring, type AuditSigner } from "./keys";
import { CHECKPOINT_EVERY_MS, CHECKPOINT_EVERY_RECORDS, onCheckpointNudge } from "./nudge";

export { CHECKPOINT_EVERY_MS, CHECKPOINT_EVERY_RECORDS };

const BATCH = 1000;

// ------------------------------------------------------------------------------------------- digest store

const storeFile = (dir: string, tenantId: string) => path.join(dir, `${encodeURIComponent(tenantId)}.jsonl`);

/** A tenant's checkpoints from the digest store, and how many lines were not checkpoints. Missing file → none. */
export async function readDigestStore(dir: string, tenantId: string): Promise<{ checkpoints: Checkpoint[]; unreadable: number }> {
  let text: string;
  try {
    text = await fs.readFile(storeFile(dir, tenantId), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { checkpoints: [], unreadable: 0 };
    throw err;
  }
  const checkpoints: Checkpoint[] = [];
  let unreadable = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      // v1: lane 0, as written before lanes (no lane field); v2: another lane, named.
      const c = JSON.parse(line) as Checkpoint & { v?: number };
      if (c && typeof c === "object" && c.v === 1 && c.lane === undefined) checkpoints.push({ tenant_id: c.tenant_id, lane: 0, seq: c.seq, mac: c.mac, at: c.at, kid: c.kid, sig: c.sig });
      else if (c && typeof c === "object" && c.v === 2 && isLane(c.lane) && c.lane > 0) checkpoints.push({ tenant_id: c.tenant_id, lane: c.lane, seq: c.seq, mac: c.mac, at: c.at, kid: c.kid, sig: c.sig });
      else unreadable++;
    } catch {
      // A line cut short by a crash mid-append is the only innocent cause; it is still reported.
      unreadable++;
    }
  }
  return { checkpoints, unreadable };
}

/** A checkpoint as a digest-store line: lane 0's as before lanes (v1, no lane), another lane's as v2 with it. */
function digestLine(c: Checkpoint) {
  const { lane, ...rest } = c;
  return lane ? { v: checkpointVersion(lane), lane, ...rest } : { v: checkpointVersion(0), ...rest };
}

/** Append checkpoints to their tenants' files (created 0600 in a 0700 directory), synced to disk. */
export async function appendDigestStore(dir: string, checkpoints: Checkpoint[]): Promise<void> {
  if (!checkpoints.length) return;
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const byTenant = new Map<string, Checkpoint[]>();
  for (const c of checkpoints) byTenant.set(c.tenant_id, [...(byTenant.get(c.tenant_id) ?? []), c]);
  for (const [tenantId, list] of byTenant) {
    const fh = await fs.open(storeFile(dir, tenantId), "a", 0o600);
    try {
      await fh.appendFile(list.map((c) => `${JSON.stringify(digestLine(c))}\n`).join(""), "utf8");
      await fh.sync();
    } finally {
      await fh.close();
    }
  }
}

// ---------------------------------------------------------------------------------------------- the writer

export type CheckpointOptions = {
  /** The clock (tests inject one). */
  now?: () => Date;
  digestDir?: string;
  keyring?: AuditKeyring;
  signer?: AuditSigner;
  everyRecords?: number;
  everyMs?: number;
  /** Where refusals are reported (one line each); default console.error, once per tenant and finding. */
  log?: (line: string) => void;
};
export type CheckpointRun = {
  /** "ran": this call held the lock; "busy": another run of this process was in progress; "locked": another node holds it. */
  status: "ran" | "busy" | "locked";
  written: Checkpoint[];
  refused: { tenant_id: string; broken: Broken }[];
};

const running = new WeakMap<object, Promise<CheckpointRun>>();
const reported = new Set<string>();

/**
 * Write a checkpoint for every tenant that is due. Safe to call from anywhere, any number of times, on any
 * number of nodes: a second call while one runs in this process returns "busy", and across processes the
 * transaction-scoped advisory lock lets one writer through (the others return "locked").
 */
export function writeDueCheckpoints(db: Db, opts: CheckpointOptions = {}): Promise<CheckpointRun> {
  if (running.has(db)) return Promise.resolve({ status: "busy", written: [], refused: [] });
  const run = runCheckpoints(db, opts).finally(() => running.delete(db));
  running.set(db, run);
  return run;
}

async function runCheckpoints(db: Db, opts: CheckpointOptions): Promise<CheckpointRun> {
  const now = (opts.now ?? (() => new Date()))();
  const ring = opts.keyring ?? auditKeyring();
  const signer = opts.signer ?? auditSigner();
  const dir = opts.digestDir ?? auditDigestDir();
  const everyRecords = opts.everyRecords ?? CHECKPOINT_EVERY_RECORDS;
  const everyMs = opts.everyMs ?? CHECKPOINT_EVERY_MS;
  const log = opts.log ?? ((line: string) => console.error(line));
  return db.transaction(async (tx) => {
    const [lock] = rowsOf<{ locked: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${ADVISORY_LOCKS.auditCheckpoints}) as locked`));
    if (!lock?.locked) return { status: "locked", written: [], refused: [] };
    const due = rowsOf<{ tenant_id: string; lane: number; seq: number; hash: string; cp_seq: number | null; cp_mac: string | null; cp_at_ms: number | null }>(
      await tx.execute(sql`
      select h.tenant_id, h.lane, h.seq::float8 as seq, h.hash, c.seq::float8 as cp_seq, c.mac as cp_mac, (extract(epoch from c.at) * 1000)::float8 as cp_at_ms
      from audit_heads h
      left join lateral (select seq, mac, at from audit_checkpoints where tenant_id = h.tenant_id and lane = h.lane order by seq desc limit 1) c on true
      where h.seq > coalesce(c.seq, 0)
      order by h.tenant_id, h.lane`),
    );
    const written: Checkpoint[] = [];
    const refused: CheckpointRun["refused"] = [];
    for (const d of due) {
      const seq = Number(d.seq);
      const cpSeq = d.cp_seq === null ? 0 : Number(d.cp_seq);
      if (d.cp_seq !== null && seq - cpSeq < everyRecords && now.getTime() - Number(d.cp_at_ms) < everyMs) continue;
      const lane = Number(d.lane);
      const broken = await verifySegment(tx, ring, d.tenant_id, lane, { seq: cpSeq, link: d.cp_mac ?? GENESIS_LINK }, { seq, link: d.hash });
      if (broken) {
        refused.push({ tenant_id: d.tenant_id, broken });
        const key = `${d.tenant_id}:${broken.finding}:${broken.lane}:${broken.seq}`;
        if (!reported.has(key)) {
          reported.add(key);
          log(`Audit checkpoint refused for tenant ${d.tenant_id}: ${broken.message}`);
        }
        continue;
      }
      const cp = signCheckpoint(signer.current, { tenant_id: d.tenant_id, lane, seq, mac: d.hash, at: now });
      await tx.insert(auditCheckpoints).values({ tenantId: cp.tenant_id, lane, seq: cp.seq, mac: cp.mac, at: now, kid: cp.kid, sig: cp.sig });
      written.push(cp);
    }
    // Still under the lock, so writers never interleave lines. If the commit then fails, the store holds a
    // checkpoint the table lacks: still a true, signed statement about committed records.
    await appendDigestStore(dir, written);
    return { status: "ran", written, refused };
  });
}

/** node-postgres and PGlite both answer `execute` with `{ rows }`. */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** Check a lane's records after a trusted checkpoint up to the head about to be signed; null when they verify. */
async function verifySegment(tx: Executor, ring: AuditKeyring, tenantId: string, lane: number, from: { seq: number; link: string }, to: { seq: number; link: string }): Promise<Broken | null> {
  let keyed = false;
  if (from.seq > 0) {
    const [anchor] = await tx.select().from(auditEvents).where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.lane, lane), eq(auditEvents.seq, from.seq)));
    if (!anchor || linkOf(anchor) !== from.link) {
      return { lane, seq: from.seq, id: anchor?.id ?? null, reason: "rewritten", finding: "rewritten_history", message: `Record ${recordName(lane, from.seq)} is not the one the last checkpoint signed.` };
    }
    keyed = anchor.kid !== null;
  }
  const walk = await walkChain(rowsBetween(tx, tenantId, lane, from.seq, to.seq), {
    lane,
    keys: ring.byKid,
    checkpoints: [],
    prevHashAt: (seq) => prevHashAt(tx, tenantId, lane, seq),
    start: { seq: from.seq, link: from.link, keyed },
  });
  if (walk.broken) return walk.broken;
  if (walk.last_seq !== to.seq || walk.link !== to.link) {
    return { lane, seq: walk.last_seq + 1, id: null, reason: "truncated", finding: "cut_tail", message: `The head of ${laneName(lane)} (#${to.seq}) is not its last record (#${walk.last_seq}).` };
  }
  return null;
}

/** A tenant's records of one lane with after < seq ≤ through, ascending, read in batches. */
export async function* rowsBetween(db: Executor, tenantId: string, lane: number, after: number, through: number): AsyncGenerator<AuditEventRow> {
  let from = after;
  for (;;) {
    const rows = await db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.lane, lane), gt(auditEvents.seq, from), lte(auditEvents.seq, through)))
      .orderBy(asc(auditEvents.seq))
      .limit(BATCH);
    yield* rows;
    if (rows.length < BATCH) return;
    from = rows[rows.length - 1]!.seq;
  }
}

export async function prevHashAt(db: Executor, tenantId: string, lane: number, seq: number): Promise<string | undefined> {
  const [r] = await db.select({ prevHash: auditEvents.prevHash }).from(auditEvents).where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.lane, lane), eq(auditEvents.seq, seq)));
  return r?.prevHash;
}

// ------------------------------------------------------------------------------------------- the interval

const g = globalThis as unknown as { __realmgateAuditCheckpoints?: { stop: () => void } };

/**
 * Run the checkpoint job every `intervalMs` in this server process (and soon after a tenant's chain reaches a
 * multiple of CHECKPOINT_EVERY_RECORDS). Started by lib/startup.ts; never at import time, never in `next build`.
 * Returns a stop function; a second start in the same process (dev reloads) replaces the first.
 */
export function startAuditCheckpoints(db: Db, { intervalMs = 30_000, firstRunMs = 5_000 } = {}): () => void {
  g.__realmgateAuditCheckpoints?.stop();
  let soon: NodeJS.Timeout | null = null;
  const run = () => {
    writeDueCheckpoints(db).catch((err: unknown) => console.error(`Audit checkpoint job failed: ${err instanceof Error ? err.message : String(err)}`));
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  const first = setTimeout(run, firstRunMs);
  first.unref();
  onCheckpointNudge(() => {
    if (soon) return;
    soon = setTimeout(() => {
      soon = null;
      run();
    }, 1_000);
    soon.unref();
  });
  const stop = () => {
    clearInterval(timer);
    clearTimeout(first);
    if (soon) clearTimeout(soon);
    onCheckpointNudge(null);
    if (g.__realmgateAuditCheckpoints?.stop === stop) g.__realmgateAuditCheckpoints = undefined;
  };
  g.__realmgateAuditCheckpoints = { stop };
  return stop;
}
