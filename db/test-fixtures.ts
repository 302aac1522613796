// Test fixtures: fresh tenants with users, so tests sharing one database never see each other's data.
import { getDb, type Db } from "@/db/client";
import { memberships, tenants, users, type Role } from "@/db/schema";
import type { UserContext } from "@/lib/authz/context";
import { newId } from "@/lib/ids";

export type TestTenant = { db: Db; tenantId: string; slug: string; users: Record<string, UserContext & { email: string }> };

export async function makeTenant(roles: Record<string, Role> = { alice: "owner", bob: "member", sam: "support" }): Promise<TestTenant> {
  const db = await getDb();
  const tenantId = newId("tnt");
  const slug = tenantId.replace("tnt_", "t-");
  await db.insert(tenants).values({ id: tenantId, slug, name: `Tenant ${slug}` });
  const out: TestTenant["users"] = {};
  for (const [name, role] of Object.entries(roles)) {
    const userId = newId("usr");
    const email = `${name}.${userId}@example.test`;
    await db.insert(users).values({ id: userId, email, name });
    await db.insert(memberships).values({ tenantId, userId, role });
    out[name] = { kind: "user", tenantId, userId, role, via: "session", requestId: newId("req"), email };
  }
  return { db, tenantId, slug, users: out };
}
