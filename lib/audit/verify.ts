// Walk a tenant's audit chain against its signed checkpoints (the digest store outside the database and the
// table) and name the first thing wrong: an edited row, a deleted row, a cut tail, rewritten history or a
// forged insert (lib/audit/chain.ts says how each is told apart). The legacy prefix — records from before the
// keyed chain — is checked with the old SHA-256 rule, then the MAC chain from there.
//
// What cannot be detected: records after the latest checkpoint. A tail cut that does not reach back past a
// checkpoint looks exactly like "nothing happened since"; `unsealed` in the answer says how many records
// that window holds right now.
import { and, asc, eq, gt } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { auditCheckpoints, auditEvents, auditHeads } from "@/db/schema";
import { mergeCheckpoints, walkChain, type Broken, type Checkpoint, type Finding, type Reason, type SealedCheckpoint } from "./chain";
import { prevHashAt, readDigestStore, rowsBetween } from "./checkpoints";
import { auditDigestDir, auditKeyring, auditSigner, type AuditKeyring, type AuditSigner } from "./keys";

export type { Finding, Reason };

type Summary = {
  /** Records verified (before the first broken one). */
  checked: number;
  head_seq: number;
  /** The last record of the legacy (SHA-256-only) prefix; 0 when there is none. */
  legacy_seq: number;
  /** The latest verified checkpoint, and where it was found. */
  checkpoint: { seq: number; at: string; in_table: boolean; in_digest_store: boolean } | null;
  /** Records after the latest checkpoint: the window in which a cut tail cannot be detected. */
  unsealed: number;
  warnings: string[];
};

export type VerifyResult =
  | ({ ok: true } & Summary)
  | ({
      ok: false;
      finding: Finding;
      message: string;
      first_broken: { seq: number; id: string | null; reason: Reason; finding: Finding };
    } & Summary);

export type VerifyOptions = { digestDir?: string; keyring?: AuditKeyring; signer?: AuditSigner };

export async function verifyAuditChain(db: Executor, tenantId: string, opts: VerifyOptions = {}): Promise<VerifyResult> {
  const ring = opts.keyring ?? auditKeyring();
  const signer = opts.signer ?? auditSigner();
  // Checkpoints before the head: a checkpoint never seals past the head it read, so none read here is ahead
  // of the head read next unless the tail was cut.
  const store = await readDigestStore(opts.digestDir ?? auditDigestDir(), tenantId);
  const table: Checkpoint[] = (await db.select().from(auditCheckpoints).where(eq(auditCheckpoints.tenantId, tenantId)).orderBy(asc(auditCheckpoints.seq))).map((c) => ({
    tenant_id: c.tenantId,
    seq: c.seq,
    mac: c.mac,
    at: c.at.toISOString(),
    kid: c.kid,
    sig: c.sig,
  }));
  const cps = mergeCheckpoints(tenantId, table, store.checkpoints, signer.verifiers, store.unreadable);
  const [head] = await db.select().from(auditHeads).where(eq(auditHeads.tenantId, tenantId));
  const headSeq = head?.seq ?? 0;

  // Bounded by the head read first: events written while we walk are not "after the head".
  const walk = await walkChain(rowsBetween(db, tenantId, 0, headSeq), { keys: ring.byKid, checkpoints: cps.list, prevHashAt: (seq) => prevHashAt(db, tenantId, seq) });
  const latest = cps.list.length ? cps.list[cps.list.length - 1]! : null;
  const warnings = [...cps.warnings];
  if (walk.legacy_seq > 0 && !(latest && latest.seq >= walk.legacy_seq) && walk.last_seq === walk.legacy_seq) {
    warnings.push(`The legacy records #1–#${walk.legacy_seq} are not sealed by a checkpoint yet.`);
  }
  const summary: Summary = {
    checked: walk.checked,
    head_seq: headSeq,
    legacy_seq: walk.legacy_seq,
    checkpoint: latest ? { seq: latest.seq, at: latest.at, in_table: latest.in_table, in_digest_store: latest.in_digest_store } : null,
    unsealed: Math.max(0, headSeq - (latest?.seq ?? 0)),
    warnings,
  };
  const broken = walk.broken ?? cps.problem ?? (await tailProblem(db, tenantId, walk.last_seq, walk.link, head ?? null, latest));
  if (!broken) return { ok: true, ...summary };
  const { message, finding, ...first } = broken;
  return { ok: false, finding, message, first_broken: { ...first, finding }, ...summary };
}

/** After a clean walk: does the chain end where the head and the checkpoints say it does? */
async function tailProblem(db: Executor, tenantId: string, lastSeq: number, link: string, head: { seq: number; hash: string } | null, latest: SealedCheckpoint | null): Promise<Broken | null> {
  if (latest && latest.seq > lastSeq) {
    return {
      seq: lastSeq + 1,
      id: null,
      reason: "truncated",
      finding: "cut_tail",
      message: `The chain ends at #${lastSeq}, but the checkpoint of ${latest.at} sealed ${latest.seq} records: the last ${latest.seq - lastSeq} were removed and the head moved back.`,
    };
  }
  const headSeq = head?.seq ?? 0;
  if (headSeq !== lastSeq || (head && headSeq > 0 && head.hash !== link)) {
    return { seq: lastSeq + 1, id: null, reason: "truncated", finding: "cut_tail", message: `The chain head (#${headSeq}) is not the last record (#${lastSeq}): the tail was cut.` };
  }
  // A record beyond the head while the head stays put was not appended by Realmgate (which moves the head in
  // the same statement): a forged insert, or a fork.
  const [beyond] = await db.select({ seq: auditEvents.seq, id: auditEvents.id }).from(auditEvents).where(and(eq(auditEvents.tenantId, tenantId), gt(auditEvents.seq, headSeq))).orderBy(asc(auditEvents.seq)).limit(1);
  if (beyond) {
    const [now] = await db.select({ seq: auditHeads.seq }).from(auditHeads).where(eq(auditHeads.tenantId, tenantId));
    if (!now) return { seq: 1, id: null, reason: "truncated", finding: "cut_tail", message: "The tenant has audit records but no chain head: the head was removed." };
    if (now.seq === headSeq) {
      return { seq: beyond.seq, id: beyond.id, reason: "forged", finding: "forged_insert", message: `Record #${beyond.seq} lies beyond the chain head (#${headSeq}): it was not appended by Realmgate (forged insert).` };
    }
  }
  return null;
}
