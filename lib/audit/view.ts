// One audit record as the API, the support console and the chain's export line show it (snake_case, ISO times).
// Below both query.ts (which records the reads it serves) and chain.ts (which MACs these fields), so neither
// imports the other.
import type { AuditEventRow } from "@/db/schema";

export type AuditEventView = {
  id: string;
  /** Its order in the trail across lanes: later records have greater `pos` (drawn from one sequence, not gapless). */
  pos: number;
  /** The chain (lane) the record is in, and its place there. */
  lane: number;
  seq: number;
  at: string;
  event: string;
  request_id: string | null;
  principal_type: string;
  user_id: string | null;
  actor_id: string | null;
  namespace: string | null;
  operation: string | null;
  ref: string | null;
  outcome: string;
  gate: string | null;
  reason: string | null;
  subject_id: string | null;
  details: Record<string, unknown>;
};

export const auditView = (r: AuditEventRow): AuditEventView => ({
  id: r.id,
  pos: r.pos,
  lane: r.lane,
  seq: r.seq,
  at: r.at.toISOString(),
  event: r.event,
  request_id: r.requestId,
  principal_type: r.principalType,
  user_id: r.userId,
  actor_id: r.actorId,
  namespace: r.namespace,
  operation: r.operation,
  ref: r.ref,
  outcome: r.outcome,
  gate: r.gate,
  reason: r.reason,
  subject_id: r.subjectId,
  details: r.details,
});
