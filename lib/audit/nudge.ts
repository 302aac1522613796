// A hook from the append path to the checkpoint job, without an import cycle: when a tenant's chain reaches a
// multiple of CHECKPOINT_EVERY_RECORDS, the running job (if the server started one) is asked to run soon. The
// job's interval covers the rest, so a nudge lost (e.g. fired before its transaction committed) costs nothing.
//
// The hook is kept on globalThis, under a registered symbol: Next.js compiles instrumentation.ts (which starts the
// job and sets the hook) apart from the routes (whose appends nudge), and each gets its own copy of this module. A
// module-level variable set by one copy was never seen by the other: under `next start` no append ever nudged.
export const CHECKPOINT_EVERY_RECORDS = 1000;
export const CHECKPOINT_EVERY_MS = 5 * 60_000;

const HOOK = Symbol.for("realmgate.audit.checkpoint-nudge");
const holder = globalThis as { [HOOK]?: (() => void) | null };

export function onCheckpointNudge(fn: (() => void) | null): void {
  holder[HOOK] = fn;
}

export function nudgeCheckpoints(): void {
  holder[HOOK]?.();
}
