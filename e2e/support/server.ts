// Start `next start` in its own process group (so stopping it stops next-server too) and wait for health.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

/**
 * A free loopback port below Linux's ephemeral range (32768–60999): a port the OS handed out and took back could be
 * handed again to the next `listen(0)` (a fixture started after it), and the app would then fail with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error("no free loopback port between 20000 and 32000");
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

export type RunningServer = { url: string; child: ChildProcess; stop: () => Promise<void>; output: () => string };

export function spawnNext(port: number, env: Record<string, string | undefined>, logFile?: string, nodeArgs: string[] = []): RunningServer {
  // Idle connections stay open longer than any pause inside a test (Node closes them after 5 s by default): a test's
  // API client reusing a connection just as the server closes it gets ECONNRESET (seen once, 2026-12-03).
  const keepAlive = ["--keepAliveTimeout", "75000"];
  const child = spawn(process.execPath, [...nodeArgs, path.resolve("node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1", ...keepAlive], {
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const log = logFile ? fs.createWriteStream(logFile, { flags: "a" }) : null;
  for (const s of [child.stdout!, child.stderr!]) {
    s.on("data", (d: Buffer) => {
      out += d.toString();
      log?.write(d);
    });
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.pid) {
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {}
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid!, "SIGKILL");
          } catch {}
        }, 5000);
        await exited;
        clearTimeout(timer);
      }
      log?.end();
    },
  };
}

export async function waitForHealth(server: RunningServer, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`next start exited (${server.child.exitCode}):\n${server.output()}`);
    try {
      const res = await fetch(`${server.url}/api/health`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`next start did not become healthy in ${timeoutMs} ms:\n${server.output()}`);
}

/** Wait for a process that is expected to fail at start-up; returns its exit code and output. */
export async function waitForExit(server: RunningServer, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  if (server.child.exitCode === null) {
    await Promise.race([
      new Promise((r) => server.child.once("exit", r)),
      new Promise((r) => setTimeout(r, timeoutMs)),
    ]);
  }
  const code = server.child.exitCode;
  await server.stop();
  return { code, output: server.output() };
}
