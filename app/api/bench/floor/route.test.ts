// The bench's floor route: a 404 like any unknown route unless the server runs with REALMGATE_BENCH_FLOOR=1; with it,
// a JSON POST answered after exactly three exchanges in one transaction, the last one committing.
import { afterEach, describe, expect, it } from "vitest";
import { dbKind } from "@/db/client";
import { reloadEnv } from "@/lib/env";
import { roundTrips } from "@/test-support";
import { GET, POST } from "./route";

const onPostgres = (await dbKind()) === "postgres";
const post = (body: unknown, query = "") =>
  POST(new Request(`http://realmgate.test/api/bench/floor${query}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));

function served(on: boolean) {
  if (on) process.env.REALMGATE_BENCH_FLOOR = "1";
  else delete process.env.REALMGATE_BENCH_FLOOR;
  reloadEnv();
}

afterEach(() => served(false));

describe("POST /api/bench/floor", () => {
  it("is not served unless the server was started for a benchmark: the unknown-route 404, no statement sent", async () => {
    served(false);
    const rt = roundTrips();
    const res = await post({ namespace: "docs", query: "Q3" }, "?size=10");
    expect(rt.stop()).toEqual([]);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("not_found");
    expect(body.error.message).toBe("No API route POST /api/bench/floor.");
    // Nor does another method tell the route is there.
    const get = await GET(new Request("http://realmgate.test/api/bench/floor"));
    expect(get.status).toBe(404);
    expect(((await get.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  it("served, answers the body back, padded to the size asked, after BEGIN, three statements and COMMIT in three exchanges", async () => {
    served(true);
    await post({ warm: true }, "?size=1");
    const rt = roundTrips();
    const res = await post({ namespace: "docs", query: "Q3" }, "?size=300");
    const statements = rt.stop();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; exchanges: number; echo: unknown; pad: string };
    expect(body).toMatchObject({ ok: true, exchanges: 3, echo: { namespace: "docs", query: "Q3" } });
    expect(body.pad).toHaveLength(300);
    expect(statements.map((s) => s.split(" ")[0]!.toLowerCase())).toEqual(["begin", "select", "select", "select", "commit"]);
    // The last writes a record to the WAL, so COMMIT waits for its flush, as a call's commit after its audit append does.
    expect(statements[3]).toContain("pg_logical_emit_message(true,");
    if (onPostgres) expect(rt.exchanges).toBe(3);
  });

  it("refuses a size that is not a whole number of bytes up to 64 KiB, another method than POST, and a body that is not JSON", async () => {
    served(true);
    for (const q of ["?size=-1", "?size=1.5", "?size=65537", "?size=abc"]) {
      const res = await post({}, q);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_input");
    }
    const get = await GET(new Request("http://realmgate.test/api/bench/floor"));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const bad = await POST(new Request("http://realmgate.test/api/bench/floor", { method: "POST", headers: { "content-type": "application/json" }, body: "{" }));
    expect(bad.status).toBe(400);
  });
});
