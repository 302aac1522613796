// A tool call's round trips to PostgreSQL as the built app makes them (`next start`), counted at the wire by a proxy
// in front of the server: what lib/tools round-trip tests count in-process must hold in the production bundle too.
// (It did not: Next.js gives instrumentation.ts and the routes a copy each of db/pipeline.ts, and the routes' marks
// never reached the pool, so each call made 6 exchanges where the tests counted 3.) Skipped, saying why, when
// PostgreSQL is not reachable.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { exchangeCountingProxy, PG_HOST, PG_PORT, postgresUnreachable, scratchDatabase, type ScratchDatabase } from "./support/postgres";
import { freePort, spawnNext, waitForHealth, type RunningServer } from "./support/server";

const unreachable = postgresUnreachable();
const SKIP_REASON = `PostgreSQL is not reachable on ${PG_HOST}:${PG_PORT} as user postgres (${unreachable}): round trips are counted against PostgreSQL`;
if (unreachable) console.log(`[round-trips] skipped: ${SKIP_REASON}`);

test.describe("round trips per tool call under next start", () => {
  test.skip(unreachable !== null, SKIP_REASON);
  test.describe.configure({ mode: "serial" });

  let dataDir = "";
  let database: ScratchDatabase | undefined;
  let proxy: Awaited<ReturnType<typeof exchangeCountingProxy>> | undefined;
  let server: RunningServer | undefined;
  let token = "";
  let demo: { agent: { token: string; actor_id: string }; users: Record<string, { api_key: string }> };

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    database = await scratchDatabase("realmgate_e2e_trips");
    proxy = await exchangeCountingProxy();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "realmgate-trips-"));
    const port = await freePort();
    server = spawnNext(port, {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/${database.name}`,
      AUTH_SECRET: randomBytes(32).toString("base64url"),
      APP_URL: `http://127.0.0.1:${port}`,
      REALMGATE_DATA_DIR: dataDir,
      REALMGATE_SEED_DEMO: "1",
      REALMGATE_DEV_LOGIN: "0",
      MCP_RATE_LIMIT_PER_MINUTE: "100000",
    }, "e2e/artifacts/round-trips.log");
    await waitForHealth(server);
    demo = JSON.parse(fs.readFileSync(path.join(dataDir, "demo.json"), "utf8")) as typeof demo;
    token = demo.agent.token;
  });

  test.afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The exchanges of each of `n` calls made one after another (the median is what a call costs: a background job may add one now and then). */
  async function exchangesPerCall(n: number, call: () => Promise<void>): Promise<number[]> {
    const counts: number[] = [];
    for (let i = 0; i < n; i++) {
      const before = proxy!.exchanges();
      await call();
      counts.push(proxy!.exchanges() - before);
    }
    return counts;
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

  test("search_objects on docs: 3 round trips; get_object: 3 (as docs/architecture.md counts them)", async ({ request }) => {
    const tool = async (name: string, input: Record<string, unknown>) => {
      const res = await request.post(`${server!.url}/api/v1/tools/${name}`, { headers: { authorization: `Bearer ${token}` }, data: input });
      expect(res.status(), await res.text()).toBe(200);
      return (await res.json()) as { items?: { ref: string }[] };
    };
    let ref = "";
    const search = async () => {
      ref = (await tool("search_objects", { namespace: "docs", query: "Q3" })).items![0]!.ref;
    };
    const get = async () => void (await tool("get_object", { ref }));
    // Each connection prepares a statement on its first use, and only prepared statements share an exchange.
    await exchangesPerCall(5, search);
    await exchangesPerCall(5, get);
    expect(median(await exchangesPerCall(9, search))).toBe(3);
    expect(median(await exchangesPerCall(9, get))).toBe(3);
  });

  test("a write, upsert_object on docs: 5 round trips — its SAVEPOINT goes with the effect's first statement, its RELEASE with the audit record and COMMIT", async ({ request }) => {
    // The demo agent reads docs; its grantor gives it upserts too (alice's API key, as a person would).
    const granted = await request.post(`${server!.url}/api/v1/grants`, {
      headers: { authorization: `Bearer ${demo.users.alice!.api_key}` },
      data: { actor_id: demo.agent.actor_id, namespace: "docs", operations: ["object.upsert"] },
    });
    expect(granted.status(), await granted.text()).toBe(201);
    const found = await request.post(`${server!.url}/api/v1/tools/search_objects`, { headers: { authorization: `Bearer ${token}` }, data: { namespace: "docs", query: "Q3" } });
    const ref = ((await found.json()) as { items: { ref: string }[] }).items[0]!.ref;
    let n = 0;
    const upsert = async () => {
      const res = await request.post(`${server!.url}/api/v1/tools/upsert_object`, {
        headers: { authorization: `Bearer ${token}` },
        data: { namespace: "docs", kind: "docs.document", ref, fields: { title: `Q3 planning (${++n})` } },
      });
      expect(res.status(), await res.text()).toBe(200);
    };
    await exchangesPerCall(5, upsert);
    expect(median(await exchangesPerCall(9, upsert))).toBe(5);
  });
});
