// Starts, for the whole e2e run: a local OpenID Connect issuer for sign-in, every development fixture in
// e2e/fixtures/ (local providers the realms talk to), and the built app on a fresh database: a PGlite data dir of its
// own, or, when DATABASE_URL names PostgreSQL, a database of its own on that server (the unit tests have already
// written to DATABASE_URL's: the demo tenant among others, its audit trail MAC'd with the tests' AUTH_SECRET).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOidcIssuer } from "../dev/oidc-issuer";
import { e2eFixtures } from "./fixtures";
import { scratchDatabase } from "./support/postgres";
import { freePort, spawnNext, waitForHealth } from "./support/server";

export default async function globalSetup() {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const clientSecret = randomBytes(24).toString("base64url");
  const issuer = await startOidcIssuer({
    clients: [
      {
        client_id: "realmgate-e2e",
        client_secret: clientSecret,
        redirect_uris: [`${appUrl}/api/auth/callback/oidc`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
  });

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "realmgate-e2e-"));
  fs.mkdirSync("e2e/artifacts", { recursive: true });
  const started: { close: () => Promise<void> }[] = [];
  const fixtureEnv: Record<string, string> = {};
  for (const fixture of e2eFixtures) {
    const f = await fixture({ appUrl });
    started.push(f);
    Object.assign(fixtureEnv, f.env);
  }
  const databaseUrl = process.env.DATABASE_URL;
  const database = databaseUrl && /^postgres(ql)?:/.test(databaseUrl) ? await scratchDatabase("realmgate_e2e", databaseUrl) : null;
  const env = {
    ...(database ? { DATABASE_URL: database.url } : {}),
    AUTH_SECRET: randomBytes(32).toString("base64url"),
    APP_URL: appUrl,
    REALMGATE_DATA_DIR: dataDir,
    REALMGATE_SEED_DEMO: "1",
    REALMGATE_DEV_LOGIN: "0",
    AUTH_OIDC_ISSUER: issuer.issuer,
    AUTH_OIDC_CLIENT_ID: "realmgate-e2e",
    AUTH_OIDC_CLIENT_SECRET: clientSecret,
    AUTH_OIDC_NAME: "Local SSO",
    REALMGATE_REMOTE_PRIVATE_HOSTS: "127.0.0.1,localhost",
    ...fixtureEnv,
  };
  const server = spawnNext(port, env, "e2e/artifacts/server.log");
  await waitForHealth(server);

  // Specs read these (workers inherit the environment set here).
  process.env.E2E_BASE_URL = appUrl;
  process.env.E2E_DATA_DIR = dataDir;
  process.env.E2E_ISSUER = issuer.issuer;
  for (const [k, v] of Object.entries(fixtureEnv)) process.env[`E2E_FIXTURE_${k}`] = v;

  return async () => {
    await server.stop();
    await issuer.close();
    for (const f of started) await f.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

