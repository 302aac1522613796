// A hook from the append path to the checkpoint job, without an import cycle: when a tenant's chain reaches a
// multiple of CHECKPOINT_EVERY_RECORDS, the running job (if the server started one) is asked to run soon. The
// job's interval covers the rest, so a nudge lost (e.g. fired before its transaction committed) costs nothing.
export const CHECKPOINT_EVERY_RECORDS = 1000;
export const CHECKPOINT_EVERY_MS = 5 * 60_000;

let hook: (() => void) | null = null;

export function onCheckpointNudge(fn: (() => void) | null): void {
  hook = fn;
}

export function nudgeCheckpoints(): void {
  hook?.();
}
