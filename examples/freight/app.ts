// The freight provider as one call: open the desk's database (seeded once), serve the protocol with the kit, and
// hold the registration — given, saved from an earlier run (`<dataDir>/registration.json`, mode 0600), or
// obtained by self-registering with a one-time token after listening. The registration is never logged.
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { registerWithRealmgate } from "../../provider-kit/register";
import { createProvider, type Registration } from "../../provider-kit/server";
import { openDb } from "./db";
import { freightHandlers } from "./handlers";
import { manifestDocument } from "./manifest";
import { seedOnce } from "./seed";

export type FreightOptions = {
  port?: number;
  host?: string;
  /** Where the database and the registration live; none: in memory (and the registration is not saved). */
  dataDir?: string;
  /** The base URL Realmgate calls; default `http://127.0.0.1:<port>` (the listening address). */
  publicUrl?: string;
  realmgateUrl?: string;
  registrationToken?: string;
  registration?: Registration;
  now?: () => Date;
  log?: (line: string) => void;
};

export type FreightApp = {
  url: string;
  setRegistration(r: Registration): void;
  registration(): Registration | null;
  /** Set when self-registration was tried and Realmgate (or the network) refused it: the reason, without secrets. */
  registrationError: string | null;
  close(): Promise<void>;
};

const registrationFile = (dataDir: string) => join(dataDir, "registration.json");

/** The saved registration (`{ registration_id, tenant_id, secret }` on disk), or null when there is none. */
export async function loadRegistration(dataDir: string): Promise<Registration | null> {
  let text: string;
  try {
    text = await readFile(registrationFile(dataDir), "utf8");
  } catch {
    return null;
  }
  const r = JSON.parse(text) as { registration_id?: unknown; tenant_id?: unknown; secret?: unknown };
  if (typeof r.registration_id !== "string" || typeof r.tenant_id !== "string" || typeof r.secret !== "string") throw new Error(`${registrationFile(dataDir)} is not a registration`);
  return { registrationId: r.registration_id, tenantId: r.tenant_id, secret: r.secret };
}

async function saveRegistration(dataDir: string, r: Registration): Promise<void> {
  const file = registrationFile(dataDir);
  await writeFile(file, `${JSON.stringify({ registration_id: r.registrationId, tenant_id: r.tenantId, secret: r.secret }, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600); // writeFile's mode applies only when it creates the file
}

export async function startFreight(opts: FreightOptions = {}): Promise<FreightApp> {
  const now = opts.now ?? (() => new Date());
  const log = opts.log ?? (() => {});
  if (opts.dataDir) await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  // PGlite owns its own directory; the registration file sits beside it.
  const db = await openDb(opts.dataDir ? join(opts.dataDir, "db") : undefined);
  await seedOnce(db, now());

  let registration: Registration | null = opts.registration ?? (opts.dataDir ? await loadRegistration(opts.dataDir) : null);
  const save = async (r: Registration) => {
    if (opts.dataDir) await saveRegistration(opts.dataDir, r);
  };
  if (opts.registration) await save(opts.registration);

  const provider = createProvider({ manifest: manifestDocument, registration: () => registration, handlers: freightHandlers(db, now), log });
  const server = await provider.listen(opts.port ?? 3600, opts.host ?? "127.0.0.1");
  const url = opts.publicUrl?.replace(/\/+$/, "") ?? server.url;

  let registrationError: string | null = null;
  if (!registration && opts.registrationToken && opts.realmgateUrl) {
    try {
      const answer = await registerWithRealmgate({ realmgateUrl: opts.realmgateUrl, token: opts.registrationToken, url });
      registration = { registrationId: answer.provider.id, tenantId: answer.tenant_id, secret: answer.secret };
      await save(registration);
    } catch (e) {
      registrationError = e instanceof Error ? e.message : String(e);
    }
  }

  return {
    url,
    setRegistration(r) {
      registration = r;
      void save(r).catch((e: unknown) => log(`could not save the registration: ${e instanceof Error ? e.message : String(e)}`));
    },
    registration: () => registration,
    get registrationError() {
      return registrationError;
    },
    async close() {
      await server.close();
      await db.close();
    },
  };
}
