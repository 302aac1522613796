// The demo tenant `acme`, seeded idempotently on `npm run dev`, and `.data/demo.json` with its sign-in
// details and keys. Re-running keeps working credentials and replaces only what no longer works. The extra
// steps (realm data, the demo agent) are listed in lib/demo/index.ts.
import fs from "node:fs";
import path from "node:path";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import type { DemoFile, DemoSeedStep } from "@/db/seed";
import { apiKeys, memberships, tenants, users, type Role } from "@/db/schema";
import { createApiKey } from "@/lib/authz/api-keys";
import { hashPassword, hashSecret, verifyPassword } from "@/lib/authz/secrets";
import { newId } from "@/lib/ids";
import { randomBytes } from "node:crypto";

export type { DemoFile, DemoSeedStep };

export const DEMO_TENANT = { slug: "acme", name: "Acme Inc." };
export const DEMO_USERS: { key: string; email: string; name: string; role: Role }[] = [
  { key: "alice", email: "alice@acme.test", name: "Alice Owner", role: "owner" },
  { key: "bob", email: "bob@acme.test", name: "Bob Member", role: "member" },
  { key: "sam", email: "sam@acme.test", name: "Sam Support", role: "support" },
];


/** Seed the demo tenant, run each extra step (realm data, actors…), and write demo.json. */
export async function seedDemo(db: Db, opts: { dataDir: string; appUrl: string; steps?: DemoSeedStep[] }): Promise<DemoFile> {
  const file = path.join(opts.dataDir, "demo.json");
  const previous = readPrevious(file);

  let [tenant] = await db.select().from(tenants).where(eq(tenants.slug, DEMO_TENANT.slug));
  if (!tenant) {
    [tenant] = await db.insert(tenants).values({ id: newId("tnt"), ...DEMO_TENANT }).onConflictDoNothing().returning();
    tenant ??= (await db.select().from(tenants).where(eq(tenants.slug, DEMO_TENANT.slug)))[0];
  }
  const tenantId = tenant!.id;

  const demo: DemoFile = { app_url: opts.appUrl, tenant: { id: tenantId, slug: tenant!.slug, name: tenant!.name }, users: {} };
  for (const u of DEMO_USERS) {
    let [row] = await db.select().from(users).where(sql`lower(${users.email}) = ${u.email}`);
    if (!row) [row] = await db.insert(users).values({ id: newId("usr"), email: u.email, name: u.name }).returning();
    const userId = row!.id;
    await db.insert(memberships).values({ tenantId, userId, role: u.role }).onConflictDoUpdate({
      target: [memberships.tenantId, memberships.userId],
      set: { role: u.role },
    });

    const prev = previous?.users?.[u.key];
    let password = prev?.password;
    if (!password || !(await verifyPassword(password, row!.passwordHash))) {
      password = randomBytes(12).toString("base64url");
      await db.update(users).set({ passwordHash: await hashPassword(password) }).where(eq(users.id, userId));
    }

    let apiKey = prev?.api_key;
    const live = apiKey
      ? await db
          .select({ id: apiKeys.id })
          .from(apiKeys)
          .where(and(eq(apiKeys.hash, hashSecret(apiKey)), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
      : [];
    if (!apiKey || live.length === 0) apiKey = (await createApiKey(db, { tenantId, userId }, "Demo key")).key;

    demo.users[u.key] = { email: u.email, name: u.name, role: u.role, password, api_key: apiKey, user_id: userId };
  }

  for (const step of opts.steps ?? []) await step(db, demo, previous);

  fs.mkdirSync(opts.dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(demo, null, 2) + "\n", { mode: 0o600 });
  return demo;
}

function readPrevious(file: string): (Partial<DemoFile> & Record<string, unknown>) | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}
