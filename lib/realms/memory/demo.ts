// Demo data for the memory realm: four items owned by alice in the demo tenant. Runs on every start,
// so each item is inserted only when alice has no item with the same text yet.
import { and, eq } from "drizzle-orm";
import type { DemoSeedStep } from "@/db/seed";
import { memoryItems } from "@/db/schema/memory";
import { refs } from "./refs";

const items = [
  { kind: "fact", text: "Acme's fiscal year starts on 1 February.", labels: ["acme", "finance"], origin: "Finance onboarding guide", pinned: false },
  { kind: "preference", text: "Alice prefers tea over coffee, green in the afternoon.", labels: ["food", "personal"], origin: "Said in chat", pinned: true },
  { kind: "preference", text: "Alice prefers meetings after 10:00 and never on Fridays.", labels: ["calendar", "meetings"], origin: "Said in chat", pinned: false },
  { kind: "note", text: "Launch retro: send the press kit a week before the announcement.", labels: ["launch"], origin: "Launch retro notes", pinned: false },
];

export const seedDemo: DemoSeedStep = async (db, demo) => {
  const tenantId = demo.tenant.id;
  const alice = demo.users.alice;
  if (!alice) throw new Error("The memory demo needs the demo user alice.");
  const ownerId = alice.user_id;
  await db.transaction(async (tx) => {
    for (const item of items) {
      const existing = await tx
        .select({ id: memoryItems.id })
        .from(memoryItems)
        .where(and(eq(memoryItems.tenantId, tenantId), eq(memoryItems.ownerId, ownerId), eq(memoryItems.text, item.text)))
        .limit(1);
      if (existing.length) continue;
      await tx.insert(memoryItems).values({ id: refs.newId("item"), tenantId, ownerId, ...item });
    }
  });
};
