// CPU time spent by the parts of a benchmark run, read from /proc (Linux): the app server's process group, every
// PostgreSQL process on the machine, and this process (the load generator). On another OS every figure is null.
import fs from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

export type CpuSample = { app: number; database: number; generator: number } | null;

/**
 * A process's CPU ticks from its /proc/<pid>/stat line: its own (utime, stime) and its children's that it has
 * waited for (cutime, cstime). A PostgreSQL backend that exits during a run (a pool's idle connection closed) takes
 * its ticks out of the sum of live processes, but they reappear in the postmaster's children's time: summing both
 * over a set that holds the parent counts each tick once.
 */
export function ticksOf(stat: string): { comm: string; pgid: number; ticks: number } | null {
  // "pid (comm) state ppid pgrp session … utime(14) stime(15) cutime(16) cstime(17) …"; comm may hold spaces and parens.
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  const comm = stat.slice(stat.indexOf("(") + 1, close);
  const rest = stat.slice(close + 2).split(" ");
  return { comm, pgid: Number(rest[2]), ticks: Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]) };
}

/** CPU milliseconds used so far by the app's process group, PostgreSQL, and this process. */
export function cpuSample(appGroup: number | undefined): CpuSample {
  if (process.platform !== "linux" || !fs.existsSync("/proc/self/stat")) return null;
  let app = 0;
  let database = 0;
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const t = ticksOf(stat);
    if (!t) continue;
    if (appGroup !== undefined && t.pgid === appGroup) app += t.ticks * TICK_MS;
    else if (t.comm === "postgres" || t.comm.startsWith("postgres:")) database += t.ticks * TICK_MS;
  }
  const self = process.cpuUsage();
  return { app, database, generator: (self.user + self.system) / 1000 };
}

/** CPU milliseconds these processes have used so far; null off Linux or when one of them is not on this machine. */
export function cpuOfProcesses(pids: Iterable<number>): number | null {
  if (process.platform !== "linux") return null;
  let ms = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      return null; // a server on another machine, or gone
    }
    const t = ticksOf(stat);
    if (!t) return null;
    ms += t.ticks * TICK_MS;
  }
  return ms;
}

/** CPU milliseconds per answered request between two samples. */
export function cpuPerRequest(before: CpuSample, after: CpuSample, requests: number): CpuSample {
  if (!before || !after || requests <= 0) return null;
  return {
    app: (after.app - before.app) / requests,
    database: (after.database - before.database) / requests,
    generator: (after.generator - before.generator) / requests,
  };
}
