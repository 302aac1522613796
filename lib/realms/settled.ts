// ctx.settled: writes that must happen whether a realm call's effect succeeded or failed (a provider's
// rotated refresh token, an account found broken, claims the provider refused). Whoever builds a
// RealmContext collects them and runs them after the effect — after its savepoint committed or rolled back —
// on the enclosing transaction (a read's effect has no savepoint: when it fails, they run in the fresh transaction
// that records its audit), so they commit together with the call's audit record. Each runs in a
// savepoint of its own, in the order given: one that fails is logged (first line only: nothing here may print
// secrets) and undone alone, never taking the call's answer or its audit record with it.
import type { Executor, Tx } from "@/db/client";

export type SettledWrite = (tx: Tx) => Promise<void>;

export type SettledWrites = { add: (write: SettledWrite) => void; run: (on: Executor) => Promise<void> };

export function settledWrites(): SettledWrites {
  const queue: SettledWrite[] = [];
  return {
    add: (write) => {
      queue.push(write);
    },
    run: async (on) => {
      for (let write = queue.shift(); write; write = queue.shift()) {
        try {
          await on.transaction(write);
        } catch (err) {
          console.error(`[realms] a settled write could not be recorded: ${err instanceof Error ? err.message.split("\n")[0]!.slice(0, 200) : "unknown error"}`);
        }
      }
    },
  };
}
