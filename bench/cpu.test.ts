import { describe, expect, it } from "vitest";
import { ticksOf } from "./cpu";

// Two /proc/<pid>/stat lines of one PostgreSQL server, before and after one of its backends exited and was reaped.
const line = (pid: number, comm: string, ppid: number, utime: number, stime: number, cutime: number, cstime: number) =>
  `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 1 0 100 1000 10`;

describe("CPU ticks from /proc", () => {
  it("counts a process's own ticks and those of the children it reaped, so an exited backend's time is not lost", () => {
    const before = [line(100, "postgres", 1, 5, 5, 0, 0), line(101, "postgres: bench 127.0.0.1(5000) idle", 100, 30, 10, 0, 0)];
    const after = [line(100, "postgres", 1, 5, 5, 31, 10)]; // the backend exited: its 41 ticks (one more since) are now the postmaster's children's
    const sum = (lines: string[]) => lines.reduce((a, l) => a + ticksOf(l)!.ticks, 0);
    expect(sum(after) - sum(before)).toBe(1);
  });

  it("reads a command name holding spaces and parentheses", () => {
    expect(ticksOf(line(7, "next-server (v16.4.6)", 1, 2, 3, 4, 5))).toEqual({ comm: "next-server (v16.4.6)", pgid: 7, ticks: 14 });
  });
});
