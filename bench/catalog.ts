// npm run bench:catalog — what the tool surface costs a model. (1) Canonical JSON bytes of the nine-tool
// catalog, before and after importing GitHub's REST API as a realm (it must not grow), against the same API
// exposed one tool per operation. (2) Bytes an agent reads per task — about → query → exact contract →
// action — for an imported service, run through the real dispatcher on an in-memory database. (3) A new agent's
// everyday tasks (app/api/v1/tools/new-agent.test.ts, run here with NEW_AGENT_REPORT): calls, bytes, person's steps.
// (4) Working sets (issue #19): an agent's catalog with 0, 1, 3 and 4 exact tools against the byte budget, and one
// task on the exact path (search → materialize → the exact tool's tools/list entry → the exact call) against the
// generic path (search → exact contract → object_action), as an agent with the grants it needs.
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
  const { grant, makeActor, makeTenant } = await import("@/test-support");
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
  // (4) Working sets: an agent's catalog as exact tools are materialized, and one task on each path.
  const { catalogOf } = await import("@/lib/tools/working-set");
  const { actionOperationKey } = await import("@/lib/realms/contract");
  const { DEFAULT_CATALOG_BUDGET_BYTES } = await import("@/lib/working-set/budget");
  type Agent = Awaited<ReturnType<typeof makeActor>>;
  type Proof = { catalog_bytes: number; generic_bytes: number; working_set_bytes: number; budget_bytes: number; reads: number; writes: number };
  type Stage = { count: number; tools: { name: string; slot: string; bytes: number }[]; proof: Proof; evicted: string[] };
  const freshCall = <C extends { requestId: string }>(c: C): C => ({ ...c, requestId: `req_bench_${randomBytes(6).toString("hex")}` });
  const materializeAs = async (agent: Agent, namespace: string, action: string) =>
    (await dispatch(freshCall(agent), "object_schema", { namespace, operation: actionOperationKey(action), materialize: true })) as {
      materialized: { name: string; slot: string; bytes: number } | null;
      evicted: { name: string }[];
      catalog: Proof;
    };
  /** The agent's catalog after materializing each of `order` in turn, as the proofs say. */
  const stagesOf = async (agent: Agent, db: Parameters<typeof catalogOf>[0], order: [string, string][]) => {
    const zero = (await catalogOf(db, agent, new Date())).proof;
    const stages: Stage[] = [{ count: 0, tools: [], proof: zero, evicted: [] }];
    let held: Stage["tools"] = [];
    for (const [ns, action] of order) {
      const a = await materializeAs(agent, ns, action);
      if (!a.materialized) throw new Error(`${ns} ${action} was refused: ${JSON.stringify(a)}`);
      held = [...held.filter((h) => !a.evicted.some((e) => e.name === h.name)), a.materialized];
      stages.push({ count: held.length, tools: held, proof: a.catalog, evicted: a.evicted.map((e) => e.name) });
    }
    return stages;
  };
  type PathStep = Step & { counted: "request + response" | "request only" | "entry (tools/list)" };
  /** One task as an agent: each step's request and response, the last call's request only where it cannot run here. */
  const agentPath = async (agent: Agent, tasks: { step: string; tool: string; call: Record<string, unknown>; requestOnly?: boolean }[]) => {
    const out: PathStep[] = [];
    for (const s of tasks) {
      const request = bytes({ name: s.tool, arguments: s.call });
      if (s.requestOnly) {
        out.push({ ...s, request, response: 0, counted: "request only" });
        continue;
      }
      const res = (await dispatch(freshCall(agent), s.tool, s.call)) as { materialized?: { name: string; bytes: number } | null };
      out.push({ ...s, request, response: bytes(res), counted: "request + response" });
      // After materializing, the client's next tools/list carries the exact tool's entry: counted once here (a model is sent it on every later turn).
      if (s.call.materialize === true && res.materialized) out.push({ step: "tools/list delta", tool: res.materialized.name, call: {}, request: 0, response: res.materialized.bytes, counted: "entry (tools/list)" });
    }
    return out;
  };

  // GitHub, imported above: three typical reads and one typical write.
  const ghOrder: [string, string][] = [
    ["github", "issues/get"],
    ["github", "issues/list-comments"],
    ["github", "repos/get"],
    ["github", "issues/create-comment"],
  ];
  const ghStages = await stagesOf(await makeActor(t, alice, "Bench GitHub catalog"), t.db, ghOrder);
  const ghAgent = await makeActor(t, alice, "Bench GitHub task");
  await grant(t, alice, ghAgent.actorId, "github", ["object.action.issues/create-comment"]);
  const ghComment = { owner: "octocat", repo: "hello-world", issue_number: 1347, body: "Thanks, fixed in #1348." };
  const ghGeneric = await agentPath(ghAgent, [
    { step: "search", tool: "object_schema", call: { query: "comment on an issue" } },
    { step: "exact contract", tool: "object_schema", call: { namespace: "github", operation: "object.action.issues/create-comment" } },
    { step: "action (not sent)", tool: "object_action", call: { namespace: "github", action: "issues/create-comment", payload: ghComment }, requestOnly: true },
  ]);
  const ghExactPath = await agentPath(ghAgent, [
    { step: "search", tool: "object_schema", call: { query: "comment on an issue" } },
    { step: "materialize", tool: "object_schema", call: { namespace: "github", operation: "object.action.issues/create-comment", materialize: true } },
    { step: "exact call (not sent)", tool: "github_issues_create-comment", call: ghComment, requestOnly: true },
  ]);

  // The demo: its native realms have one read action (docs export) and writes, so a working set there holds at
  // most one read and one write; a third tool (another write) replaces the write.
  const demoTenant = { db: await getDb(), tenantId: demo.tenant.id, slug: demo.tenant.slug, users: {} };
  const demoOwner = { ...demoAlice, via: "session" as const };
  const demoStages = await stagesOf(await makeActor(demoTenant, demoOwner, "Bench demo catalog"), demoTenant.db, [
    ["docs", "export"],
    ["docs", "reply_comment"],
    ["mail", "send"],
  ]);
  const demoAgent = await makeActor(demoTenant, demoOwner, "Bench demo task");
  await grant(demoTenant, demoOwner, demoAgent.actorId, "docs", ["object.action.reply_comment"]);
  const demoGeneric = await agentPath(demoAgent, [
    { step: "search", tool: "object_schema", call: { query: "reply to a comment" } },
    { step: "exact contract", tool: "object_schema", call: { namespace: "docs", operation: "object.action.reply_comment" } },
    { step: "action", tool: "object_action", call: { ref: threadRef, action: "reply_comment", payload: { body: "Agreed — let's keep August." } } },
  ]);
  const demoExactPath = await agentPath(demoAgent, [
    { step: "search", tool: "object_schema", call: { query: "reply to a comment" } },
    { step: "materialize", tool: "object_schema", call: { namespace: "docs", operation: "object.action.reply_comment", materialize: true } },
    { step: "exact call", tool: "docs_reply_comment", call: { ref: threadRef, body: "Agreed — and the launch note goes out Monday." } },
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
  const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(0)}%`;
  const stageRows = (realm: string, stages: { count: number; tools: { name: string; slot: string; bytes: number }[]; proof: { catalog_bytes: number; generic_bytes: number; working_set_bytes: number; budget_bytes: number } }[], shown: number[]) =>
    shown
      .filter((i) => stages[i] !== undefined)
      .map((i) => [i, stages[i]!] as const)
      .map(
        ([i, x]) =>
          `| ${realm} | ${i} | ${x.count} | ${x.proof.catalog_bytes} (${kb(x.proof.catalog_bytes)}) | ${pct(x.proof.catalog_bytes, x.proof.budget_bytes)} | ${x.proof.generic_bytes} | ${x.proof.working_set_bytes} | ${x.tools.length ? x.tools.map((tl) => `\`${tl.name}\` (${tl.slot}, ${tl.bytes})`).join(", ") : "—"} |`,
      )
      .join("\n");
  const pathSum = (s: { request: number; response: number }[]) => s.reduce((n, x) => n + x.request + x.response, 0);
  const ratio = (a: { request: number; response: number }[], b: { request: number; response: number }[]) => `${(pathSum(a) / pathSum(b)).toFixed(2)}× the generic path`;
  const pathRows = (name: string, s: { step: string; tool: string; request: number; response: number; counted: string }[]) =>
    s.map((x) => `| ${name} | ${x.step} | \`${x.tool}\` | ${x.counted === "entry (tools/list)" ? "—" : x.request} | ${x.counted === "request only" ? "— (not sent)" : x.response} |`).join("\n");
  const gh4 = ghStages[4]!.proof;
  const ghVerdict = `GitHub with 4 exact tools: ${gh4.catalog_bytes} bytes, ${gh4.catalog_bytes < DEFAULT_CATALOG_BUDGET_BYTES ? "under" : "NOT under"} the ${kb(DEFAULT_CATALOG_BUDGET_BYTES)} default (${DEFAULT_CATALOG_BUDGET_BYTES - gh4.catalog_bytes} bytes to spare; held by \`lib/tools/working-set.github.test.ts\`).`;
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

### Working sets (exact tools, issue #19)

An agent's catalog (the nine generic tools it could be granted, then its working set), as \`object_schema(namespace, operation, materialize: true)\`'s catalog proof reports it, against the default budget of ${DEFAULT_CATALOG_BUDGET_BYTES} bytes (${kb(DEFAULT_CATALOG_BUDGET_BYTES)}; at most 3 read and 1 write-or-destructive tools). The generic tools count here as MCP lists them, with their hints (annotations), hence more than the ${full} bytes of the nine entries above:

| realm | materialized | exact tools listed | catalog bytes | of the budget | generic | working set | tools in the working set (slot, bytes) |
|---|---:|---:|---:|---:|---:|---:|---|
${stageRows("GitHub imported", ghStages, [0, 1, 3, 4])}
${stageRows("Demo (native)", demoStages, [0, 1, 2, 3])}

${ghVerdict} The demo's native realms have one read action (\`docs\` export), so its working set holds at most 2 exact tools (1 read, 1 write): 3 and 4 are not reachable there, and materializing a third (${demoStages.at(-1)!.tools.at(-1)!.name}, a second write) replaced ${demoStages.at(-1)!.evicted.join(", ") || "nothing"} (slot full).

One task as an agent (request + response bytes through the real dispatcher, canonical JSON), exact path (search → materialize → the exact tool's entry in the next \`tools/list\` → the exact call) against the generic path (search → exact contract → \`object_action\`). The exact tool's entry is counted once; a client sends it to the model on every later turn while it stays in the working set. The materialize answer carries the catalog proof (every listed tool with its bytes) and the tool's input schema.

Demo — reply to a comment thread (the thread's ref found as above, the same on both paths): exact path ${pathSum(demoExactPath)} bytes, generic path ${pathSum(demoGeneric)} bytes (${ratio(demoExactPath, demoGeneric)}).

| path | step | tool | request | response |
|---|---|---|---:|---:|
${pathRows("exact", demoExactPath)}
${pathRows("generic", demoGeneric)}

GitHub — comment on an issue (the final call is not sent: no network here; its request bytes only, on both paths): exact path ${pathSum(ghExactPath)} bytes, generic path ${pathSum(ghGeneric)} bytes (${ratio(ghExactPath, ghGeneric)}).

| path | step | tool | request | response |
|---|---|---|---:|---:|
${pathRows("exact", ghExactPath)}
${pathRows("generic", ghGeneric)}
`;
  writeSection("catalog", `## Catalog budget (\`npm run bench:catalog\`)\n${body}\n${machineLine()}`);
  console.log(body);
}

await main();
