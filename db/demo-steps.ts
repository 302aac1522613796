// The demo seed's extra steps, in order: each realm or domain adds its own demo data here.
import { seedDemo as seedBoardDemo } from "@/lib/realms/board/demo";
import { seedDemo as seedDocsDemo } from "@/lib/realms/docs/demo";
import { seedDemo as seedMemoryDemo } from "@/lib/realms/memory/demo";
import { seedDemoAgent } from "@/lib/authz/demo-agent";
import type { DemoSeedStep } from "./seed";

export const demoSeedSteps: DemoSeedStep[] = [seedMemoryDemo, seedDocsDemo, seedBoardDemo, seedDemoAgent];
