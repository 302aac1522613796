// The freight provider's command line: `node node_modules/tsx/dist/cli.mjs examples/freight/server.ts`. Reads its
// settings from the environment (README.md), prints `FREIGHT_READY {"url":…}` once listening and
// `FREIGHT_REGISTERED {…}` once registered (never the secret), and stops cleanly on SIGTERM or SIGINT.
import { startFreight } from "./app";
import type { Registration } from "../../provider-kit/server";

function registrationFromEnv(text: string | undefined): Registration | undefined {
  if (!text) return undefined;
  const r = JSON.parse(text) as { registration_id?: unknown; tenant_id?: unknown; secret?: unknown };
  if (typeof r.registration_id !== "string" || typeof r.tenant_id !== "string" || typeof r.secret !== "string") {
    throw new Error("FREIGHT_REGISTRATION must be JSON of {registration_id, tenant_id, secret}");
  }
  return { registrationId: r.registration_id, tenantId: r.tenant_id, secret: r.secret };
}

async function main(): Promise<void> {
  const env = process.env;
  const port = Number(env.FREIGHT_PORT ?? 3600);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`FREIGHT_PORT must be a port number, not ${env.FREIGHT_PORT}`);
  const app = await startFreight({
    port,
    host: env.FREIGHT_HOST ?? "127.0.0.1",
    dataDir: env.FREIGHT_DATA_DIR || undefined,
    publicUrl: env.FREIGHT_PUBLIC_URL || undefined,
    realmgateUrl: env.REALMGATE_URL || undefined,
    registrationToken: env.REALMGATE_REGISTRATION_TOKEN || undefined,
    registration: registrationFromEnv(env.FREIGHT_REGISTRATION),
    log: (line) => process.stderr.write(`freight: ${line}\n`),
  });
  process.stdout.write(`FREIGHT_READY ${JSON.stringify({ url: app.url })}\n`);
  const r = app.registration();
  if (r) process.stdout.write(`FREIGHT_REGISTERED ${JSON.stringify({ registration_id: r.registrationId, namespace: "freight" })}\n`);
  else if (app.registrationError) process.stderr.write(`freight: registration failed: ${app.registrationError}\n(still serving; register it by URL and pass FREIGHT_REGISTRATION)\n`);
  else process.stderr.write("freight: not registered yet (set REALMGATE_URL and REALMGATE_REGISTRATION_TOKEN, or FREIGHT_REGISTRATION)\n");

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`freight: ${signal}, stopping\n`);
    app.close().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`freight: close failed: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((e: unknown) => {
  process.stderr.write(`freight: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
