// Every PostgreSQL advisory lock Realmgate takes, in one place, so no two uses share a key. Single-key locks
// (`pg_advisory_lock(bigint)`) and two-key ones (`pg_advisory_lock(int, int)`: a class here, then a hash of the
// object) are separate key spaces in PostgreSQL. Opening an audit lane takes a single-key lock on a 64-bit hash of
// `realmgate-audit-lane/<tenant>/<lane>` (lib/audit/record.ts), which the migration key below is not expected to meet.
export const ADVISORY_LOCKS = {
  /** Single key, session-scoped: one node migrates at start-up, the others wait (db/client.ts). */
  migrations: 7417001,
  /** Single key, transaction-scoped try-lock: one checkpoint writer at a time across nodes (lib/audit/checkpoints.ts). */
  auditCheckpoints: 7417012,
  /** Class, per tenant and person: one person's support views take turns (lib/audit/views.ts). */
  supportViews: 7417013,
  /** Class, per actor: a revoke gets its turn among the actor's calls (lib/authz/grant-turns.ts). */
  grantTurns: 7417014,
  /** Class, per tenant: the audit trail's numbering turn (lib/audit/record.ts, `settledPos`). */
  auditNumbering: 7417015,
} as const;
