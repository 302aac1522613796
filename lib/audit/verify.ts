// Walk a tenant's audit trail — each of its lanes — against its signed checkpoints (the digest store outside the
// database and the table) and name the first thing wrong: an edited row, a deleted row, a cut tail, rewritten
// history or a forged insert (lib/audit/chain.ts says how each is told apart). The legacy prefix — records from
// before the keyed chain, all in lane 0 — is checked with the old SHA-256 rule, then the MAC chain from there.
//
// What cannot be detected: records after a lane's latest checkpoint. A tail cut that does not reach back past a
// checkpoint looks exactly like "nothing happened since"; `unsealed` in the answer says how many records that
// window holds right now, per lane and in all.
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { auditCheckpoints, auditEvents, auditHeads } from "@/db/schema";
import { earlier, laneName, recordName, mergeCheckpoints, walkChain, type Broken, type Checkpoint, type Finding, type Reason, type SealedCheckpoint } from "./chain";
import { prevHashAt, readDigestStore, rowsBetween } from "./checkpoints";
import { auditDigestDir, auditKeyring, auditSigner, type AuditKeyring, type AuditSigner } from "./keys";

export type { Finding, Reason };

type CheckpointSummary = { lane: number; seq: number; at: string; in_table: boolean; in_digest_store: boolean };

/** One lane as verified. */
export type LaneSummary = {
  lane: number;
  /** The lane's records per its head. */
  head_seq: number;
  /** Records of the lane verified (before its first broken one). */
  checked: number;
  /** The lane's latest verified checkpoint. */
  checkpoint: CheckpointSummary | null;
  /** The lane's records after that checkpoint. */
  unsealed: number;
  ok: boolean;
};

type Summary = {
  /** Records verified, all lanes together (each lane up to its first broken record). */
  checked: number;
  /** Records in the trail per the lanes' heads. */
  records: number;
  /** The last record of the legacy (SHA-256-only) prefix of lane 0; 0 when there is none. */
  legacy_seq: number;
  /** The newest verified checkpoint of any lane, and where it was found. */
  checkpoint: CheckpointSummary | null;
  /** Records after their lane's latest checkpoint, all lanes together: the window in which a cut tail cannot be detected. */
  unsealed: number;
  lanes: LaneSummary[];
  warnings: string[];
};

export type VerifyResult =
  | ({ ok: true } & Summary)
  | ({
      ok: false;
      finding: Finding;
      message: string;
      first_broken: { lane: number; seq: number; id: string | null; reason: Reason; finding: Finding };
    } & Summary);

export type VerifyOptions = { digestDir?: string; keyring?: AuditKeyring; signer?: AuditSigner };

/** The lanes that hold records: one index probe per lane (a skip scan of the primary key), not a scan of the trail. */
const lanesWithRecords = async (db: Executor, tenantId: string): Promise<number[]> =>
  (
    (await db.execute(sql`
      with recursive l as (
        (select lane from ${auditEvents} where tenant_id = ${tenantId} order by lane limit 1)
        union all
        select (select e.lane from ${auditEvents} e where e.tenant_id = ${tenantId} and e.lane > l.lane order by e.lane limit 1) from l where l.lane is not null
      )
      select lane from l where lane is not null`)) as unknown as { rows: { lane: number }[] }
  ).rows.map((r) => Number(r.lane));

export async function verifyAuditChain(db: Executor, tenantId: string, opts: VerifyOptions = {}): Promise<VerifyResult> {
  const ring = opts.keyring ?? auditKeyring();
  const signer = opts.signer ?? auditSigner();
  // Checkpoints before the heads: a checkpoint never seals past the head it read, so none read here is ahead of
  // the head read next unless the tail was cut.
  const store = await readDigestStore(opts.digestDir ?? auditDigestDir(), tenantId);
  const table: Checkpoint[] = (await db.select().from(auditCheckpoints).where(eq(auditCheckpoints.tenantId, tenantId)).orderBy(asc(auditCheckpoints.lane), asc(auditCheckpoints.seq))).map(
    (c) => ({ tenant_id: c.tenantId, lane: c.lane, seq: c.seq, mac: c.mac, at: c.at.toISOString(), kid: c.kid, sig: c.sig }),
  );
  const cps = mergeCheckpoints(tenantId, table, store.checkpoints, signer.verifiers, store.unreadable);
  const heads = new Map((await db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId))).map((h) => [h.lane, h]));
  // Every lane anything knows of: a lane whose head was removed, or whose records were all deleted, is still walked.
  const lanes = [...new Set([...heads.keys(), ...cps.list.map((c) => c.lane), ...(await lanesWithRecords(db, tenantId))])].sort((a, b) => a - b);
  if (!lanes.length) lanes.push(0);

  // The first broken link of any lane's walk comes first, then a bad checkpoint, then a lane's end (as before lanes).
  let walkBroken: Broken | null = null;
  let tailBroken: Broken | null = null;
  let legacySeq = 0;
  const summaries: LaneSummary[] = [];
  for (const lane of lanes) {
    const head = heads.get(lane) ?? null;
    const headSeq = head?.seq ?? 0;
    // Bounded by the head read first: records written while we walk are not "after the head".
    const walk = await walkChain(rowsBetween(db, tenantId, lane, 0, headSeq), {
      lane,
      keys: ring.byKid,
      checkpoints: cps.list,
      prevHashAt: (seq) => prevHashAt(db, tenantId, lane, seq),
    });
    const laneCps = cps.list.filter((c) => c.lane === lane);
    const latest = laneCps.length ? laneCps[laneCps.length - 1]! : null;
    if (lane === 0) legacySeq = walk.legacy_seq;
    const tail = walk.broken ? null : await tailProblem(db, tenantId, lane, walk.last_seq, walk.link, head, latest);
    if (walk.broken && (!walkBroken || earlier(walk.broken, walkBroken))) walkBroken = walk.broken;
    if (tail && (!tailBroken || earlier(tail, tailBroken))) tailBroken = tail;
    const found = walk.broken ?? tail;
    summaries.push({ lane, head_seq: headSeq, checked: walk.checked, checkpoint: latest && checkpointSummary(latest), unsealed: Math.max(0, headSeq - (latest?.seq ?? 0)), ok: !found });
  }
  const warnings = [...cps.warnings];
  const lane0 = summaries.find((s) => s.lane === 0);
  if (legacySeq > 0 && !(lane0?.checkpoint && lane0.checkpoint.seq >= legacySeq) && lane0?.checked === legacySeq) {
    warnings.push(`The legacy records #1–#${legacySeq} are not sealed by a checkpoint yet.`);
  }
  const newest = cps.list.reduce<SealedCheckpoint | null>((a, c) => (!a || c.at > a.at ? c : a), null);
  const summary: Summary = {
    checked: summaries.reduce((a, s) => a + s.checked, 0),
    records: summaries.reduce((a, s) => a + s.head_seq, 0),
    legacy_seq: legacySeq,
    checkpoint: newest && checkpointSummary(newest),
    unsealed: summaries.reduce((a, s) => a + s.unsealed, 0),
    lanes: summaries,
    warnings,
  };
  const broken = walkBroken ?? cps.problem ?? tailBroken;
  if (!broken) return { ok: true, ...summary };
  const { message, finding, ...first } = broken;
  return { ok: false, finding, message, first_broken: { ...first, finding }, ...summary };
}

const checkpointSummary = (c: SealedCheckpoint): CheckpointSummary => ({ lane: c.lane, seq: c.seq, at: c.at, in_table: c.in_table, in_digest_store: c.in_digest_store });

/** After a clean walk of a lane: does it end where its head and its checkpoints say it does? */
async function tailProblem(
  db: Executor,
  tenantId: string,
  lane: number,
  lastSeq: number,
  link: string,
  head: { seq: number; hash: string } | null,
  latest: SealedCheckpoint | null,
): Promise<Broken | null> {
  if (latest && latest.seq > lastSeq) {
    return {
      lane,
      seq: lastSeq + 1,
      id: null,
      reason: "truncated",
      finding: "cut_tail",
      message: `${lane ? `Lane ${lane}` : "The chain"} ends at #${lastSeq}, but the checkpoint of ${latest.at} sealed ${latest.seq} records: the last ${latest.seq - lastSeq} were removed and the head moved back.`,
    };
  }
  const headSeq = head?.seq ?? 0;
  if (headSeq !== lastSeq || (head && headSeq > 0 && head.hash !== link)) {
    return { lane, seq: lastSeq + 1, id: null, reason: "truncated", finding: "cut_tail", message: `The head of ${laneName(lane)} (#${headSeq}) is not its last record (#${lastSeq}): the tail was cut.` };
  }
  // A record beyond the head while the head stays put was not appended by Realmgate (which moves the head in
  // the same statement): a forged insert, or a fork.
  const [beyond] = await db
    .select({ seq: auditEvents.seq, id: auditEvents.id })
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.lane, lane), gt(auditEvents.seq, headSeq)))
    .orderBy(asc(auditEvents.seq))
    .limit(1);
  if (beyond) {
    const [now] = await db.select({ seq: auditHeads.seq }).from(auditHeads).where(and(eq(auditHeads.tenantId, tenantId), eq(auditHeads.lane, lane)));
    if (!now) return { lane, seq: 1, id: null, reason: "truncated", finding: "cut_tail", message: `The tenant has audit records in ${laneName(lane)} but no head for it: the head was removed.` };
    if (now.seq === headSeq) {
      return {
        lane,
        seq: beyond.seq,
        id: beyond.id,
        reason: "forged",
        finding: "forged_insert",
        message: `Record ${recordName(lane, beyond.seq)} lies beyond the head of ${laneName(lane)} (#${headSeq}): it was not appended by Realmgate (forged insert).`,
      };
    }
  }
  return null;
}
