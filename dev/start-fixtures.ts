// `npm run dev` starts this (with tsx) as a child process: the development fixtures — today the local mail
// provider (OpenID Connect issuer + Gmail-compatible API). It prints one line, `REALMGATE_FIXTURES <json>`,
// carrying the environment the app needs to reach them, then serves until it is stopped.
import { startDevMail } from "./fake-gmail";

const appUrl = (process.env.APP_URL ?? "http://localhost:3000").replace(/\/+$/, "");
const port = (name: string) => Number(process.env[name] ?? "") || undefined;

const mail = await startDevMail({ appUrl, issuerPort: port("REALMGATE_DEVMAIL_ISSUER_PORT"), apiPort: port("REALMGATE_DEVMAIL_API_PORT") });
process.stdout.write(`REALMGATE_FIXTURES ${JSON.stringify({ env: mail.env })}\n`);
console.error(`[fixtures] local mail provider: sign in with any name at ${mail.issuer} (alice, bob and sam are the demo people); Gmail-compatible API at ${mail.gmail.url}`);

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    void mail.close().finally(() => process.exit(0));
  });
}
