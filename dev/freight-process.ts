// The example freight provider (examples/freight) as the separate process it is: started with tsx, its own data
// directory, told where Realmgate is and the one-time registration token to register itself with. `npm run dev`
// (dev/start-fixtures.ts) and the e2e run (e2e/fixtures/freight.ts) start it once the app answers its health
// check, so the registration finds the token the demo seeded. `stop` and `start` let a test kill it and bring it
// back (its registration is kept in its data directory, so it comes back registered).
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { newSecret } from "../lib/authz/secrets";

export type FreightProcess = { url: string; running(): boolean; stop(signal?: NodeJS.Signals): Promise<void>; start(): Promise<void>; close(): Promise<void> };

/** A registration token in the shape Realmgate mints (the demo seeds its hash: lib/demo/remote.ts). */
export const newDemoRegistrationToken = () => newSecret("rgr");

/** Wait until `url` answers 200 (the app's health), up to `timeoutMs`. */
export async function waitForOk(url: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (res.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  return false;
}

export async function startFreightProcess(opts: { port: number; dataDir: string; realmgateUrl: string; token: string; log?: (line: string) => void }): Promise<FreightProcess> {
  const url = `http://127.0.0.1:${opts.port}`;
  const log = opts.log ?? ((line: string) => process.stderr.write(`[freight] ${line}\n`));
  let child: ChildProcess | null = null;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const c = spawn(process.execPath, [path.resolve("node_modules/tsx/dist/cli.mjs"), "examples/freight/server.ts"], {
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group: tsx runs the provider in a child of its own, and a stop must reach both.
        detached: true,
        env: { ...process.env, FREIGHT_PORT: String(opts.port), FREIGHT_HOST: "127.0.0.1", FREIGHT_DATA_DIR: opts.dataDir, FREIGHT_PUBLIC_URL: url, REALMGATE_URL: opts.realmgateUrl, REALMGATE_REGISTRATION_TOKEN: opts.token },
      });
      child = c;
      let ready = false;
      readline.createInterface({ input: c.stdout! }).on("line", (line) => {
        log(line);
        // Ready to answer, and registered (or told why not, on stderr): the registration line follows the ready one.
        if (line.startsWith("FREIGHT_REGISTERED ") && !ready) {
          ready = true;
          resolve();
        }
      });
      readline.createInterface({ input: c.stderr! }).on("line", (line) => {
        log(line);
        if (!ready && /not registered|registration failed/.test(line)) {
          ready = true;
          resolve();
        }
      });
      c.on("exit", (code) => {
        if (child === c) child = null;
        if (!ready) reject(new Error(`the freight provider exited (${code}) before it was ready`));
      });
    });

  /** Until nothing listens on the port any more (the provider's own process may outlive tsx's by a moment). */
  const portFree = async () => {
    for (let i = 0; i < 50; i++) {
      const open = await new Promise<boolean>((r) => {
        const sock = net.connect(opts.port, "127.0.0.1");
        sock.once("connect", () => (sock.destroy(), r(true)));
        sock.once("error", () => r(false));
      });
      if (!open) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const stop = (signal: NodeJS.Signals = "SIGTERM") =>
    new Promise<void>((resolve) => {
      const c = child;
      if (!c || c.exitCode !== null) return resolve();
      c.once("exit", () => void portFree().then(resolve));
      try {
        process.kill(-c.pid!, signal);
      } catch {
        c.kill(signal);
      }
    });

  await start();
  return { url, running: () => child !== null, stop, start, close: () => stop() };
}
