// The demo's remote provider token: entered for alice when the dev run started freight with one, never when the
// demo tenant already has a freight provider, never when the token is malformed.
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { remoteProviders, remoteRegistrationTokens } from "@/db/schema";
import type { DemoFile } from "@/db/seed";
import { hashSecret } from "@/lib/authz/secrets";
import { newId } from "@/lib/ids";
import { envOverride, makeTenant, type TestTenant } from "@/test-support";
import { seedDemoRemote } from "./remote";

const envs = envOverride();
afterAll(() => envs.restore());

const demoOf = (t: TestTenant): DemoFile => ({
  app_url: "http://localhost",
  tenant: { id: t.tenantId, slug: t.slug, name: "Demo" },
  users: { alice: { email: t.users.alice!.email, name: "alice", role: "owner", password: "x", api_key: "k", user_id: t.users.alice!.userId } },
});
const tokensOf = (t: TestTenant) => t.db.select().from(remoteRegistrationTokens).where(eq(remoteRegistrationTokens.tenantId, t.tenantId));

describe("seedDemoRemote", () => {
  it("enters the run's token, as minted by alice, once", async () => {
    const t = await makeTenant();
    const token = `rgr_${"a".repeat(43)}`;
    envs.set({ REALMGATE_DEMO_REMOTE_TOKEN: token });
    await seedDemoRemote(t.db, demoOf(t), null);
    await seedDemoRemote(t.db, demoOf(t), null);
    const rows = await tokensOf(t);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ createdBy: t.users.alice!.userId, tokenHash: hashSecret(token), usedAt: null });
  });

  it("enters nothing when freight is registered already, or the token is not one", async () => {
    const t = await makeTenant();
    envs.set({ REALMGATE_DEMO_REMOTE_TOKEN: "not-a-token" });
    await seedDemoRemote(t.db, demoOf(t), null);
    expect(await tokensOf(t)).toHaveLength(0);
    await t.db.insert(remoteProviders).values({ id: newId("rrp"), tenantId: t.tenantId, namespace: "freight", baseUrl: "http://127.0.0.1:1", manifest: {}, manifestVersion: "1", secretSealed: "x.y", registeredVia: "token" });
    envs.set({ REALMGATE_DEMO_REMOTE_TOKEN: `rgr_${"b".repeat(43)}` });
    await seedDemoRemote(t.db, demoOf(t), null);
    expect(await tokensOf(t)).toHaveLength(0);
  });
});
