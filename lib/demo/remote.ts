// The demo's remote provider: `npm run dev` (and the e2e run) start the example freight provider
// (examples/freight) with a one-time registration token they made up, and hand the app the same token in
// REALMGATE_DEMO_REMOTE_TOKEN. This step enters it as a token alice (the demo owner) minted, unless the demo tenant
// already has a freight provider; the provider then registers itself with it, as any provider would.
import { and, eq } from "drizzle-orm";
import { remoteProviders, remoteRegistrationTokens } from "@/db/schema";
import type { DemoSeedStep } from "@/db/seed";
import { hashSecret } from "@/lib/authz/secrets";
import { newId } from "@/lib/ids";

const TOKEN_TTL_MS = 60 * 60 * 1000;

export const seedDemoRemote: DemoSeedStep = async (db, demo) => {
  const token = process.env.REALMGATE_DEMO_REMOTE_TOKEN?.trim();
  const alice = demo.users.alice;
  if (!token || !/^rgr_[A-Za-z0-9_-]{20,100}$/.test(token) || !alice) return;
  const [registered] = await db.select({ id: remoteProviders.id }).from(remoteProviders).where(and(eq(remoteProviders.tenantId, demo.tenant.id), eq(remoteProviders.namespace, "freight"))).limit(1);
  if (registered) return;
  const tokenHash = hashSecret(token);
  await db
    .insert(remoteRegistrationTokens)
    .values({ id: newId("rrt"), tenantId: demo.tenant.id, tokenHash, createdBy: alice.user_id, expiresAt: new Date(Date.now() + TOKEN_TTL_MS) })
    .onConflictDoNothing();
};
