// `npm run dev` starts this (with tsx) as a child process: the development fixtures — the local mail
// provider (OpenID Connect issuer + Gmail-compatible API) and the local Slack (OAuth v2 + Web API,
// dev/fake-slack.ts). It prints one line, `REALMGATE_FIXTURES <json>`, carrying the environment the app
// needs to reach them, then serves until it is stopped.
import { startDevMail } from "./fake-gmail";
import { startDevSlack } from "./fake-slack";

const appUrl = (process.env.APP_URL ?? "http://localhost:3000").replace(/\/+$/, "");
const port = (name: string) => Number(process.env[name] ?? "") || undefined;

const mail = await startDevMail({ appUrl, issuerPort: port("REALMGATE_DEVMAIL_ISSUER_PORT"), apiPort: port("REALMGATE_DEVMAIL_API_PORT") });
const slack = await startDevSlack({ appUrl, port: port("REALMGATE_DEVSLACK_PORT") });
process.stdout.write(`REALMGATE_FIXTURES ${JSON.stringify({ env: { ...mail.env, ...slack.env } })}\n`);
console.error(`[fixtures] local mail provider: sign in with any name at ${mail.issuer} (alice, bob and sam are the demo people); Gmail-compatible API at ${mail.gmail.url}`);
console.error(`[fixtures] local Slack at ${slack.url}: sign in as alice, bob or sam; workspaces Acme (all three) and Beta Labs (alice)`);

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void Promise.allSettled([mail.close(), slack.close()]).finally(() => process.exit(0));
  });
}
