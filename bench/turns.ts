// Side-by-side measurement for the in-process PostgreSQL benchmarks (bench:pipeline, bench:ratelimit): blocks of
// calls run a given number at a time, each block's latencies, this process's CPU and the server backends' CPU
// (from /proc) added to a running total per side, so that sides taking turns are compared per call.
import { cpuOfProcesses } from "./cpu";
import { stats } from "./report";

export type Totals = { lat: number[]; client: number; server: number; n: number; serverKnown: boolean };

export const totals = (): Totals => ({ lat: [], client: 0, server: 0, n: 0, serverKnown: true });

/** Run `fn(0…n-1)`, `concurrency` at a time; with `into`, add the block's latencies and CPU to it. */
export async function measuredBlock(n: number, concurrency: number, pids: Iterable<number>, fn: (i: number) => Promise<unknown>, into?: Totals): Promise<void> {
  let i = 0;
  const lat: number[] = [];
  const c0 = process.cpuUsage();
  const s0 = cpuOfProcesses(pids);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < n) {
        const k = i++;
        const t0 = performance.now();
        await fn(k);
        lat.push(performance.now() - t0);
      }
    }),
  );
  if (!into) return;
  const cpu = process.cpuUsage(c0);
  const s1 = cpuOfProcesses(pids);
  into.lat.push(...lat);
  into.client += (cpu.user + cpu.system) / 1000;
  if (s0 === null || s1 === null) into.serverKnown = false;
  else into.server += s1 - s0;
  into.n += n;
}

/** Median and p99 latency, and client and server CPU per call (server null when a backend was not readable). */
export function perCall(t: Totals) {
  return { ...stats(t.lat), client: t.client / t.n, server: t.serverKnown ? t.server / t.n : null };
}
