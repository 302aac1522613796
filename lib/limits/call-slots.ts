// How many tool calls on native realms one app node runs against the database at once. Such a call is CPU work on
// both sides (the app's and PostgreSQL's): gate one, the realm's reads and writes, the audit append. Past a few at
// once they only compete for the same cores and wait on each other's locks, and everything else that needs a pooled
// connection (the pages, health, an owner's revoke, a call waiting on a provider) queues behind them.
//
// So a call on a native realm takes a slot before its transaction opens, and gives it back when its answer is
// decided; past REALMGATE_NATIVE_MAX_IN_FLIGHT (default: twice the CPUs this process may use, plus one) it waits,
// first come first served. A call that waits on the network inside its transaction (a connected account, an
// imported service, a remote provider) takes no slot: it spends its time waiting, not working, and is bounded by its
// own limits (REALMGATE_REMOTE_MAX_IN_FLIGHT, the provider timeout) and the pool's size (DB_POOL_MAX). A wait longer
// than DB_CONNECT_TIMEOUT_MS — the bound on waiting for a pooled connection too — answers 503
// `service_unavailable` (`reason: "busy"`, Retry-After 1): nothing was read or written.
//
// Per node and in memory, like the pool it sits in front of. Measured: BENCHMARKS.md, "Under load".
import os from "node:os";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

/** The CPUs this process may use, asked once: `os.availableParallelism()` is a system call, and this sat on every call's path. */
let cpus: number | undefined;
const usableCpus = (): number => (cpus ??= os.availableParallelism());

type Waiter = { start: () => void; timer: ReturnType<typeof setTimeout> };

export type CallSlots = {
  /** Run `work` once a slot is free (at once if one is); the slot comes back when it settles, however it ends. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Calls holding a slot now. */
  readonly running: number;
  /** Calls waiting for one. */
  readonly waiting: number;
};

/**
 * The default: twice the CPUs this process may use, plus one — the classic size of a database connection pool
 * (cores × 2 + 1), as each call spends part of its time waiting on a round trip while another uses the core.
 */
export const defaultNativeMaxInFlight = (): number => 2 * usableCpus() + 1;

/** `max` slots; a call waits at most `waitMs` for one. */
export function callSlots(max: number, waitMs: number): CallSlots {
  if (!Number.isInteger(max) || max < 1) throw new Error(`callSlots: max must be a positive integer, not ${max}`);
  let running = 0;
  const queue: Waiter[] = [];
  const release = () => {
    const next = queue.shift();
    if (next) {
      // The slot passes straight to the first in line: a call arriving now cannot take it ahead of it.
      clearTimeout(next.timer);
      next.start();
    } else running--;
  };
  const acquire = (): Promise<void> | null => {
    if (running < max) {
      running++;
      return null;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        timer: setTimeout(() => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(busy(max, waitMs));
        }, waitMs),
      };
      queue.push(waiter);
    });
  };
  return {
    async run(work) {
      const wait = acquire();
      if (wait) await wait;
      try {
        return await work();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}

const busy = (max: number, waitMs: number) =>
  new AppError("service_unavailable", `This Realmgate node is running its most calls at once (${max}) and none finished within ${waitMs} ms. Retry in a moment.`, {
    headers: { "Retry-After": "1" },
    details: { reason: "busy", in_flight: max, retry_after_seconds: 1, retry_hint: "retry_later" },
  });

// One per process, on globalThis: Next.js may load this module more than once in one process (docs/architecture.md,
// "One process, two copies of a module"), and two copies would each let `max` calls in.
const KEY = Symbol.for("realmgate.callSlots");
type Holder = { [KEY]?: { slots: CallSlots; max: number; waitMs: number } };

/** This node's slots for calls on native realms, sized from the environment the first time they are asked for. */
export function nativeCallSlots(): CallSlots {
  const holder = globalThis as Holder;
  const cfg = env();
  const max = cfg.REALMGATE_NATIVE_MAX_IN_FLIGHT ?? defaultNativeMaxInFlight();
  const waitMs = cfg.DB_CONNECT_TIMEOUT_MS;
  const held = holder[KEY];
  // Tests change the environment between cases (new slots then; calls holding the old ones give them back there).
  if (held && held.max === max && held.waitMs === waitMs) return held.slots;
  const slots = callSlots(max, waitMs);
  holder[KEY] = { slots, max, waitMs };
  return slots;
}
