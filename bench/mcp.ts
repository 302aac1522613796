// npm run bench:mcp — the MCP gateway against a real `next start` (built first: `npm run build`, or set
// NEXT_DIST_DIR to your build folder): tools/list size for the demo tenant, and one tool call's latency through
// MCP (official SDK client, Streamable HTTP) versus REST, same actor, same call, interleaved.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { freePort, spawnNext, waitForHealth } from "../e2e/support/server";
import { machineLine, ms, stats, writeSection } from "./report";

const N = Number(process.env.BENCH_N ?? 300);
const WARMUP = 30;

type Demo = { users: Record<string, { api_key: string }> };

async function main() {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  if (!fs.existsSync(path.join(distDir, "BUILD_ID"))) {
    console.error(`No production build in ${distDir}/. Run \`npm run build\` (or set NEXT_DIST_DIR to your build folder) first.`);
    process.exit(1);
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "realmgate-bench-mcp-"));
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const server = spawnNext(port, {
    AUTH_SECRET: randomBytes(32).toString("base64url"),
    APP_URL: appUrl,
    REALMGATE_DATA_DIR: dataDir,
    REALMGATE_SEED_DEMO: "1",
    REALMGATE_DEV_LOGIN: "0",
    // The benchmark itself would trip the per-actor limit.
    MCP_RATE_LIMIT_PER_MINUTE: "1000000",
    // The imported services of the 20-realm tenant are never called; their base URL is a closed local port.
    REALMGATE_OPENAPI_PRIVATE_HOSTS: "127.0.0.1",
  });
  try {
    await waitForHealth(server);
    const demo: Demo = JSON.parse(fs.readFileSync(path.join(dataDir, "demo.json"), "utf8"));
    const alice = { authorization: `Bearer ${demo.users.alice!.api_key}`, "content-type": "application/json" };
    const api = async (p: string, body?: unknown) => {
      const res = await fetch(`${appUrl}${p}`, { method: body ? "POST" : "GET", headers: alice, body: body ? JSON.stringify(body) : undefined });
      if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      return res.json();
    };

    // An actor granted everything on every realm of the demo tenant: the largest tools/list there is.
    const realms = (await api("/api/v1/tools/provider_about", {})).realms as { namespace: string }[];
    const full = await api("/api/v1/actors", { name: "bench: everything", kind: "hosted_agent" });
    for (const r of realms) {
      const ops = ((await api(`/api/v1/choices?namespace=${r.namespace}`)).operations as { operation: string }[]).map((o) => o.operation);
      await api("/api/v1/grants", { actor_id: full.actor.id, namespace: r.namespace, operations: ops, expires: "1d" });
    }
    const narrow = await api("/api/v1/actors", { name: "bench: docs search", kind: "hosted_agent" });
    await api("/api/v1/grants", { actor_id: narrow.actor.id, namespace: "docs", operations: ["provider.about", "object.search"], expires: "1d" });

    const listBytes = async (token: string) => {
      const res = await fetch(`${appUrl}/api/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      const text = await res.text();
      return { bytes: Buffer.byteLength(text), tools: (JSON.parse(text).result.tools as unknown[]).length };
    };
    const fullList = await listBytes(full.token.token);
    const narrowList = await listBytes(narrow.token.token);

    // The same actor after the tenant grows to 20 realms (16 imported services), then after importing GitHub's
    // REST API (1,000+ operations): tools/list must not grow with either.
    const grantAll = async (namespace: string) =>
      api("/api/v1/grants", { actor_id: full.actor.id, namespace, operations: ["provider.about", "object.schema", "object.action.*"], expires: "1d" });
    const helpdesk = fs.readFileSync("lib/realms/openapi/fixtures/helpdesk.yaml", "utf8");
    for (let i = realms.length; i < 20; i++) {
      const namespace = `svc${String(i).padStart(2, "0")}`;
      await api("/api/v1/realms/import", { namespace, spec: helpdesk, base_url: "http://127.0.0.1:9" });
      await grantAll(namespace);
    }
    const twentyRealms = (await api("/api/v1/tools/provider_about", {})).realms.length as number;
    const twentyList = await listBytes(full.token.token);
    const github = fs.readFileSync("node_modules/@octokit/openapi/generated/api.github.com.json", "utf8");
    const imported = await api("/api/v1/realms/import", { namespace: "github", spec: github, base_url: "http://127.0.0.1:9" });
    await grantAll("github");
    const githubOps = imported.operations.total as number;
    const githubList = await listBytes(full.token.token);

    const token = full.token.token as string;
    const client = new Client({ name: "bench", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${appUrl}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const calls = [
      { tool: "search_objects", args: { namespace: "docs", query: "Q3" } },
      { tool: "provider_about", args: { namespace: "docs" } },
    ];
    const rows: string[] = [];
    for (const c of calls) {
      const viaMcp = async () => {
        const r = await client.callTool({ name: c.tool, arguments: c.args });
        if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
      };
      const viaRest = async () => {
        const res = await fetch(`${appUrl}/api/v1/tools/${c.tool}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(c.args) });
        if (!res.ok) throw new Error(await res.text());
        await res.arrayBuffer();
      };
      for (let i = 0; i < WARMUP; i++) {
        await viaMcp();
        await viaRest();
      }
      const mcp: number[] = [];
      const rest: number[] = [];
      // Interleaved, so drift on a shared machine hits both sides alike.
      for (let i = 0; i < N; i++) {
        for (const [fn, out] of i % 2 ? ([[viaRest, rest], [viaMcp, mcp]] as const) : ([[viaMcp, mcp], [viaRest, rest]] as const)) {
          const t0 = performance.now();
          await fn();
          out.push(performance.now() - t0);
        }
      }
      const m = stats(mcp);
      const r = stats(rest);
      rows.push(`| \`${c.tool}\` ${JSON.stringify(c.args).replace(/\|/g, "\\|")} | ${ms(m.median)} | ${ms(m.p99)} | ${ms(r.median)} | ${ms(r.p99)} | ${ms(m.median - r.median)} |`);
      console.log(rows.at(-1));
    }
    await client.close();

    const md = `## MCP (\`npm run bench:mcp\`)

**tools/list** over \`POST /api/mcp\` (whole JSON-RPC response body) for the demo tenant (${realms.length} realms: ${realms.map((r) => r.namespace).join(", ")}):

| caller | tools | bytes |
|---|---|---|
| actor granted every operation of every realm | ${fullList.tools} | ${fullList.bytes} |
| actor granted docs about + search | ${narrowList.tools} | ${narrowList.bytes} |
| the same "everything" actor, tenant grown to ${twentyRealms} realms (16 imported services) | ${twentyList.tools} | ${twentyList.bytes} |
| the same, after importing GitHub's REST API (${githubOps} operations) as one more realm | ${githubList.tools} | ${githubList.bytes} |

Budget: under 8 KB whatever the number of realms or operations — the nine tools are generic; realms and operations
are discovered through \`provider_about\` and \`object_schema\`, never listed as tools.

**One tool call, MCP vs REST**: ${N} calls each against \`next start\` on PGlite, same actor token, interleaved, after ${WARMUP} warm-up
calls. MCP = the official SDK \`Client\` over Streamable HTTP (stateless: each call is one POST that authenticates, rate-limits,
builds a server and runs the same dispatcher); REST = \`POST /api/v1/tools/:tool\`.

| call | MCP median | MCP p99 | REST median | REST p99 | MCP overhead (median) |
|---|---|---|---|---|---|
${rows.join("\n")}

${machineLine()}`;
    writeSection("mcp", md);
    console.log(`tools/list: ${fullList.tools} tools, ${fullList.bytes} bytes (everything); ${narrowList.tools} tools, ${narrowList.bytes} bytes (narrow); ${twentyList.bytes} bytes (20 realms); ${githubList.bytes} bytes (+GitHub)`);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
