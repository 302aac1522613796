// A PostgreSQL outage under load, on a throwaway cluster of this test's own (loopback only): while the server
// is down every call answers 503 service_unavailable with Retry-After, within the connect timeout plus the
// statement timeout, never 500 and never an uncaughtException; once it is back, calls succeed again.
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createActor } from "@/lib/authz/actors";
import { createGrant } from "@/lib/authz/grants";
import { toErrorBody } from "@/lib/errors";
import { health } from "@/lib/health";
import { param, route, withCaller } from "@/lib/http/route";
import { rateLimits } from "@/lib/mcp/config";
import { handleMcpPost } from "@/lib/mcp/handler";
import { dispatch } from "@/lib/tools/dispatch";
import { closeDb, getDb, poolStats } from "./client";
import { envOverride, makeTenant } from "@/test-support";

const run = promisify(execFile);

const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 2_000;
/** No answer may take longer than this (the bound the app promises, plus scheduling slack under load). */
const ANSWER_BOUND_MS = CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + 1_500;
const OUTAGE_MS = 4_000;
/** Longer than the bound, so some calls both start and answer while the server is frozen. */
const FREEZE_MS = 7_000;
const WORKERS = 8;

/** The PostgreSQL server binaries, and how to run them (initdb refuses root: as `postgres` through runuser). */
function findCluster(): { bin: string; asPostgres: boolean } | { skip: string } {
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb"))) : [];
  if (versions.length === 0) return { skip: "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin" };
  const bin = path.join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, "bin");
  if (process.getuid?.() !== 0) return { bin, asPostgres: false };
  if (!fs.existsSync("/usr/sbin/runuser") && !fs.existsSync("/sbin/runuser")) return { skip: "running as root without runuser" };
  try {
    execFileSync("id", ["-u", "postgres"], { stdio: "ignore" });
  } catch {
    return { skip: "running as root and there is no postgres OS user" };
  }
  return { bin, asPostgres: true };
}

const found = findCluster();
const skipReason = "skip" in found ? found.skip : null;

async function freePort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = 55432 + Math.floor(Math.random() * 5000);
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer().once("error", () => resolve(false));
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error("no free port");
}

// The app's route handlers, wired as in app/api/{v1/tools/[tool],mcp,health}/route.ts (db/ may not import app/).
const toolPost = withCaller(
  async (req, ctx) => Response.json(await dispatch(ctx.auth, param(ctx, "tool"), await req.json())),
  () => ({ countActorCalls: rateLimits().mcp }),
);
const mcpPost = route((req, { requestId }) => handleMcpPost(req, requestId));
const healthGet = route(async () => {
  const result = await health();
  return Response.json(result, { status: result.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
});

type Answer = { kind: "rest" | "mcp" | "health"; start: number; end: number; status: number; code: string | null; retryAfter: string | null };

describe.skipIf(skipReason !== null)(`a PostgreSQL outage under load${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  const { bin, asPostgres } = found as { bin: string; asPostgres: boolean };
  const dir = skipReason ? "" : fs.mkdtempSync(path.join(os.tmpdir(), "realmgate-outage-"));
  const data = path.join(dir, "data");
  let port = 0;
  const overrides = envOverride();
  const shared = globalThis as unknown as { __realmgateDb?: unknown };
  let sharedDb: unknown;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);

  const pg = (tool: string, args: string[]) =>
    asPostgres ? run("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args], { timeout: 30_000 }) : run(path.join(bin, tool), args, { timeout: 30_000 });
  const start = () =>
    pg("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", "-t", "20", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`, "start"]);
  const stop = () => pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "20", "stop"]);
  /** Last resort if the worker ends before afterAll (an unhandled error): never leave the cluster running. */
  const stopAtExit = () => {
    try {
      const args = ["-D", data, "-m", "immediate", "-w", "-t", "10", "stop"];
      if (asPostgres) execFileSync("runuser", ["-u", "postgres", "--", path.join(bin, "pg_ctl"), ...args], { stdio: "ignore" });
      else execFileSync(path.join(bin, "pg_ctl"), args, { stdio: "ignore" });
    } catch {}
    fs.rmSync(dir, { recursive: true, force: true });
  };

  let token = "";

  beforeAll(async () => {
    if (asPostgres) {
      const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
      const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
      fs.chownSync(dir, uid, gid);
    }
    port = await freePort();
    await pg("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--no-instructions"]);
    await start();
    process.once("exit", stopAtExit);
    // This file's own database module: the worker's shared one is set aside and put back afterwards.
    sharedDb = shared.__realmgateDb;
    shared.__realmgateDb = undefined;
    overrides.set({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      MCP_RATE_LIMIT_PER_MINUTE: "1000000",
    });
    const t = await makeTenant({ alice: "owner" });
    const { actor, token: issued } = await createActor(t.db, t.users.alice!, { name: "Outage agent", kind: "automation", issue_token: true, token_expires_in_days: null });
    await createGrant(t.db, t.users.alice!, { actor_id: actor.id, namespace: "docs", operations: ["provider.about"], resource_scope: null, expires: "1d" });
    token = issued!.token;
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUncaught);
  }, 60_000);

  afterAll(async () => {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
    // Bounded: a pool with a connection still lent out would wait for it forever (the test above fails then).
    await Promise.race([closeDb().catch(() => {}), new Promise((r) => setTimeout(r, 5_000))]);
    shared.__realmgateDb = sharedDb;
    overrides.restore();
    if (dir) {
      await stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
      process.off("exit", stopAtExit);
    }
  }, 60_000);

  async function call(kind: Answer["kind"]): Promise<Answer> {
    const started = Date.now();
    let res: Response;
    if (kind === "rest") {
      res = await toolPost(
        new Request("http://realmgate.test/api/v1/tools/provider_about", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ namespace: "docs" }),
        }),
        { params: Promise.resolve({ tool: "provider_about" }) },
      );
    } else if (kind === "mcp") {
      res = await mcpPost(
        new Request("http://realmgate.test/api/mcp", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "provider_about", arguments: { namespace: "docs" } } }),
        }),
      );
    } else {
      res = await healthGet(new Request("http://realmgate.test/api/health"));
    }
    const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    // MCP answers a failure inside tools/call as a tool error carrying the REST error body.
    const result = body?.result as { isError?: boolean; structuredContent?: { error?: { code?: string } } } | undefined;
    const code = (body?.error as { code?: string } | undefined)?.code ?? (result?.isError ? (result.structuredContent?.error?.code ?? "tool_error") : null);
    return { kind, start: started, end: Date.now(), status: res.status, code: typeof code === "string" ? code : null, retryAfter: res.headers.get("retry-after") };
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** The cluster's processes: the postmaster (data/postmaster.pid) and its children, by id. */
  function clusterPids(): number[] {
    const postmaster = Number(fs.readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = execFileSync("pgrep", ["-P", String(postmaster)]).toString().trim().split("\n").filter(Boolean).map(Number);
    return [postmaster, ...children];
  }

  /**
   * Keep WORKERS callers busy (REST and MCP tool calls, health) while `disrupt` takes the server away and brings
   * it back; then check every answer. `disrupt` returns when the server was fully away and when it came back.
   */
  async function underLoad(what: string, disrupt: () => Promise<{ awayFrom: number; awayTo: number }>) {
    const answers: Answer[] = [];
    // Each 503 logs one line; the pool logs lost connections (throttled). Counted, not shown.
    const errorLog = vi.spyOn(console, "error").mockImplementation(() => {});
    let running = true;
    const kinds: Answer["kind"][] = ["rest", "mcp", "rest", "mcp", "rest", "mcp", "rest", "health"];
    const workers = Array.from({ length: WORKERS }, (_, i) =>
      (async () => {
        while (running) {
          answers.push(await call(kinds[i % kinds.length]!));
          await sleep(20);
        }
      })(),
    );
    let recovered = 0;
    let away = { awayFrom: 0, awayTo: 0 };
    let disruptedAt = 0;
    try {
      await sleep(1_500);
      disruptedAt = Date.now();
      away = await disrupt();
      // Back within a few seconds: the pool reconnects on demand.
      for (const deadline = Date.now() + 10_000; Date.now() < deadline && !recovered; await sleep(100)) {
        if ((await call("rest")).status === 200) recovered = Date.now();
      }
      await sleep(1_000);
    } finally {
      running = false;
      await Promise.all(workers);
    }
    const logged = errorLog.mock.calls.length;
    errorLog.mockRestore();
    const describeAnswer = (a: Answer) => `${a.kind} ${a.status} ${a.code ?? ""} in ${a.end - a.start} ms at ${a.start - disruptedAt} ms`;
    expect(recovered, "calls succeed again once the server is back").toBeGreaterThan(0);
    expect(uncaught.map(String)).toEqual([]);

    const before = answers.filter((a) => a.end < disruptedAt);
    const during = answers.filter((a) => a.start >= away.awayFrom && a.end <= away.awayTo);
    const after = answers.filter((a) => a.start >= recovered);
    expect(before.length).toBeGreaterThan(WORKERS);
    expect(during.length).toBeGreaterThan(WORKERS);
    expect(after.length).toBeGreaterThan(WORKERS);

    expect(before.filter((a) => a.status !== 200 || a.code !== null).map(describeAnswer)).toEqual([]);
    // Whenever it happened, nothing is a 500, and nothing takes longer than the bound.
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503).map(describeAnswer)).toEqual([]);
    expect(answers.filter((a) => a.end - a.start > ANSWER_BOUND_MS).map(describeAnswer)).toEqual([]);
    // While away: 503 service_unavailable with Retry-After (or, inside an MCP tools/call, the same error as a tool result).
    const wrong = during.filter((a) => {
      if (a.kind === "health") return a.status !== 503;
      if (a.kind === "mcp" && a.status === 200) return a.code !== "service_unavailable";
      return a.status !== 503 || a.code !== "service_unavailable" || !(Number(a.retryAfter) > 0);
    });
    expect(wrong.map(describeAnswer)).toEqual([]);
    expect(after.filter((a) => a.status !== 200 || a.code !== null).map(describeAnswer)).toEqual([]);
    // Every connection lent out during the outage came back or was discarded: none is held forever.
    const stats = await poolStats();
    expect(stats && stats.total - stats.idle, "pooled connections still checked out").toBe(0);
    const slowest = Math.max(0, ...answers.filter((a) => a.end >= disruptedAt && a.start <= away.awayTo).map((a) => a.end - a.start));
    console.info(`outage test (${what}): ${answers.length} answers, ${logged} error log lines; back ${recovered - away.awayTo} ms after the server; slowest answer around the outage ${slowest} ms`);
  }

  it("a stopped server (pg_ctl stop -m fast, restarted 4 s later): 503 with Retry-After, never 500 or a hang, then recovery", async () => {
    await underLoad("stopped", async () => {
      await stop();
      const awayFrom = Date.now();
      await sleep(OUTAGE_MS);
      const awayTo = Date.now();
      await start();
      return { awayFrom, awayTo };
    });
  }, 60_000);

  it("a frozen server (SIGSTOP, sockets open, nothing answers; SIGCONT 7 s later): 503 within the bound, then recovery", async () => {
    await underLoad("frozen", async () => {
      const pids = clusterPids();
      try {
        for (const pid of pids) process.kill(pid, "SIGSTOP");
        const frozenAt = Date.now();
        await sleep(FREEZE_MS);
        // Only answers to calls made once the freeze began and finished before it ended are checked as "away".
        return { awayFrom: frozenAt, awayTo: Date.now() };
      } finally {
        for (const pid of pids) process.kill(pid, "SIGCONT");
      }
    });
  }, 60_000);

  it("a statement running past DB_STATEMENT_TIMEOUT_MS is cancelled by the server and answers 503", async () => {
    const started = Date.now();
    const err = await (await getDb()).execute(sql`select pg_sleep(30)`).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(STATEMENT_TIMEOUT_MS + 1_500);
    const { status, headers, body } = toErrorBody(err, "req_test");
    expect(status).toBe(503);
    expect(body.error).toMatchObject({ code: "service_unavailable", details: { reason: "statement_timeout" } });
    expect(headers["Retry-After"]).toBeDefined();
  });
});
