import { beforeAll, describe, expect, it } from "vitest";
import { makeTenant, type TestTenant } from "@/test-support";
import { AppError } from "@/lib/errors";
import { createApiKey, listApiKeys, revokeApiKey, userForApiKey } from "./api-keys";

let t: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
  other = await makeTenant({ eve: "owner" });
});

describe("personal API keys", () => {
  it("authenticates as its user in its tenant, with their role", async () => {
    const { key } = await createApiKey(t.db, t.users.bob!, "laptop");
    expect(key).toMatch(/^rgk_[A-Za-z0-9_-]{43}$/);
    const ctx = await userForApiKey(t.db, key);
    expect(ctx).toMatchObject({ kind: "user", tenantId: t.tenantId, userId: t.users.bob!.userId, role: "member", via: "api_key" });
  });

  it("is listed without the key or its hash", async () => {
    await createApiKey(t.db, t.users.alice!, "ci");
    const list = await listApiKeys(t.db, t.users.alice!);
    expect(list.map((k) => k.name)).toContain("ci");
    expect(JSON.stringify(list)).not.toMatch(/rgk_[A-Za-z0-9_-]{20}|"hash"|"key"/);
  });

  it("stops working once revoked, and revoking twice is harmless", async () => {
    const created = await createApiKey(t.db, t.users.alice!, "temp");
    const revoked = await revokeApiKey(t.db, t.users.alice!, created.id);
    expect(revoked.revoked_at).not.toBeNull();
    expect(await userForApiKey(t.db, created.key)).toBeNull();
    expect((await revokeApiKey(t.db, t.users.alice!, created.id)).revoked_at).toBe(revoked.revoked_at);
  });

  it("cannot be revoked by another user or another tenant (not_found)", async () => {
    const created = await createApiKey(t.db, t.users.alice!, "mine");
    for (const who of [t.users.bob!, other.users.eve!]) {
      await expect(revokeApiKey(t.db, who, created.id)).rejects.toSatisfy((e: unknown) => e instanceof AppError && e.code === "not_found");
    }
    expect(await userForApiKey(t.db, created.key)).not.toBeNull();
  });

  it("rejects unknown and altered keys", async () => {
    const { key } = await createApiKey(t.db, t.users.alice!, "x");
    expect(await userForApiKey(t.db, key.slice(0, -1) + (key.endsWith("A") ? "B" : "A"))).toBeNull();
    expect(await userForApiKey(t.db, "rgk_unknown")).toBeNull();
  });
});
