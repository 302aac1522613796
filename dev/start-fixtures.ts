// `npm run dev` starts this (with tsx) as a child process: the development fixtures — the local mail
// provider (OpenID Connect issuer + Gmail-compatible API), the local Slack (OAuth v2 + Web API,
// dev/fake-slack.ts) and, once the app is up, the example freight provider (examples/freight, its own process,
// registering itself in the demo tenant with a one-time token). It prints one line, `REALMGATE_FIXTURES <json>`,
// carrying the environment the app needs, then serves until it is stopped.
import path from "node:path";
import { newDemoRegistrationToken, startFreightProcess, waitForOk, type FreightProcess } from "./freight-process";
import { startDevMail } from "./fake-gmail";
import { startDevSlack } from "./fake-slack";

const appUrl = (process.env.APP_URL ?? "http://localhost:3000").replace(/\/+$/, "");
const port = (name: string) => Number(process.env[name] ?? "") || undefined;

const mail = await startDevMail({ appUrl, issuerPort: port("REALMGATE_DEVMAIL_ISSUER_PORT"), apiPort: port("REALMGATE_DEVMAIL_API_PORT") });
const slack = await startDevSlack({ appUrl, port: port("REALMGATE_DEVSLACK_PORT") });
const freightToken = newDemoRegistrationToken();
const remoteEnv = { REALMGATE_DEMO_REMOTE_TOKEN: freightToken, REALMGATE_REMOTE_PRIVATE_HOSTS: "127.0.0.1,localhost" };
process.stdout.write(`REALMGATE_FIXTURES ${JSON.stringify({ env: { ...mail.env, ...slack.env, ...remoteEnv } })}\n`);
console.error(`[fixtures] local mail provider: sign in with any name at ${mail.issuer} (alice, bob and sam are the demo people); Gmail-compatible API at ${mail.gmail.url}`);
console.error(`[fixtures] local Slack at ${slack.url}: sign in as alice, bob or sam; workspaces Acme (all three) and Beta Labs (alice)`);

// Freight registers itself once the app answers (the demo seeds its token at start-up); it keeps its registration
// in its data directory, beside the app's, so later runs come back registered.
let freight: FreightProcess | null = null;
void (async () => {
  if (!(await waitForOk(`${appUrl}/api/health`, 10 * 60_000))) return console.error("[fixtures] the app did not come up; the freight provider was not started");
  const dataDir = path.join(path.resolve(process.env.REALMGATE_DATA_DIR ?? ".data"), "freight");
  try {
    freight = await startFreightProcess({ port: port("REALMGATE_DEVFREIGHT_PORT") ?? 3600, dataDir, realmgateUrl: appUrl, token: freightToken, log: (line) => console.error(`[freight] ${line}`) });
    console.error(`[fixtures] the freight provider (examples/freight) at ${freight.url}: a remote realm of the demo tenant`);
  } catch (err) {
    console.error(`[fixtures] the freight provider did not start: ${(err as Error).message}`);
  }
})();

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void Promise.allSettled([mail.close(), slack.close(), freight?.close()]).finally(() => process.exit(0));
  });
}
