// Demo seeding, in one place: the demo tenant and its people (./seed.ts), then each realm's own demo data (its
// demo.ts, beside its code, which the registry's realm modules carry) and the demo agent, in this order. Run on
// `npm run dev` (REALMGATE_SEED_DEMO).
import type { Db } from "@/db/client";
import type { DemoFile, DemoSeedStep } from "@/db/seed";
import { builtInRealmModules } from "@/lib/realms/registry";
import { seedDemoAgent } from "./agent";
import { seedDemoModes } from "./modes";
import { seedDemoRemote } from "./remote";
import { seedDemo } from "./seed";

/**
 * The demo's steps after the tenant: each registered realm's demo data, in the registry's order (memory, docs,
 * board), then the operations the demo asks each time, then the agent (which is granted on them), then the
 * registration token of the demo's remote provider, when one was started.
 */
export const demoSeedSteps: DemoSeedStep[] = [...builtInRealmModules.flatMap((m) => (m.demo ? [m.demo] : [])), seedDemoModes, seedDemoAgent, seedDemoRemote];

/** Seed the whole demo (tenant, people, every step) and write demo.json. */
export function seedDemoTenant(db: Db, opts: { dataDir: string; appUrl: string }): Promise<DemoFile> {
  return seedDemo(db, { ...opts, steps: demoSeedSteps });
}
