// A new agent that never saw Realmgate does everyday tasks through the REST API, reading only what the service
// tells it, by a fixed rule: start from the tools list; find the capability with object_schema(query) and take its
// top match; use only refs returned by earlier answers (or the selectors the realm declares); when a call is
// refused with a link, a person's step approves at that link and the agent retries the same call. Per task: at
// most 4 tool calls, at most 6 KB read (the tools list counted once, apart) and at most 1 person's step.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveAtDevIssuer, startDevMail, type DevMail } from "@/dev/fake-gmail";
import type { UserContext } from "@/lib/authz/context";
import { connectWith } from "@/lib/connections/test-kit";
import { env } from "@/lib/env";
import { importRealm } from "@/lib/openapi-admin/import";
import { builtInRealmModules } from "@/lib/realms/registry";
import { getConsentRequest } from "@/lib/authz/consent";
import { consentCompanions, decideAndContinue } from "@/lib/views/consent";
import { call, envOverride, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { mcpResourceUrl } from "@/lib/mcp/config";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { GET as listTools } from "./route";
import { POST as callTool } from "./[tool]/route";

type Json = Record<string, unknown>;
type Answer = { status: number; body: Json; bytes: number };

const MAX_CALLS = 4;
const MAX_BYTES = 6 * 1024;
const MAX_HUMAN_STEPS = 1;

/** An agent's session on one task: what it sent, what it read, and the person's steps it needed. */
class NewAgent {
  calls = 0;
  bytes = 0;
  humanSteps = 0;
  listBytes = 0;
  readonly transcript: string[] = [];
  constructor(
    private readonly token: string,
    private readonly grantor: UserContext,
    private readonly t: TestTenant,
  ) {}

  async tools(): Promise<string[]> {
    const res = await listTools(new Request("http://realmgate.test/api/v1/tools", { headers: { authorization: `Bearer ${this.token}` } }), { params: Promise.resolve({}) });
    const text = await res.text();
    this.listBytes = Buffer.byteLength(text);
    return (JSON.parse(text) as { tools: { name: string }[] }).tools.map((x) => x.name);
  }

  async call(tool: string, input: Json): Promise<Answer> {
    this.calls++;
    const req = new Request(`http://realmgate.test/api/v1/tools/${tool}`, { method: "POST", headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" }, body: JSON.stringify(input) });
    const res = await callTool(req, { params: Promise.resolve({ tool }) });
    const text = await res.text();
    const bytes = Buffer.byteLength(text);
    this.bytes += bytes;
    const body = JSON.parse(text) as Json;
    this.transcript.push(`${tool} ${JSON.stringify(input)} → ${res.status} ${bytes} B${res.status >= 400 ? ` ${(body.error as Json).code}` : ""}`);
    return { status: res.status, body, bytes };
  }

  /** The call; refused with a link for the person, one person's step at that link, then the same call again. */
  async act(tool: string, input: Json): Promise<Answer> {
    const first = await this.call(tool, input);
    if (first.status < 400) return first;
    const error = first.body.error as { code: string; details: Json };
    if (error.code !== "consent_required") return first;
    await this.approve(error.details);
    return this.call(tool, input);
  }

  /**
   * The person opens the link, approves what it asks (the request's own operations, companions as offered), and
   * goes on where the page sends them (connecting or upgrading their account at the provider) — one visit.
   */
  private async approve(details: Json) {
    this.humanSteps++;
    const url = String(details.connection_hub_url ?? details.url ?? "");
    const id = /\/consent\/(ccr_[A-Za-z0-9]+)/.exec(url)?.[1];
    expect(id, `a consent link in ${JSON.stringify(details)}`).toBeDefined();
    // The page as the person sees it: what was asked, and the companions offered with it, checked by default.
    const request = await getConsentRequest(this.t.db, this.grantor, id!);
    const offered = (await consentCompanions(this.t.db, this.grantor, request)).map((c) => c.key);
    const operations = [...request.operations, ...offered];
    const decided = await decideAndContinue(this.t.db, call(this.grantor), id!, { decision: "approve", expires: "1d", scope_to_ref: false, operations });
    for (const wall of decided.also_needed) {
      const body = wall.start ? { ...wall.start } : { claims: wall.missing_claims };
      await connectWith(this.t.db, this.grantor, { provider: "devmail", ...body, return_to: `/consent/${id}` }, (u) => approveAtDevIssuer(u, { login: mailLogin }));
    }
  }

  /** The top match of a capability search, as the agent reads it. */
  async find(query: string): Promise<Json> {
    const answer = await this.call("object_schema", { query });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const top = (answer.body.matches as Json[])[0];
    if (process.env.SHOW_MATCH) console.log(JSON.stringify(answer.body, null, 1));
    expect(top, `a match for "${query}"`).toBeDefined();
    return top!;
  }

  report(task: string) {
    return `${task}: ${this.calls} calls, ${this.bytes} B read, ${this.humanSteps} person's steps\n  ${this.transcript.join("\n  ")}`;
  }

  expectWithinBudget(task: string) {
    const r = this.report(task);
    console.log(r);
    results.push({ task, calls: this.calls, bytes: this.bytes, human_steps: this.humanSteps, tools_list_bytes: this.listBytes });
    expect(this.calls, r).toBeLessThanOrEqual(MAX_CALLS);
    expect(this.bytes, r).toBeLessThanOrEqual(MAX_BYTES);
    expect(this.humanSteps, r).toBeLessThanOrEqual(MAX_HUMAN_STEPS);
  }
}

/** Per task, for `npm run bench:catalog` (NEW_AGENT_REPORT=<file> writes them there). */
const results: { task: string; calls: number; bytes: number; human_steps: number; tools_list_bytes: number }[] = [];
afterAll(() => {
  if (process.env.NEW_AGENT_REPORT) fs.writeFileSync(process.env.NEW_AGENT_REPORT, JSON.stringify(results, null, 1));
});

let t: TestTenant;
let dm: DevMail;
const envs = envOverride();
/** Alice's mailbox at the local Gmail-compatible provider. */
const mailLogin = `alice-${Date.now().toString(36)}`;
afterAll(async () => {
  envs.restore();
  await dm?.close();
});
beforeAll(async () => {
  dm = await startDevMail({ appUrl: env().appUrl });
  envs.set(dm.env);
  t = await makeTenant({ alice: "owner", bob: "member" });
  const demo = {
    app_url: "http://realmgate.test",
    tenant: { id: t.tenantId, slug: t.slug, name: "Demo" },
    users: Object.fromEntries(Object.entries(t.users).map(([k, u]) => [k, { email: u.email, name: k, role: u.role, password: "x", api_key: "x", user_id: u.userId }])),
  };
  for (const m of builtInRealmModules) if (m.demo) await m.demo(t.db, demo, null);
  // The owner imported a service from its OpenAPI document.
  const helpdesk = fs.readFileSync(path.join(process.cwd(), "lib/realms/openapi/fixtures/helpdesk.yaml"), "utf8");
  await importRealm(t.db, t.users.alice!, { namespace: "helpdesk", spec: helpdesk, base_url: "https://helpdesk.example.com/api/v2" });
});

async function newAgent(name: string) {
  const actor = await makeActor(t, t.users.alice!, name);
  const agent = new NewAgent(actor.token, t.users.alice!, t);
  const tools = await agent.tools();
  expect(tools).toHaveLength(9);
  return agent;
}

/** What the top match says to call, as the agent reads it (the search answer's `how`). */
type How = { tool: string; kind?: string; namespace?: string; action?: string; payload?: Json; fields?: Record<string, string>; ref_or_selector?: string[]; filters?: string[] };
const howOf = (top: Json): How => {
  expect(top.how, `the top match says how to call it: ${JSON.stringify(top)}`).toBeDefined();
  return top.how as How;
};
/** The target part of a call from `how`: its kind (which names the realm) or its namespace. */
const on = (how: How, top: Json) => (how.kind ? { kind: how.kind } : { namespace: how.namespace ?? (top.namespace as string) });

describe("a new agent's everyday tasks", () => {
  it("saves a memory", async () => {
    const a = await newAgent("Saves a memory");
    const top = await a.find("save a memory");
    const how = howOf(top);
    expect(how).toMatchObject({ tool: "upsert_object", kind: "memory.item" });
    expect(how.fields).toHaveProperty("text");
    const saved = await a.act(how.tool, { ...on(how, top), fields: { text: "Prefers aisle seats on long flights" } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    a.expectWithinBudget("save a memory");
  });

  it("moves a card by its title", async () => {
    const a = await newAgent("Moves a card");
    const top = await a.find("move a card to another column");
    const how = howOf(top);
    expect(how).toMatchObject({ tool: "object_action", kind: "board.card", action: "move_card" });
    expect(how.ref_or_selector).toContain("title");
    expect(how.payload).toHaveProperty("column");
    const moved = await a.act(how.tool, { ...on(how, top), selector: { title: "Book the launch venue" }, action: how.action, payload: { column: "Done" } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    a.expectWithinBudget("move a card");
  });

  it("replies to a comment thread found by its document's title", async () => {
    const a = await newAgent("Replies to a thread");
    const top = await a.find("reply to a comment");
    const how = howOf(top);
    expect(how).toMatchObject({ tool: "object_action", kind: "docs.comment_thread", action: "reply_comment" });
    expect(how.ref_or_selector).toContain("document");
    const input = { ...on(how, top), selector: { document: "Q3 planning" }, action: how.action, payload: { body: "Agreed — August works." } };
    let reply = await a.act(how.tool, input);
    // The document has several threads: the answer lists them, and the agent picks one by what it says.
    if (reply.status === 409 || (reply.body.error as Json | undefined)?.code === "ambiguous_selector") {
      const choices = ((reply.body.error as Json).details as { choices: { ref: string; label: string }[] }).choices;
      reply = await a.call(how.tool, { ref: choices[0]!.ref, action: how.action, payload: input.payload });
    }
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    a.expectWithinBudget("reply to a thread");
  });

  it("exports a document and downloads it", async () => {
    const a = await newAgent("Exports a document");
    const top = await a.find("export a document");
    const how = howOf(top);
    expect(how).toMatchObject({ tool: "object_action", kind: "docs.document", action: "export" });
    const exported = await a.act(how.tool, { ...on(how, top), selector: { title: "Q3 planning" }, action: how.action, payload: how.payload });
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    expect(JSON.stringify(exported.body)).toContain('"encoding":"url"');
    a.expectWithinBudget("export a document");
  });

  it("deletes a memory", async () => {
    const a = await newAgent("Deletes a memory");
    const top = await a.find("delete a memory");
    const how = howOf(top);
    expect(how).toMatchObject({ tool: "delete_object", kind: "memory.item" });
    expect(how.ref_or_selector).toContain("text");
    const deleted = await a.act(how.tool, { ...on(how, top), selector: { text: "tea" } });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    // Named by a selector, the answer says which one it deleted.
    expect(String(deleted.body.label)).toMatch(/tea/i);
    a.expectWithinBudget("delete a memory");
  });

  it("attaches a file to a document", async () => {
    const a = await newAgent("Attaches a file");
    const top = await a.find("attach a file to a document");
    const how = howOf(top);
    expect(how).toMatchObject({ tool: "object_action", kind: "docs.file", action: "attach_file" });
    expect(how.payload).toHaveProperty("document");
    // Attaching needs a file: the rules (and the kind) say files come from host_file.
    const hosted = await a.act("host_file", { namespace: top.namespace, name: "venue-quote.txt", content_type: "text/plain", content_base64: Buffer.from("Venue quote: 4,200 EUR").toString("base64") });
    expect(hosted.status, JSON.stringify(hosted.body)).toBe(200);
    // The upload's companion (attaching, and nothing else) was approved in the same visit: no second person's step.
    const attached = await a.act(how.tool, { ref: hosted.body.ref, action: how.action, payload: { document: "Q3 planning" } });
    expect(attached.status, JSON.stringify(attached.body)).toBe(200);
    a.expectWithinBudget("attach a file");
  });

  it("searches mail (no account connected yet: the same visit connects one)", async () => {
    const a = await newAgent("Searches mail");
    const top = await a.find("search my email");
    const how = howOf(top);
    expect(how).toMatchObject({ tool: "search_objects" });
    expect(String(how.kind ?? top.namespace)).toMatch(/^mail/);
    const found = await a.act(how.tool, { ...on(how, top), query: "invoices" });
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect((found.body.items as unknown[]).length).toBeGreaterThan(0);
    a.expectWithinBudget("search mail");
  });

  it("replies to an email (the account lacks sending: the same visit allows it)", async () => {
    const a = await newAgent("Replies to an email");
    const top = await a.find("reply to an email");
    const how = howOf(top);
    expect(how).toMatchObject({ tool: "object_action", action: "reply" });
    expect(how.ref_or_selector).toContain("subject");
    const replied = await a.act(how.tool, { ...on(how, top), selector: { subject: "invoice" }, action: how.action, payload: { body: "Thanks, paid today." } });
    expect(replied.status, JSON.stringify(replied.body)).toBe(200);
    a.expectWithinBudget("reply to an email");
  });

  it("finds the exact contract of an imported operation", async () => {
    const a = await newAgent("Reads a contract");
    const top = await a.find("create a support ticket");
    expect(top).toMatchObject({ namespace: "helpdesk" });
    const contract = await a.call("object_schema", { namespace: top.namespace, operation: top.operation });
    expect(contract.status, JSON.stringify(contract.body)).toBe(200);
    expect(contract.body).toMatchObject({ tool: "object_action", payload_schema: { type: "object" } });
    a.expectWithinBudget("contract of an imported operation");
  });
});

describe("the same discovery over MCP", () => {
  it("finds an imported operation and reads its exact contract: each result's JSON sent once", async () => {
    const actor = await makeActor(t, t.users.alice!, "MCP newcomer");
    let id = 1;
    let calls = 0;
    let bytes = 0;
    const rpc = async (method: string, params?: Json) => {
      const res = await mcpPost(
        new Request(mcpResourceUrl(), {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${actor.token}` },
          body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, ...(params ? { params } : {}) }),
        }),
      );
      const text = await res.text();
      return { text, body: JSON.parse(text) as { result: { tools?: { name: string }[]; content?: { text: string }[]; structuredContent?: unknown; isError?: boolean } } };
    };
    const tool = async (name: string, args: Json) => {
      calls++;
      const { text, body } = await rpc("tools/call", { name, arguments: args });
      bytes += Buffer.byteLength(text);
      expect(body.result.structuredContent).toBeUndefined();
      return JSON.parse(body.result.content![0]!.text) as Json;
    };
    const listed = await rpc("tools/list");
    expect(listed.body.result.tools).toHaveLength(9);
    const found = (await tool("object_schema", { query: "create a support ticket" })) as { matches: Json[] };
    const top = found.matches[0]!;
    expect(top).toMatchObject({ namespace: "helpdesk" });
    const contract = await tool("object_schema", { namespace: top.namespace, operation: top.operation });
    expect(contract).toMatchObject({ tool: "object_action", payload_schema: { type: "object" } });
    console.log(`MCP discovery: ${calls} calls, ${bytes} B read (tools/list ${Buffer.byteLength(listed.text)} B apart)`);
    results.push({ task: "discovery over MCP (find an imported operation, read its contract)", calls, bytes, human_steps: 0, tools_list_bytes: Buffer.byteLength(listed.text) });
    expect(calls).toBeLessThanOrEqual(MAX_CALLS);
    expect(bytes).toBeLessThanOrEqual(MAX_BYTES);
  });
});
