// The verifiable export (`npm run audit:export`) and its offline check (`npm run audit:verify -- <file>`): an
// unfiltered JSONL of exactly the MAC'd fields of one tenant's records, lane by lane and each lane ascending,
// checked without the database against the checkpoints in the digest store, with the audit keys and the signing
// public key.
import fs from "node:fs";
import readline from "node:readline";
import type { KeyObject } from "node:crypto";
import { asc, eq, or } from "drizzle-orm";
import type { Db } from "@/db/client";
import { auditHeads, tenants, type AuditEventRow } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { exportLine, mergeCheckpoints, recordName, rowOfLine, walkChain, type Broken, type ExportLine, type Finding, type Reason } from "./chain";
import { readDigestStore, rowsBetween } from "./checkpoints";
import type { AuditKeyring } from "./keys";
import { recordAudit } from "./record";

export async function resolveTenant(db: Db, slugOrId: string): Promise<{ id: string; slug: string }> {
  const [t] = await db.select({ id: tenants.id, slug: tenants.slug }).from(tenants).where(or(eq(tenants.id, slugOrId), eq(tenants.slug, slugOrId)));
  if (!t) throw new AppError("not_found", `No tenant has the id or slug "${slugOrId}".`);
  return t;
}

/**
 * Record `audit.exported` (system), then yield every record up to the heads read after it, lane by lane, each lane
 * ascending — the export's own record included.
 */
export async function* exportAuditLines(db: Db, tenantId: string): AsyncGenerator<ExportLine> {
  await db.transaction((tx) => recordAudit(tx, { tenantId, event: "audit.exported", principal: { type: "system" }, outcome: "ok", details: { format: "jsonl", unfiltered: true } }));
  const heads = await db.select({ lane: auditHeads.lane, seq: auditHeads.seq }).from(auditHeads).where(eq(auditHeads.tenantId, tenantId)).orderBy(asc(auditHeads.lane));
  for (const head of heads) for await (const row of rowsBetween(db, tenantId, head.lane, 0, head.seq)) yield exportLine(row);
}

/** One lane of the file as checked. */
export type OfflineLane = { lane: number; last_seq: number; checked: number; checkpoint: { seq: number; at: string } | null; unsealed: number };

export type OfflineResult = {
  ok: boolean;
  tenant_id: string | null;
  /** Records verified, all lanes together. */
  checked: number;
  /** The last record of the legacy prefix of lane 0; 0 when there is none. */
  legacy_seq: number;
  /** The newest verified checkpoint of any lane. */
  checkpoint: { lane: number; seq: number; at: string } | null;
  /** Records in the file after their lane's latest checkpoint: a cut there cannot be told from the end of the file. */
  unsealed: number;
  lanes: OfflineLane[];
  warnings: string[];
  /** Checkpoints in the digest store signed by a key that is not configured (a wrong --public-key?). */
  unverified_checkpoints: number;
  finding?: Finding;
  message?: string;
  first_broken?: { lane: number; seq: number; id: string | null; reason: Reason; finding: Finding };
};

class BadLine extends Error {
  constructor(
    readonly lineNo: number,
    readonly lane: number,
    readonly seq: number,
  ) {
    super(`Line ${lineNo} is not an audit record.`);
  }
}

/** Check an export file (lanes one after another, each ascending) against the digest store. */
export async function verifyExportFile(file: string, opts: { digestDir: string; keyring: AuditKeyring; verifiers: Map<string, KeyObject> }): Promise<OfflineResult> {
  const input = readline.createInterface({ input: fs.createReadStream(file, "utf8"), crlfDelay: Infinity });
  const iter = input[Symbol.asyncIterator]();
  let lineNo = 0;
  let last = { lane: 0, seq: 0 };
  const next = async (): Promise<AuditEventRow | undefined> => {
    for (;;) {
      const r = await iter.next();
      if (r.done) return undefined;
      lineNo++;
      if (!r.value.trim()) continue;
      try {
        const parsed: unknown = JSON.parse(r.value);
        if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
        const row = rowOfLine(parsed as Partial<ExportLine>);
        last = { lane: row.lane, seq: row.seq };
        return row;
      } catch {
        throw new BadLine(lineNo, last.lane, last.seq + 1);
      }
    }
  };
  const empty = (tenantId: string | null, message: string): OfflineResult => ({
    ok: false, tenant_id: tenantId, checked: 0, legacy_seq: 0, checkpoint: null, unsealed: 0, lanes: [], warnings: [], unverified_checkpoints: 0, message,
  });
  // Read one ahead, so a failing MAC can be told apart by the record after it, and a lane's end seen.
  const first = await next().catch((err: unknown) => (err instanceof BadLine ? err : Promise.reject(err)));
  if (first instanceof BadLine) return brokenOffline(null, { lane: 0, seq: 1, id: null, reason: "edited", finding: "edited_row", message: first.message });
  const tenantId = first?.tenantId ?? null;
  if (!first || !tenantId) {
    input.close();
    return empty(null, "The file holds no audit records.");
  }
  const store = await readDigestStore(opts.digestDir, tenantId);
  const cps = mergeCheckpoints(tenantId, [], store.checkpoints, opts.verifiers, store.unreadable);
  let ahead: AuditEventRow | undefined = first;
  async function* laneRows(lane: number): AsyncGenerator<AuditEventRow> {
    while (ahead && ahead.lane === lane) {
      const current: AuditEventRow = ahead;
      ahead = await next();
      yield current;
    }
  }
  const lanes: OfflineLane[] = [];
  let broken: Broken | null = null;
  let legacySeq = 0;
  try {
    while (ahead && !broken) {
      const lane = ahead.lane;
      if (lanes.length && lane <= lanes[lanes.length - 1]!.lane) {
        broken = { lane, seq: ahead.seq, id: ahead.id, reason: "forged", finding: "forged_insert", message: `Record ${recordName(lane, ahead.seq)} comes after the records of lane ${lanes[lanes.length - 1]!.lane}: the file is out of order, or it was inserted.` };
        break;
      }
      const walk = await walkChain(laneRows(lane), { lane, keys: opts.keyring.byKid, checkpoints: cps.list, prevHashAt: async (seq) => (ahead && ahead.lane === lane && ahead.seq === seq ? ahead.prevHash : undefined) });
      if (lane === 0) legacySeq = walk.legacy_seq;
      lanes.push(laneResult(lane, walk.last_seq, walk.checked, cps.list));
      broken = walk.broken;
    }
  } catch (err) {
    if (err instanceof BadLine) return brokenOffline(tenantId, { lane: err.lane, seq: err.seq, id: null, reason: "edited", finding: "edited_row", message: err.message });
    throw err;
  } finally {
    input.close();
  }
  // A lane a checkpoint sealed must reach that far in the file, whether or not any of its records are there.
  for (const lane of new Set(cps.list.map((c) => c.lane))) if (!lanes.some((l) => l.lane === lane) && !broken) lanes.push(laneResult(lane, 0, 0, cps.list));
  lanes.sort((a, b) => a.lane - b.lane);
  const newest = cps.list.reduce<(typeof cps.list)[number] | null>((a, c) => (!a || c.at > a.at ? c : a), null);
  const base: OfflineResult = {
    ok: true,
    tenant_id: tenantId,
    checked: lanes.reduce((a, l) => a + l.checked, 0),
    legacy_seq: legacySeq,
    checkpoint: newest ? { lane: newest.lane, seq: newest.seq, at: newest.at } : null,
    unsealed: lanes.reduce((a, l) => a + l.unsealed, 0),
    lanes,
    warnings: cps.warnings.filter((w) => !w.includes("missing from the digest store")),
    unverified_checkpoints: cps.unverified,
  };
  if (!newest) base.warnings.push("The digest store holds no checkpoint for this tenant: a cut tail cannot be detected.");
  const cut = lanes.find((l) => l.checkpoint && l.checkpoint.seq > l.last_seq);
  const found: Broken | null =
    broken ??
    cps.problem ??
    (cut
      ? {
          lane: cut.lane,
          seq: cut.last_seq + 1,
          id: null,
          reason: "truncated",
          finding: "cut_tail",
          message: `The file's ${cut.lane ? `lane ${cut.lane}` : "chain"} ends at #${cut.last_seq}, but the checkpoint of ${cut.checkpoint!.at} sealed ${cut.checkpoint!.seq} records: the last ${cut.checkpoint!.seq - cut.last_seq} are missing.`,
        }
      : null);
  if (!found) return base;
  const { message, finding, ...fb } = found;
  return { ...base, ok: false, finding, message, first_broken: { ...fb, finding } };
}

/** A lane's line in the result: how far the file reaches in it against the lane's latest checkpoint. */
function laneResult(lane: number, lastSeq: number, checked: number, checkpoints: { lane: number; seq: number; at: string }[]): OfflineLane {
  const latest = checkpoints.filter((c) => c.lane === lane).at(-1) ?? null;
  return { lane, last_seq: lastSeq, checked, checkpoint: latest ? { seq: latest.seq, at: latest.at } : null, unsealed: Math.max(0, lastSeq - (latest?.seq ?? 0)) };
}

function brokenOffline(tenantId: string | null, b: Broken): OfflineResult {
  const { message, finding, ...fb } = b;
  return { ok: false, tenant_id: tenantId, checked: b.seq - 1, legacy_seq: 0, checkpoint: null, unsealed: 0, lanes: [], warnings: [], unverified_checkpoints: 0, finding, message, first_broken: { ...fb, finding } };
}
