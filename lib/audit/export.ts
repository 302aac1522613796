// The verifiable export (`npm run audit:export`) and its offline check (`npm run audit:verify -- <file>`): an
// unfiltered, ascending JSONL of exactly the MAC'd fields of one tenant's records, checked without the database
// against the checkpoints in the digest store, with the audit keys and the signing public key.
import fs from "node:fs";
import readline from "node:readline";
import type { KeyObject } from "node:crypto";
import { eq, or } from "drizzle-orm";
import type { Db } from "@/db/client";
import { auditHeads, tenants, type AuditEventRow } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { exportLine, mergeCheckpoints, rowOfLine, walkChain, type Broken, type ExportLine, type Finding, type Reason } from "./chain";
import { readDigestStore, rowsBetween } from "./checkpoints";
import type { AuditKeyring } from "./keys";
import { recordAudit } from "./record";

export async function resolveTenant(db: Db, slugOrId: string): Promise<{ id: string; slug: string }> {
  const [t] = await db.select({ id: tenants.id, slug: tenants.slug }).from(tenants).where(or(eq(tenants.id, slugOrId), eq(tenants.slug, slugOrId)));
  if (!t) throw new AppError("not_found", `No tenant has the id or slug "${slugOrId}".`);
  return t;
}

/**
 * Record `audit.exported` (system), then yield every record up to the head read after it, ascending — the
 * export's own record included.
 */
export async function* exportAuditLines(db: Db, tenantId: string): AsyncGenerator<ExportLine> {
  await db.transaction((tx) => recordAudit(tx, { tenantId, event: "audit.exported", principal: { type: "system" }, outcome: "ok", details: { format: "jsonl", unfiltered: true } }));
  const [head] = await db.select({ seq: auditHeads.seq }).from(auditHeads).where(eq(auditHeads.tenantId, tenantId));
  for await (const row of rowsBetween(db, tenantId, 0, head?.seq ?? 0)) yield exportLine(row);
}

export type OfflineResult = {
  ok: boolean;
  tenant_id: string | null;
  checked: number;
  last_seq: number;
  legacy_seq: number;
  checkpoint: { seq: number; at: string } | null;
  /** Records in the file after the latest checkpoint: a cut there cannot be told from the end of the file. */
  unsealed: number;
  warnings: string[];
  /** Checkpoints in the digest store signed by a key that is not configured (a wrong --public-key?). */
  unverified_checkpoints: number;
  finding?: Finding;
  message?: string;
  first_broken?: { seq: number; id: string | null; reason: Reason; finding: Finding };
};

class BadLine extends Error {
  constructor(
    readonly lineNo: number,
    readonly seq: number,
  ) {
    super(`Line ${lineNo} is not an audit record.`);
  }
}

/** Check an export file against the digest store. */
export async function verifyExportFile(file: string, opts: { digestDir: string; keyring: AuditKeyring; verifiers: Map<string, KeyObject> }): Promise<OfflineResult> {
  const input = readline.createInterface({ input: fs.createReadStream(file, "utf8"), crlfDelay: Infinity });
  const iter = input[Symbol.asyncIterator]();
  let lineNo = 0;
  let lastGood = 0;
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
        lastGood = row.seq;
        return row;
      } catch {
        throw new BadLine(lineNo, lastGood + 1);
      }
    }
  };
  // Read one ahead, so a failing MAC can be told apart by the record after it.
  const first = await next().catch((err: unknown) => (err instanceof BadLine ? err : Promise.reject(err)));
  if (first instanceof BadLine) return brokenOffline(null, { seq: 1, id: null, reason: "edited", finding: "edited_row", message: first.message });
  const tenantId = first?.tenantId ?? null;
  if (!first || !tenantId) {
    input.close();
    return { ok: false, tenant_id: null, checked: 0, last_seq: 0, legacy_seq: 0, checkpoint: null, unsealed: 0, warnings: [], unverified_checkpoints: 0, message: "The file holds no audit records." };
  }
  const store = await readDigestStore(opts.digestDir, tenantId);
  const cps = mergeCheckpoints(tenantId, [], store.checkpoints, opts.verifiers, store.unreadable);
  let ahead: AuditEventRow | undefined = first;
  async function* rows(): AsyncGenerator<AuditEventRow> {
    while (ahead) {
      const current: AuditEventRow = ahead;
      ahead = await next();
      yield current;
    }
  }
  let walk;
  try {
    walk = await walkChain(rows(), { keys: opts.keyring.byKid, checkpoints: cps.list, prevHashAt: async (seq) => (ahead && ahead.seq === seq ? ahead.prevHash : undefined) });
  } catch (err) {
    if (err instanceof BadLine) return brokenOffline(tenantId, { seq: err.seq, id: null, reason: "edited", finding: "edited_row", message: err.message });
    throw err;
  } finally {
    input.close();
  }
  const latest = cps.list.length ? cps.list[cps.list.length - 1]! : null;
  const base: OfflineResult = {
    ok: true,
    tenant_id: tenantId,
    checked: walk.checked,
    last_seq: walk.last_seq,
    legacy_seq: walk.legacy_seq,
    checkpoint: latest ? { seq: latest.seq, at: latest.at } : null,
    unsealed: Math.max(0, walk.last_seq - (latest?.seq ?? 0)),
    warnings: cps.warnings.filter((w) => !w.includes("missing from the digest store")),
    unverified_checkpoints: cps.unverified,
  };
  if (!latest) base.warnings.push("The digest store holds no checkpoint for this tenant: a cut tail cannot be detected.");
  const broken: Broken | null =
    walk.broken ??
    cps.problem ??
    (latest && latest.seq > walk.last_seq
      ? {
          seq: walk.last_seq + 1,
          id: null,
          reason: "truncated",
          finding: "cut_tail",
          message: `The file ends at #${walk.last_seq}, but the checkpoint of ${latest.at} sealed ${latest.seq} records: the last ${latest.seq - walk.last_seq} are missing.`,
        }
      : null);
  if (!broken) return base;
  const { message, finding, ...fb } = broken;
  return { ...base, ok: false, finding, message, first_broken: { ...fb, finding } };
}

function brokenOffline(tenantId: string | null, b: Broken): OfflineResult {
  const { message, finding, ...fb } = b;
  return { ok: false, tenant_id: tenantId, checked: b.seq - 1, last_seq: 0, legacy_seq: 0, checkpoint: null, unsealed: 0, warnings: [], unverified_checkpoints: 0, finding, message, first_broken: { ...fb, finding } };
}
