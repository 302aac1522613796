// npm run bench:catalog — what the tool surface costs a model. (1) Canonical JSON bytes of the nine-tool
// catalog, before and after importing GitHub's REST API as a realm (it must not grow), against the same API
// exposed one tool per operation. (2) Bytes an agent reads per task — about → query → exact contract →
// action — for an imported service, run through the real dispatcher on an in-memory database. (3) A new agent's
// everyday tasks (app/api/v1/tools/new-agent.test.ts, run here with NEW_AGENT_REPORT): calls, bytes, person's steps.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { machineLine, stats, writeSection } from "./report";

process.env.REALMGATE_DATA_DIR = ":memory:";
process.env.AUTH_SECRET ??= randomBytes(32).toString("base64url");
process.env.APP_URL ??= "http://realmgate.bench";
process.env.REALMGATE_OPENAPI_PRIVATE_HOSTS = "127.0.0.1";

const GITHUB = path.join(process.cwd(), "node_modules/@octokit/openapi/generated/api.github.com.json");
const HELPDESK = path.join(process.cwd(), "lib/realms/openapi/fixtures/helpdesk.yaml");
const fmt = (n: number, digits = 3) => n.toFixed(digits);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

type Step = { step: string; call: Record<string, unknown>; tool: string; request: number; response: number };

async function main() {
  const { makeTenant } = await import("@/test-support");
  const { closeDb } = await import("@/db/client");
  // The one measure, shared with the standing test (lib/tools/catalog-size.test.ts).
  const { CATALOG_BUDGET_BYTES, catalogBytes, jsonBytes: bytes, toolCatalog } = await import("@/lib/tools/catalog");
  const { TOOL_RULES } = await import("@/lib/tools/describe");
  const { dispatch } = await import("@/lib/tools/dispatch");
  const { importRealm } = await import("@/lib/openapi-admin/import");
  const { compileSpec } = await import("@/lib/realms/openapi/compile");
  const { loadSpec } = await import("@/lib/realms/openapi/spec");
  const { startHelpdeskServer } = await import("@/lib/realms/openapi/fixtures/helpdesk-server");

  // (1) The nine-tool catalog, with and without GitHub imported.
  const full = catalogBytes();
  const t = await makeTenant();
  const alice = t.users.alice!;
  const before = bytes(toolCatalog());
  const githubText = fs.readFileSync(GITHUB, "utf8");
  const i0 = performance.now();
  const imported = await importRealm(t.db, alice, { namespace: "github", spec: githubText });
  const importSeconds = (performance.now() - i0) / 1000;
  const after = bytes(toolCatalog());

  // The same API as one tool per operation (name, description, input schema), as tool-per-endpoint gateways do.
  const compiled = compileSpec(await loadSpec(githubText));
  const perOperation = compiled.operations.map((o) => ({
    name: o.card.action.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 64),
    description: [o.card.summary, o.card.description].filter(Boolean).join(" — "),
    inputSchema: o.contract.input_schema,
  }));
  const perOpBytes = bytes(perOperation);
  const perOpSizes = perOperation.map(bytes);
  const perOp = stats(perOpSizes);

  // (2) Bytes per task through the real dispatcher.
  const server = await startHelpdeskServer();
  await importRealm(t.db, alice, { namespace: "helpdesk", spec: fs.readFileSync(HELPDESK, "utf8"), base_url: server.baseUrl });
  const run = async (tasks: { step: string; tool: string; call: Record<string, unknown> }[]) => {
    const out: Step[] = [];
    for (const s of tasks) {
      const res = await dispatch(alice, s.tool, s.call);
      out.push({ ...s, request: bytes({ name: s.tool, arguments: s.call }), response: bytes(res) });
    }
    return out;
  };
  const helpdeskTask = await run([
    { step: "about (realm list)", tool: "provider_about", call: {} },
    { step: "about helpdesk", tool: "provider_about", call: { namespace: "helpdesk" } },
    { step: "query", tool: "object_schema", call: { query: "reply to a customer's ticket" } },
    { step: "exact contract", tool: "object_schema", call: { namespace: "helpdesk", operation: "object.action.comments/create" } },
    { step: "action", tool: "object_action", call: { namespace: "helpdesk", action: "comments/create", payload: { ticket_id: 1, body: "We are on it." } } },
  ]);
  const githubTask = await run([
    { step: "about github", tool: "provider_about", call: { namespace: "github" } },
    { step: "query", tool: "object_schema", call: { query: "comment on an issue" } },
    { step: "exact contract", tool: "object_schema", call: { namespace: "github", operation: "object.action.issues/create-comment" } },
  ]);
  // The demo (native realms, seeded as on `npm run dev`), as its owner alice: reply to a comment thread.
  const { seedDemo } = await import("@/lib/demo/seed");
  const { demoSeedSteps } = await import("@/lib/demo");
  const { getDb } = await import("@/db/client");
  const os = await import("node:os");
  const demo = await seedDemo(await getDb(), { dataDir: fs.mkdtempSync(`${os.tmpdir()}/rg-bench-demo-`), appUrl: "http://localhost:3000", steps: demoSeedSteps });
  const demoAlice = { kind: "user" as const, tenantId: demo.tenant.id, userId: demo.users.alice!.user_id, role: "owner" as const, via: "api_key" as const, requestId: "req_bench_demo" };
  const demoRun = async (tasks: { step: string; tool: string; call: Record<string, unknown> }[]) => {
    const out: Step[] = [];
    for (const s of tasks) {
      const res = await dispatch(demoAlice, s.tool, s.call);
      out.push({ ...s, request: bytes({ name: s.tool, arguments: s.call }), response: bytes(res) });
    }
    return out;
  };
  const threads = (await dispatch(demoAlice, "search_objects", { namespace: "docs", query: "beta", kind: "docs.comment_thread" })) as { items: { ref: string }[] };
  const threadRef = threads.items[0]?.ref ?? "docs:thread:unknown";
  const demoTask = await demoRun([
    { step: "about (realm list)", tool: "provider_about", call: {} },
    { step: "query", tool: "object_schema", call: { query: "reply to a comment" } },
    { step: "exact contract", tool: "object_schema", call: { namespace: "docs", operation: "object.action.reply_comment" } },
    { step: "find the thread", tool: "search_objects", call: { namespace: "docs", query: "beta", kind: "docs.comment_thread" } },
    { step: "action", tool: "object_action", call: { ref: threadRef, action: "reply_comment", payload: { body: "Agreed — let's keep August." } } },
  ]);
  await server.close();
  await closeDb();

  // (3) The scripted new agent's tasks, as the test runs them (its own tenant and database).
  const reportFile = path.join((await import("node:os")).tmpdir(), `rg-new-agent-${process.pid}.json`);
  const { execFileSync } = await import("node:child_process");
  execFileSync(process.execPath, [path.join(process.cwd(), "node_modules/vitest/vitest.mjs"), "run", "app/api/v1/tools/new-agent.test.ts"], {
    env: { ...process.env, NEW_AGENT_REPORT: reportFile, REALMGATE_DATA_DIR: ":memory:" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const newAgent = JSON.parse(fs.readFileSync(reportFile, "utf8")) as { task: string; calls: number; bytes: number; human_steps: number; tools_list_bytes: number }[];
  fs.rmSync(reportFile, { force: true });

  const sum = (s: Step[]) => s.reduce((n, x) => n + x.request + x.response, 0);
  const stepRows = (s: Step[]) => s.map((x) => `| ${x.step} | \`${x.tool}\` | ${x.request} | ${x.response} |`).join("\n");
  const helpdeskBytes = sum(helpdeskTask);
  const githubBytes = sum(githubTask);
  const demoBytes = sum(demoTask);
  const body = `
Command: \`npm run bench:catalog\` (bench/catalog.ts). Bytes are canonical JSON (sorted keys, no whitespace) of what a model is sent.

| what a model receives | bytes | vs. the nine tools |
|---|---:|---:|
| the full nine-tool catalog (\`toolEntry\` × 9) | ${full} (${kb(full)}) | 1.00× |
| what any caller receives (\`GET /api/v1/tools\`, \`tools/list\`), no imported realm | ${before} | ${(before / full).toFixed(2)}× |
| the same after importing GitHub (${imported.operations.total} operations) | ${after} | ${(after / full).toFixed(2)}× |
| GitHub as one tool per operation (${perOperation.length} tools: name, description, input schema) | ${perOpBytes} (${(perOpBytes / 1024 / 1024).toFixed(2)} MB) | ${(perOpBytes / full).toFixed(0)}× |

Budget ≤ ${CATALOG_BUDGET_BYTES / 1024} KB (${CATALOG_BUDGET_BYTES} bytes, held by \`lib/tools/catalog-size.test.ts\`): ${full <= CATALOG_BUDGET_BYTES ? "met" : "NOT met"} (${full} bytes), and importing a 1,223-operation service left it ${after === before ? "unchanged" : `changed (${before} → ${after})`}. One per-operation tool weighs ${perOp.median} bytes at the median and ${perOp.p99} at p99 (largest ${Math.max(...perOpSizes)}), so the per-operation catalog costs ${(perOpBytes / full).toFixed(0)}× the nine tools on every turn. What every tool does alike (paging, retries, selectors, files, search modes, tool listing) is said once in \`provider_about()\`'s rules instead (${bytes(TOOL_RULES)} bytes, read when a realm is learned, not on every turn). Importing GitHub's document through \`importRealm\` on PGlite took ${fmt(importSeconds, 1)} s.

Bytes an agent reads per task (request + response, through the real dispatcher as the tenant owner):

Demo (native realms memory, docs, board, mail; as on \`npm run dev\`): reply to a comment thread — ${demoBytes} bytes in ${demoTask.length} calls:

| step | tool | request | response |
|---|---|---:|---:|
${stepRows(demoTask)}

Helpdesk fixture (12 operations, local service) — ${helpdeskBytes} bytes in ${helpdeskTask.length} calls, ${(helpdeskBytes / full).toFixed(2)}× the nine-tool catalog it would also hold:

| step | tool | request | response |
|---|---|---:|---:|
${stepRows(helpdeskTask)}

A new agent that never saw Realmgate (\`app/api/v1/tools/new-agent.test.ts\`: start from the tools list, take the top match of \`object_schema(query)\`, use only refs and selectors the answers gave, a person's step approves at the given link): at most 4 calls, 6 KB read and 1 person's step per task, the tools list (${newAgent[0]?.tools_list_bytes ?? "?"} bytes) counted apart.

| task | tool calls | bytes read | person's steps |
|---|---:|---:|---:|
${newAgent.map((r) => `| ${r.task} | ${r.calls} | ${r.bytes} | ${r.human_steps} |`).join("\n")}

GitHub (${imported.operations.total} operations; the action itself is not sent: no network here) — ${githubBytes} bytes to find and read the exact contract, against ${(perOpBytes / 1024 / 1024).toFixed(2)} MB of per-operation tools (${(perOpBytes / githubBytes).toFixed(0)}× more):

| step | tool | request | response |
|---|---|---:|---:|
${stepRows(githubTask)}
`;
  writeSection("catalog", `## Catalog budget (\`npm run bench:catalog\`)\n${body}\n${machineLine()}`);
  console.log(body);
}

await main();
