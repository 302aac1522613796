// Writes that must survive the call that caused them. A realm call runs inside the dispatcher's
// transaction (and a savepoint that rolls back when the call fails), yet a refreshed token or an account
// found broken (401, refused refresh) must be recorded even though the call then fails. These writes run
// in their own transaction once the caller's has let go of the database; they never run inside it (with
// the embedded database that would wait on itself). Writes with the same key run in order, and each
// applies only to the row version it expects, so a stale write never undoes a newer change.
import { getDb, type Tx } from "@/db/client";

const pending = new Set<Promise<void>>();
const chains = new Map<string, Promise<void>>();

export function afterCall(key: string, what: string, write: (tx: Tx) => Promise<void>): void {
  const previous = chains.get(key) ?? Promise.resolve();
  const p: Promise<void> = previous
    .then(async () => {
      const db = await getDb();
      await db.transaction(write);
    })
    .catch((err: unknown) => {
      // Only the first line of the message: nothing here may print secrets.
      console.error(`[connections] ${what} could not be recorded: ${err instanceof Error ? err.message.split("\n")[0]!.slice(0, 200) : "unknown error"}`);
    })
    .finally(() => {
      pending.delete(p);
      if (chains.get(key) === p) chains.delete(key);
    });
  chains.set(key, p);
  pending.add(p);
}

/** Wait for every detached write started so far (tests, scripts, shutdown). */
export async function detachedWritesSettled(): Promise<void> {
  while (pending.size) await Promise.all([...pending]);
}
