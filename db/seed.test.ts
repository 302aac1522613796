import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { userForApiKey } from "@/lib/authz/api-keys";
import { userForDevSignIn } from "@/lib/authz/users";
import { seedDemo } from "./seed";

describe("demo seed", () => {
  it("creates acme with alice, bob and sam, and is idempotent", async () => {
    const db = await getDb();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rg-seed-"));
    const first = await seedDemo(db, { dataDir, appUrl: "http://localhost:3000" });
    const second = await seedDemo(db, { dataDir, appUrl: "http://localhost:3000" });
    expect(second).toEqual(first); // same passwords and keys: nothing rotated by a restart
    const onDisk = JSON.parse(fs.readFileSync(path.join(dataDir, "demo.json"), "utf8"));
    expect(onDisk.tenant.slug).toBe("acme");
    expect(Object.fromEntries(Object.entries(onDisk.users).map(([k, u]) => [k, (u as { role: string }).role]))).toEqual({
      alice: "owner",
      bob: "member",
      sam: "support",
    });
    for (const u of Object.values(first.users)) {
      expect((await userForApiKey(db, u.api_key))?.role).toBe(u.role);
      expect((await userForDevSignIn(db, u.email, u.password))?.email).toBe(u.email);
    }
  });

  it("replaces a key that no longer works", async () => {
    const db = await getDb();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rg-seed-"));
    const first = await seedDemo(db, { dataDir, appUrl: "http://x" });
    const file = path.join(dataDir, "demo.json");
    const edited = JSON.parse(fs.readFileSync(file, "utf8"));
    edited.users.bob.api_key = "rgk_lost";
    fs.writeFileSync(file, JSON.stringify(edited));
    const again = await seedDemo(db, { dataDir, appUrl: "http://x" });
    expect(again.users.bob!.api_key).not.toBe("rgk_lost");
    expect(again.users.alice!.api_key).toBe(first.users.alice!.api_key);
    expect((await userForApiKey(db, again.users.bob!.api_key))?.userId).toBe(first.users.bob!.user_id);
  });
});
