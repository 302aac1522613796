// Side-by-side measurement for the in-process PostgreSQL benchmarks (bench:pipeline, bench:ratelimit): a pool per
// side whose backends are known by pid, and blocks of calls run a given number at a time, each block's latencies,
// this process's CPU and the server backends' CPU (from /proc) added to a running total per side, so that sides
// taking turns are compared per call.
import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { withStatementName } from "@/db/prepared";
import { cpuOfProcesses } from "./cpu";
import { stats } from "./report";

type Send = (...args: unknown[]) => unknown;
export type MeasuredPool = { pool: pg.Pool; db: ReturnType<typeof drizzle>; pids: Set<number> };

/**
 * A pool of 8 whose connections stay open for the whole run (so the backends whose CPU is read live as long) and
 * send named prepared statements as the app does (db/prepared.ts). `wrap` may put something between a client and
 * the wire (the pipeline, a counter); it gets the client's own `query`.
 */
export function measuredPool(url: string, wrap: (client: pg.PoolClient, own: Send) => Send = (_c, own) => own): MeasuredPool {
  const pool = new pg.Pool({ connectionString: url, max: 8, idleTimeoutMillis: 0 });
  const m: MeasuredPool = { pool, db: drizzle(pool), pids: new Set() };
  // The scratch database is dropped at the end with its connections: an idle client cut off then is no error.
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    const own = client.query.bind(client) as Send;
    const send = wrap(client, own);
    (client as unknown as { query: Send }).query = (...args: unknown[]) => send(...withStatementName(args));
    void (own("select pg_backend_pid() as pid") as Promise<{ rows: { pid: number }[] }>).then((r) => m.pids.add(r.rows[0]!.pid));
  });
  return m;
}

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

/** How `b` compares to `a`, as a factor. */
export const ratio = (a: number, b: number) => `${(b / a).toFixed(2)}×`;
