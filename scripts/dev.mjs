#!/usr/bin/env node
// `npm run dev`: the app on the embedded database with the demo tenant and the development sign-in, plus
// the development fixtures (dev/start-fixtures.ts: local mail and Slack providers to connect demo accounts).
// A development AUTH_SECRET is generated once into .data/ so sessions survive restarts.
// REALMGATE_DEV_FIXTURES=0 starts the app alone.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";

const dataDir = path.resolve(process.env.REALMGATE_DATA_DIR ?? ".data");
fs.mkdirSync(dataDir, { recursive: true });
const secretFile = path.join(dataDir, "dev-auth-secret");
if (!fs.existsSync(secretFile)) fs.writeFileSync(secretFile, randomBytes(32).toString("base64url"), { mode: 0o600 });

const args = process.argv.slice(2);
const portArg = args.findIndex((a) => a === "-p" || a === "--port");
const port = (portArg >= 0 ? args[portArg + 1] : undefined) ?? process.env.PORT ?? "3000";
// The fixtures register the app's callback URL exactly, so the app and they must agree on it.
const appUrl = (process.env.APP_URL ?? `http://localhost:${port}`).replace(/\/+$/, "");

const env = {
  ...process.env,
  APP_URL: appUrl,
  AUTH_SECRET: process.env.AUTH_SECRET ?? fs.readFileSync(secretFile, "utf8").trim(),
  REALMGATE_DEV_LOGIN: process.env.REALMGATE_DEV_LOGIN ?? "1",
  REALMGATE_SEED_DEMO: process.env.REALMGATE_SEED_DEMO ?? "1",
};

const children = [];
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => children.forEach((c) => c.kill(sig)));

/** Start the fixtures and wait for the line carrying their environment; null if they could not start. */
function startFixtures() {
  if (process.env.REALMGATE_DEV_FIXTURES === "0") return Promise.resolve(null);
  const child = spawn(process.execPath, [path.resolve("node_modules/tsx/dist/cli.mjs"), "dev/start-fixtures.ts"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, APP_URL: appUrl },
  });
  children.push(child);
  return new Promise((resolve) => {
    let done = false;
    const finish = (value) => {
      if (!done) {
        done = true;
        resolve(value);
      }
    };
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("REALMGATE_FIXTURES ")) finish(JSON.parse(line.slice("REALMGATE_FIXTURES ".length)).env);
      else process.stdout.write(`[fixtures] ${line}\n`);
    });
    child.on("exit", (code) => {
      if (!done) console.error(`[fixtures] exited (${code}) before starting; the app runs without the local mail and Slack providers.`);
      finish(null);
    });
  });
}

const fixtureEnv = await startFixtures();
const app = spawn(process.execPath, [path.resolve("node_modules/next/dist/bin/next"), "dev", ...args], {
  stdio: "inherit",
  env: { ...env, ...(fixtureEnv ?? {}) },
});
children.push(app);
app.on("exit", (code, signal) => {
  for (const c of children) if (c !== app && c.exitCode === null) c.kill("SIGTERM");
  process.exit(code ?? (signal ? 1 : 0));
});
