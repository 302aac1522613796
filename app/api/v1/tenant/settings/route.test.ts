// GET/PATCH /api/v1/tenant/settings in-process: any member reads the catalog budget with its bounds; only an owner
// changes it, to a whole number from 8192 to 49152 (anything else a clear invalid_input); an agent is refused.
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/authz/api-keys";
import { makeActor, makeTenant, type TestTenant } from "@/test-support";
import { GET, PATCH } from "./route";

let t: TestTenant;
const keys: Record<string, string> = {};
beforeAll(async () => {
  t = await makeTenant();
  for (const name of ["alice", "bob", "sam"]) keys[name] = (await createApiKey(t.db, t.users[name]!, "settings test")).key;
});

const url = "http://realmgate.test/api/v1/tenant/settings";
const ctx = { params: Promise.resolve({}) };
const get = (key: string) => GET(new Request(url, { headers: { authorization: `Bearer ${key}` } }), ctx);
const patch = (key: string, body: unknown) =>
  PATCH(new Request(url, { method: "PATCH", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }), ctx);
const errorOfRes = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

describe("/api/v1/tenant/settings", () => {
  it("is read by every member, with the bounds and the default", async () => {
    for (const name of ["alice", "bob", "sam"]) {
      const res = await get(keys[name]!);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ catalog_budget_bytes: 16384, min: 8192, max: 49152, default: 16384 });
    }
    const agent = await makeActor(t, t.users.alice!);
    expect((await get(agent.token)).status).toBe(403);
  });

  it("refuses a budget out of bounds, not whole, not a number, or with other fields, saying what it takes", async () => {
    for (const body of [{ catalog_budget_bytes: 8191 }, { catalog_budget_bytes: 49153 }, { catalog_budget_bytes: 16384.5 }, { catalog_budget_bytes: "16384" }, {}, { catalog_budget_bytes: 16384, other: 1 }]) {
      const res = await patch(keys.alice!, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const e = await errorOfRes(res);
      expect(e.code).toBe("invalid_input");
      if ("catalog_budget_bytes" in body && Object.keys(body).length === 1) expect(e.message).toContain("from 8192 (8 KB) to 49152 (48 KB)");
    }
    expect(await (await get(keys.bob!)).json()).toMatchObject({ catalog_budget_bytes: 16384 });
  });

  it("lets only the owner change it", async () => {
    for (const name of ["bob", "sam"]) {
      const res = await patch(keys[name]!, { catalog_budget_bytes: 8192 });
      expect(res.status).toBe(403);
      expect((await errorOfRes(res)).code).toBe("forbidden");
    }
    const ok = await patch(keys.alice!, { catalog_budget_bytes: 49152 });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ catalog_budget_bytes: 49152, min: 8192, max: 49152, default: 16384, changed: true });
    expect(await (await get(keys.bob!)).json()).toMatchObject({ catalog_budget_bytes: 49152 });
  });
});
