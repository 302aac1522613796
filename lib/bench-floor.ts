// The floor of a tool call, for `npm run bench:load` only: what a JSON POST costs this server when it does what any
// tool call must — three exchanges with the database in one transaction (the first with BEGIN, the last with a
// COMMIT that waits for the WAL flush, as a call's does after its audit append) — and nothing else: no token, no
// gate, no realm, no audit. Measured beside `GET /api/health` and the tool call, it splits the call's cost into what
// the transport and the database's exchanges cost (the floor) and what Realmgate's own work costs (the rest).
//
// Served only when the server runs with REALMGATE_BENCH_FLOOR=1 (bench:load starts its server so); otherwise the
// route is the ordinary unknown-route 404. It reads and writes no data; its last statement writes one record to the
// WAL (a transactional `pg_logical_emit_message`, which no table sees), so its COMMIT waits for the WAL to be flushed
// as a call's does after its audit append. (A transaction id alone, `pg_current_xact_id()`, was not enough: with no
// WAL written before it, PostgreSQL commits such a transaction without waiting for the flush, ~0.09 ms less here.)
import { sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { commitWithNext } from "@/db/pipeline";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

/** How long the answer's padding may be asked to be (bytes): enough to match a tool call's answer. */
export const FLOOR_MAX_PAD = 65_536;

export type FloorAnswer = { ok: true; exchanges: 3; echo: unknown; pad: string };

/** Whether this server serves the floor (REALMGATE_BENCH_FLOOR=1). */
export const floorServed = (): boolean => env().REALMGATE_BENCH_FLOOR;

/**
 * Three exchanges in one transaction, then `input` echoed with `pad` bytes of padding (0 to FLOOR_MAX_PAD), so the
 * answer can be as large as the tool call's it stands beside.
 */
export async function floorCall(input: unknown, pad: number): Promise<FloorAnswer> {
  if (!Number.isInteger(pad) || pad < 0 || pad > FLOOR_MAX_PAD) {
    throw new AppError("invalid_input", `size must be a whole number of bytes from 0 to ${FLOOR_MAX_PAD}.`, { details: { field: "size" } });
  }
  const db = await getDb();
  await db.transaction(async (tx) => {
    // Parameters make each statement a named one: the first rides with BEGIN, the last with COMMIT (db/pipeline.ts).
    await tx.execute(sql`select ${1}::int as n`);
    await tx.execute(sql`select ${2}::int as n`);
    commitWithNext(tx);
    await tx.execute(sql`select pg_logical_emit_message(true, 'realmgate/bench-floor', '')::text as lsn, ${3}::int as n`);
  });
  return { ok: true, exchanges: 3, echo: input, pad: "x".repeat(pad) };
}
