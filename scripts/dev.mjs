#!/usr/bin/env node
// `npm run dev`: the app on the embedded database with the demo tenant and the development sign-in.
// A development AUTH_SECRET is generated once into .data/ so sessions survive restarts.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const dataDir = path.resolve(process.env.REALMGATE_DATA_DIR ?? ".data");
fs.mkdirSync(dataDir, { recursive: true });
const secretFile = path.join(dataDir, "dev-auth-secret");
if (!fs.existsSync(secretFile)) fs.writeFileSync(secretFile, randomBytes(32).toString("base64url"), { mode: 0o600 });

const env = {
  ...process.env,
  AUTH_SECRET: process.env.AUTH_SECRET ?? fs.readFileSync(secretFile, "utf8").trim(),
  REALMGATE_DEV_LOGIN: process.env.REALMGATE_DEV_LOGIN ?? "1",
  REALMGATE_SEED_DEMO: process.env.REALMGATE_SEED_DEMO ?? "1",
};

const child = spawn(process.execPath, [path.resolve("node_modules/next/dist/bin/next"), "dev", ...process.argv.slice(2)], {
  stdio: "inherit",
  env,
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
