// The demo seed's shapes: what `.data/demo.json` holds and what a demo step is. Realms' own demo steps
// (lib/realms/<realm>/demo.ts) import these; the seeding itself, and the one list of steps, is lib/demo.
import type { Db } from "@/db/client";
import type { Role } from "@/db/schema";

export type DemoUser = { email: string; name: string; role: Role; password: string; api_key: string; user_id: string };
export type DemoFile = {
  app_url: string;
  tenant: { id: string; slug: string; name: string };
  users: Record<string, DemoUser>;
  /** Added by the demo agent step: a delegated actor acting for alice. */
  agent?: { actor_id: string; name: string; grantor: string; token: string; grants: Record<string, string[]> };
};

export type DemoSeedStep = (db: Db, demo: DemoFile, previous: Partial<DemoFile> | null) => Promise<void>;
