// Demo seeding, in one place: the demo tenant and its people (./seed.ts), then each realm's own demo data
// (its demo.ts stays beside its code) and the demo agent, in this order. Run on `npm run dev` (REALMGATE_SEED_DEMO).
import type { Db } from "@/db/client";
import type { DemoFile, DemoSeedStep } from "@/db/seed";
import { seedDemo as seedBoardDemo } from "@/lib/realms/board/demo";
import { seedDemo as seedDocsDemo } from "@/lib/realms/docs/demo";
import { seedDemo as seedMemoryDemo } from "@/lib/realms/memory/demo";
import { seedDemoAgent } from "./agent";
import { seedDemo } from "./seed";

/** The demo's steps after the tenant: each realm with demo data, then the agent (which is granted on them). */
export const demoSeedSteps: DemoSeedStep[] = [seedMemoryDemo, seedDocsDemo, seedBoardDemo, seedDemoAgent];

/** Seed the whole demo (tenant, people, every step) and write demo.json. */
export function seedDemoTenant(db: Db, opts: { dataDir: string; appUrl: string }): Promise<DemoFile> {
  return seedDemo(db, { ...opts, steps: demoSeedSteps });
}
