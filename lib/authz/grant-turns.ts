// A revocation gets its turn among the calls that keep reading the grants it ends. Gate one reads an actor's grants
// FOR SHARE (a revoke waits for the calls in flight that rely on them: no allow is recorded after a revoke commits),
// but PostgreSQL lets a new FOR SHARE join rows already share-locked ahead of an update waiting for them: an agent
// calling without pause kept its grant's revoke waiting until the statement timeout (503) and the grant live (found
// by an attack, 2026-12-04). So both also take a per-actor advisory lock, whose queue is fair: gate one takes it
// shared (`sharedTurnSql`, evaluated on each grant row before the row is locked), and a writer that ends or narrows
// an actor's grants takes it exclusive first (`takeTurnsOf`), before any row it locks. A call arriving after the
// writer queued waits behind it, then reads the grant as the writer left it; only the calls already in flight are
// waited for.
import { sql, type SQL } from "drizzle-orm";
import { ADVISORY_LOCKS } from "@/db/advisory-locks";
import type { Executor } from "@/db/client";

/** The lock's first key (its class); the second is the actor id's hash. */
const TURN_CLASS = ADVISORY_LOCKS.grantTurns;

/** In gate one's grants read: true, once this call holds its shared turn for the row's actor. */
export const sharedTurnSql = (actorColumn: SQL): SQL =>
  sql`exists (select 1 from pg_advisory_xact_lock_shared(${sql.raw(String(TURN_CLASS))}, hashtext(${actorColumn})))`;

/**
 * Take the exclusive turn for each actor whose grants this transaction is about to revoke or suspend, in one order
 * (by id), before locking any grant or approval row: calls of those actors that arrive from now on wait for this
 * transaction to end.
 */
export async function takeTurnsOf(tx: Executor, actorIds: Iterable<string>): Promise<void> {
  for (const id of [...new Set(actorIds)].sort()) await tx.execute(sql`select pg_advisory_xact_lock(${sql.raw(String(TURN_CLASS))}, hashtext(${id}))`);
}
