// The keyed audit chain and its checkpoints, independent of where the records come from (the database, an
// exported file). A tenant's trail is a few chains, its lanes; everything here is about one lane. Each record's
// `hash` is the SHA-256 of its canonical fields (prev_hash included) and its `mac` =
// HMAC-SHA256(key[kid], "realmgate-audit/v2" ‖ kid ‖ tenant ‖ seq ‖ prev_hash ‖ hash): the link the next record
// of its lane holds in prev_hash. Lane 0 is the chain as it was before lanes, byte for byte; a record of any
// other lane also seals its lane — in its canonical fields and in the MAC ("realmgate-audit/v3" ‖ kid ‖ tenant ‖
// lane ‖ seq ‖ prev_hash ‖ hash) — so it cannot be moved to another lane. Records from before the keyed chain
// (kid null) link by `hash`: the legacy prefix, checked with the old rule. A checkpoint is an Ed25519 signature
// over (tenant, lane, seq, link, time); lane 0's keep their old form, without the lane.
//
// The walk names what it finds, as the likeliest explanation of the evidence:
//   deleted_row        a seq is missing below the last record
//   edited_row         a record's contents no longer match the digest its MAC sealed (changed in place)
//   rewritten_history  a record does not link to the one before it; a record inside sealed history (at or
//                      below a checkpoint) carries a MAC that does not verify (re-hashed without the key);
//                      the records after a failing one were re-linked; or the chain at a checkpoint's seq is
//                      not the link that checkpoint signed (rewritten with the key)
//   forged_insert      a record that carries no valid MAC and that nothing after it contradicts: a MAC-less
//                      record after the keyed chain began, a garbage MAC at the tail (or one the app then
//                      built on), a record beyond the head; also a checkpoint whose signature does not verify
//   cut_tail           the records end below a checkpoint's seq, or the head is not the last record
//   unknown_key        a record MAC'd with a key id that is not configured (not a finding of tampering)
import { createHash, createHmac, sign, timingSafeEqual, verify as verifySig, type KeyObject } from "node:crypto";
import type { AuditEventRow } from "@/db/schema";
import { canonicalJson } from "@/lib/canonical-json";
import { auditView, type AuditEventView } from "./view";

export type Finding = "edited_row" | "deleted_row" | "cut_tail" | "rewritten_history" | "forged_insert" | "unknown_key";
/** The older `reason` vocabulary, kept in answers for existing readers. */
export type Reason = "edited" | "missing" | "chain_mismatch" | "truncated" | "rewritten" | "forged" | "unknown_key";
export type Broken = { lane: number; seq: number; id: string | null; reason: Reason; finding: Finding; message: string };

export const GENESIS_LINK = "0".repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;

/** The fields that are hashed, in a fixed shape (the row minus `hash`, `kid`, `mac` and its position `pos`). */
export type HashedFields = Omit<AuditEventRow, "hash" | "kid" | "mac" | "pos">;

/** How a record is named to people: "#12" in lane 0, "#12 (lane 3)" in another. */
export const recordName = (lane: number, seq: number) => (lane ? `#${seq} (lane ${lane})` : `#${seq}`);
/** How a lane is named to people: "the chain" for lane 0, "lane 3" for another. */
export const laneName = (lane: number) => (lane ? `lane ${lane}` : "the chain");

/**
 * The hashed fields by name, each with how it is read off the row; `undefined` leaves the member out (canonical JSON
 * does), so lane 0's records hash exactly as they did before lanes.
 */
const HASHED_FIELDS: [name: string, read: (row: HashedFields) => unknown][] = [
  ["tenant_id", (r) => r.tenantId],
  ["lane", (r) => (r.lane ? r.lane : undefined)],
  ["seq", (r) => r.seq],
  ["id", (r) => r.id],
  ["at", (r) => r.at.toISOString()],
  ["event", (r) => r.event],
  ["request_id", (r) => r.requestId],
  ["principal_type", (r) => r.principalType],
  ["user_id", (r) => r.userId],
  ["actor_id", (r) => r.actorId],
  ["namespace", (r) => r.namespace],
  ["operation", (r) => r.operation],
  ["ref", (r) => r.ref],
  ["outcome", (r) => r.outcome],
  ["gate", (r) => r.gate],
  ["reason", (r) => r.reason],
  ["subject_id", (r) => r.subjectId],
  ["details", (r) => r.details],
  ["prev_hash", (r) => r.prevHash],
];
/** The same, in canonical JSON's key order, each name already written as JSON. */
const HASHED_IN_ORDER = HASHED_FIELDS.map(([name]) => name)
  .sort()
  .map((name) => ({ key: `${JSON.stringify(name)}:`, read: HASHED_FIELDS.find(([n]) => n === name)![1] }));

/**
 * The canonical JSON of a record's hashed fields (what its hash is taken over): `canonicalJson` of them as one
 * object, written in the fixed key order without building and sorting that object on every record
 * (`chain.test.ts` holds the two equal).
 */
export function hashedPayload(row: HashedFields): string {
  let out = "{";
  for (const f of HASHED_IN_ORDER) {
    const v = f.read(row);
    if (v === undefined) continue;
    out += `${out.length > 1 ? "," : ""}${f.key}${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/** SHA-256 of the canonical fields: a legacy record's link, and what a keyed record's MAC seals. */
export const linkHash = (row: HashedFields) => createHash("sha256").update(hashedPayload(row), "utf8").digest("hex");

export function macOf(key: Buffer, kid: string, tenantId: string, lane: number, seq: number, prevHash: string, hash: string): string {
  const fields = lane ? ["realmgate-audit/v3", kid, tenantId, String(lane), String(seq), prevHash, hash] : ["realmgate-audit/v2", kid, tenantId, String(seq), prevHash, hash];
  return createHmac("sha256", key).update(fields.join("\n"), "utf8").digest("hex");
}

const sameHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

/** The link a record passes on: its MAC, or its SHA-256 hash for a legacy record. */
export const linkOf = (row: Pick<AuditEventRow, "hash" | "mac">): string => row.mac ?? row.hash;

// ---------------------------------------------------------------------------------------------- checkpoints

export type Checkpoint = { tenant_id: string; lane: number; seq: number; mac: string; at: string; kid: string; sig: string };

/** The version of a checkpoint's signed message (and of its digest-store line): 1 for lane 0 (no lane in it), 2 for the others. */
export const checkpointVersion = (lane: number) => (lane ? 2 : 1);

const checkpointMessage = (c: Omit<Checkpoint, "sig">) => {
  const body = c.lane ? { tenant_id: c.tenant_id, lane: c.lane, seq: c.seq, mac: c.mac, at: c.at, kid: c.kid } : { tenant_id: c.tenant_id, seq: c.seq, mac: c.mac, at: c.at, kid: c.kid };
  return Buffer.from(`realmgate-audit-checkpoint/v${checkpointVersion(c.lane)}\n${canonicalJson(body)}`, "utf8");
};

export function signCheckpoint(key: { kid: string; privateKey: KeyObject }, c: { tenant_id: string; lane: number; seq: number; mac: string; at: Date }): Checkpoint {
  const body = { tenant_id: c.tenant_id, lane: c.lane, seq: c.seq, mac: c.mac, at: c.at.toISOString(), kid: key.kid };
  return { ...body, sig: sign(null, checkpointMessage(body), key.privateKey).toString("base64url") };
}

/** "ok", "unknown_key" (signed by a key we do not know: ignored, with a warning) or "bad" (forged or edited). */
export function checkCheckpoint(verifiers: Map<string, KeyObject>, c: Checkpoint): "ok" | "unknown_key" | "bad" {
  if (typeof c.kid !== "string" || typeof c.sig !== "string" || !Number.isSafeInteger(c.seq) || !isLane(c.lane) || typeof c.mac !== "string" || typeof c.at !== "string") return "bad";
  const pub = verifiers.get(c.kid);
  if (!pub) return "unknown_key";
  try {
    return verifySig(null, checkpointMessage(c), pub, Buffer.from(c.sig, "base64url")) ? "ok" : "bad";
  } catch {
    return "bad";
  }
}

/** A lane number as the database holds it (smallint, never negative). */
export const MAX_LANE = 32_767;
export const isLane = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_LANE;

export type SealedCheckpoint = Checkpoint & { in_table: boolean; in_digest_store: boolean };
export type MergedCheckpoints = {
  /** Verified checkpoints, ascending by lane then seq, one per lane and seq. */
  list: SealedCheckpoint[];
  problem: Broken | null;
  warnings: string[];
  /** Checkpoints signed by a key id that is not configured (not used). */
  unverified: number;
};

/** Checkpoints from the table and from the digest store, each signature checked, merged by seq. */
export function mergeCheckpoints(tenantId: string, table: Checkpoint[], store: Checkpoint[], verifiers: Map<string, KeyObject>, storeUnreadable = 0): MergedCheckpoints {
  const byPlace = new Map<string, SealedCheckpoint>();
  const warnings: string[] = [];
  let problem: Broken | null = null;
  let unknown = 0;
  const note = (b: Broken) => {
    if (!problem || earlier(b, problem)) problem = b;
  };
  if (storeUnreadable) {
    note({ lane: 0, seq: 0, id: null, reason: "forged", finding: "forged_insert", message: `The digest store has ${storeUnreadable} line(s) that are not checkpoints: it was edited.` });
  }
  for (const [source, list] of [["table", table], ["digest store", store]] as const) {
    for (const c of list) {
      const verdict = c.tenant_id === tenantId ? checkCheckpoint(verifiers, c) : "bad";
      if (verdict === "unknown_key") {
        unknown++;
        continue;
      }
      const lane = isLane(c.lane) ? c.lane : 0;
      if (verdict === "bad") {
        note({ lane, seq: c.seq, id: null, reason: "forged", finding: "forged_insert", message: `The checkpoint at ${recordName(lane, c.seq)} in the ${source} is not signed by the audit signing key: it was forged or edited.` });
        continue;
      }
      const place = `${c.lane}:${c.seq}`;
      const seen = byPlace.get(place);
      if (seen && seen.mac !== c.mac) {
        note({ lane, seq: c.seq, id: null, reason: "rewritten", finding: "rewritten_history", message: `Two signed checkpoints disagree about record ${recordName(lane, c.seq)}: history was rewritten between them.` });
        continue;
      }
      const merged = seen ?? { ...c, in_table: false, in_digest_store: false };
      if (source === "table") merged.in_table = true;
      else merged.in_digest_store = true;
      byPlace.set(place, merged);
    }
  }
  if (unknown) warnings.push(`${unknown} checkpoint(s) are signed by a key that is not configured and were not used.`);
  const list = [...byPlace.values()].sort((a, b) => a.lane - b.lane || a.seq - b.seq);
  const notStored = list.filter((c) => c.in_table && !c.in_digest_store).length;
  if (notStored) warnings.push(`${notStored} checkpoint(s) in the table are missing from the digest store (was it moved, or is it not shared between nodes?).`);
  return { list, problem, warnings, unverified: unknown };
}

/** Whether a finding comes before another: lane by lane, then by seq. */
export const earlier = (a: { lane: number; seq: number }, b: { lane: number; seq: number }) => a.lane < b.lane || (a.lane === b.lane && a.seq < b.seq);

// ----------------------------------------------------------------------------------------------------- walk

export type WalkStart = { seq: number; link: string; keyed: boolean };
export type WalkContext = {
  /** The lane walked: every row given must be of it. */
  lane: number;
  keys: Map<string, { key: Buffer }>;
  /** Verified checkpoints of this lane (others are ignored), ascending. */
  checkpoints: SealedCheckpoint[];
  /** The prev_hash of the record at `seq`, if there is one: asked only to name a failing MAC. */
  prevHashAt: (seq: number) => Promise<string | undefined>;
  /** Walk a segment after a trusted link (the checkpoint writer); default: the whole chain from genesis. */
  start?: WalkStart;
};
export type WalkResult = { checked: number; last_seq: number; link: string; legacy_seq: number; broken: Broken | null };

/** Walk one lane's records in ascending seq order and stop at the first broken link. */
export async function walkChain(rows: AsyncIterable<AuditEventRow> | Iterable<AuditEventRow>, ctx: WalkContext): Promise<WalkResult> {
  const lane = ctx.lane;
  const name = (seq: number) => recordName(lane, seq);
  const start = ctx.start ?? { seq: 0, link: GENESIS_LINK, keyed: false };
  let expected = start.seq + 1;
  let prev = start.link;
  let keyed = start.keyed;
  let legacySeq = keyed ? 0 : start.seq;
  let checked = 0;
  const cps = ctx.checkpoints.filter((c) => c.lane === lane && c.seq > start.seq);
  const sealedTo = cps.length ? cps[cps.length - 1]!.seq : 0;
  let cpIdx = 0;
  let lastCpSeq = start.seq;
  const result = (broken: Broken | null): WalkResult => ({ checked, last_seq: expected - 1, link: prev, legacy_seq: legacySeq, broken });

  for await (const row of rows) {
    const at = (finding: Finding, reason: Reason, message: string, seq = row.seq, id: string | null = row.id) => result({ lane, seq, id, reason, finding, message });
    if (row.lane !== lane) return at("forged_insert", "forged", `Record ${recordName(row.lane, row.seq)} stands among the records of lane ${lane}: a forged insert.`);
    if (row.seq !== expected) {
      return row.seq > expected
        ? at("deleted_row", "missing", `Record ${name(expected)} is missing: the chain jumps from ${name(expected - 1)} to ${name(row.seq)}.`, expected, null)
        : at("forged_insert", "forged", `Record ${name(row.seq)} appears twice or out of order: a forged insert.`);
    }
    let link: string;
    if (row.kid === null && row.mac === null) {
      if (keyed) return at("forged_insert", "forged", `Record ${name(row.seq)} carries no MAC although the keyed chain began before it: it was not written by Realmgate (forged insert).`);
      if (row.prevHash !== prev) return at("rewritten_history", "chain_mismatch", `Record ${name(row.seq)} does not link to ${name(row.seq - 1)}: history was rewritten.`);
      if (linkHash(row) !== row.hash) return at("edited_row", "edited", `Record ${name(row.seq)} (legacy) was changed after it was written: it no longer matches its hash.`);
      link = row.hash;
      legacySeq = row.seq;
    } else {
      keyed = true;
      if (!row.kid || !row.mac || !HEX64.test(row.mac)) return at("forged_insert", "forged", `Record ${name(row.seq)} carries no valid MAC: it was not written by Realmgate (forged insert).`);
      const key = ctx.keys.get(row.kid);
      if (!key) return at("unknown_key", "unknown_key", `Record ${name(row.seq)} was MAC'd with audit key "${row.kid}", which is not configured: add it to REALMGATE_AUDIT_KEYS to verify the chain.`);
      if (row.prevHash !== prev) return at("rewritten_history", "chain_mismatch", `Record ${name(row.seq)} does not link to ${name(row.seq - 1)}: history was rewritten.`);
      const contentOk = linkHash(row) === row.hash;
      const macOk = sameHex(macOf(key.key, row.kid, row.tenantId, row.lane, row.seq, row.prevHash, row.hash), row.mac);
      if (!contentOk) return at("edited_row", "edited", `Record ${name(row.seq)} was changed after it was written: its contents no longer match what its MAC sealed.`);
      if (!macOk) {
        if (row.seq <= sealedTo) {
          return at("rewritten_history", "rewritten", `Record ${name(row.seq)}, sealed by a checkpoint, no longer carries its MAC: history from here was rewritten (re-hashed without the audit key).`);
        }
        const next = await ctx.prevHashAt(row.seq + 1);
        if (next !== undefined && next !== row.mac) {
          return at("rewritten_history", "rewritten", `Record ${name(row.seq)} does not carry a valid MAC and the records after it were re-linked: history from here was rewritten (re-hashed without the audit key).`);
        }
        return at("forged_insert", "forged", `Record ${name(row.seq)} does not carry a valid MAC: it was not written by Realmgate (forged insert).`);
      }
      link = row.mac;
    }
    while (cpIdx < cps.length && cps[cpIdx]!.seq === row.seq) {
      const cp = cps[cpIdx]!;
      if (cp.mac !== link) {
        checked = lastCpSeq - start.seq;
        return result({
          lane,
          seq: lastCpSeq + 1,
          id: null,
          reason: "rewritten",
          finding: "rewritten_history",
          message: `The chain at ${name(cp.seq)} is not the one the checkpoint of ${cp.at} signed: records ${name(lastCpSeq + 1)}–${name(cp.seq)} were rewritten (with the audit key).`,
        });
      }
      lastCpSeq = cp.seq;
      cpIdx++;
    }
    prev = link;
    expected++;
    checked++;
  }
  return result(null);
}

// -------------------------------------------------------------------------------------------- export lines

/** Exactly the MAC'd fields of a record, as one line of `npm run audit:export`: the API's view plus the links. */
export type ExportLine = Omit<AuditEventView, "pos"> & { tenant_id: string; prev_hash: string; hash: string; kid: string | null; mac: string | null };

export function exportLine(r: AuditEventRow): ExportLine {
  const { id, pos: _pos, lane, seq, ...view } = auditView(r);
  return { tenant_id: r.tenantId, lane, seq, id, ...view, prev_hash: r.prevHash, hash: r.hash, kid: r.kid, mac: r.mac };
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const opt = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** A line back into a record; a malformed line becomes a record that cannot verify (it is then named). */
export function rowOfLine(l: Partial<ExportLine>): AuditEventRow {
  const at = new Date(str(l.at));
  return {
    tenantId: str(l.tenant_id),
    // A line from before lanes has none: lane 0. A lane that is not one cannot verify (-1 is in no lane).
    lane: l.lane === undefined ? 0 : isLane(l.lane) ? l.lane : -1,
    seq: typeof l.seq === "number" ? l.seq : NaN,
    pos: 0,
    id: str(l.id),
    at: Number.isNaN(at.getTime()) ? new Date(0) : at,
    event: str(l.event),
    requestId: opt(l.request_id),
    principalType: str(l.principal_type),
    userId: opt(l.user_id),
    actorId: opt(l.actor_id),
    namespace: opt(l.namespace),
    operation: opt(l.operation),
    ref: opt(l.ref),
    outcome: str(l.outcome),
    gate: opt(l.gate),
    reason: opt(l.reason),
    subjectId: opt(l.subject_id),
    details: l.details && typeof l.details === "object" ? (l.details as Record<string, unknown>) : {},
    prevHash: str(l.prev_hash),
    hash: str(l.hash),
    kid: opt(l.kid),
    mac: opt(l.mac),
  };
}
