// GET /api/v1/audit in-process: paging newest first by `before`, and every bad query answered 400 invalid_input —
// times the database cannot store included (found by an attack: year 0 and offsets past year 9999 were 500s).
import { describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/authz/api-keys";
import { recordAudit } from "@/lib/audit/record";
import { makeTenant } from "@/test-support";
import { GET } from "./route";

const list = (key: string, query: string) => GET(new Request(`http://realmgate.test/api/v1/audit?${query}`, { headers: { authorization: `Bearer ${key}` } }), { params: Promise.resolve({}) });

describe("GET /api/v1/audit", () => {
  it("pages newest first: each page's next_before leads to the next, every record once", async () => {
    const t = await makeTenant({ alice: "owner" });
    const key = (await createApiKey(t.db, t.users.alice!, "audit paging")).key;
    for (let i = 0; i < 7; i++) {
      await t.db.transaction((tx) => recordAudit(tx, { tenantId: t.tenantId, event: "tool.call", principal: { type: "system" }, outcome: "ok", details: { i } }));
    }
    const seen: unknown[] = [];
    let before = "";
    for (let page = 0; page < 10; page++) {
      const res = await list(key, `event=tool.call&limit=3${before}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { events: { details: { i: number } }[]; next_before: number | null };
      seen.push(...body.events.map((e) => e.details.i));
      if (body.next_before === null) break;
      before = `&before=${body.next_before}`;
    }
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0]);
  });

  it("answers a bad query 400 invalid_input, never 500", async () => {
    const t = await makeTenant({ alice: "owner" });
    const key = (await createApiKey(t.db, t.users.alice!, "audit bad input")).key;
    for (const query of [
      "from=0000-01-01T00:00:00Z",
      "from=0001-01-01T00:00:00%2B14:00",
      "to=0000-01-01T00:00:00Z",
      "to=9999-12-31T23:59:59-14:00",
      "from=yesterday",
      "before=0",
      "before=-5",
      "before=0x10",
      "before=1e3",
      "before=99999999999999999999",
      "limit=0",
      "limit=501",
      "nope=1",
    ]) {
      const res = await list(key, query);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code, query).toBe("invalid_input");
    }
    expect((await list(key, "from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z")).status).toBe(200);
  });
});
