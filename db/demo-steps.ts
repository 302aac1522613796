// The demo seed's extra steps, in order: each realm or domain adds its own demo data here.
import type { DemoSeedStep } from "./seed";

export const demoSeedSteps: DemoSeedStep[] = [];
