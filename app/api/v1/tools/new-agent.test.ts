// A new agent that never saw Realmgate does everyday tasks through the REST API, reading only what the service
// tells it, by a fixed rule: start from the tools list; find the capability with object_schema(query) and take its
// top match; use only refs returned by earlier answers (or the selectors the realm declares); when a call is
// refused with a link, a person's step approves at that link and the agent retries the same call. Per task: at
// most 4 tool calls, at most 6 KB read (the tools list counted once, apart) and at most 1 person's step.
import { beforeAll, describe, expect, it } from "vitest";
import type { UserContext } from "@/lib/authz/context";
import { decideConsentRequest } from "@/lib/authz/consent";
import { builtInRealmModules } from "@/lib/realms/registry";
import { makeActor, makeTenant, type TestTenant } from "@/test-support";
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

  /** The person opens the link and approves what it asks (the request's own operations and scope). */
  private async approve(details: Json) {
    this.humanSteps++;
    const url = String(details.connection_hub_url ?? details.url ?? "");
    const id = /\/consent\/(ccr_[A-Za-z0-9]+)/.exec(url)?.[1];
    expect(id, `a consent link in ${JSON.stringify(details)}`).toBeDefined();
    await decideConsentRequest(this.t.db, this.grantor, id!, { decision: "approve", expires: "1d", scope_to_ref: false });
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
    expect(this.calls, r).toBeLessThanOrEqual(MAX_CALLS);
    expect(this.bytes, r).toBeLessThanOrEqual(MAX_BYTES);
    expect(this.humanSteps, r).toBeLessThanOrEqual(MAX_HUMAN_STEPS);
  }
}

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant({ alice: "owner", bob: "member" });
  const demo = {
    app_url: "http://realmgate.test",
    tenant: { id: t.tenantId, slug: t.slug, name: "Demo" },
    users: Object.fromEntries(Object.entries(t.users).map(([k, u]) => [k, { email: u.email, name: k, role: u.role, password: "x", api_key: "x", user_id: u.userId }])),
  };
  for (const m of builtInRealmModules) if (m.demo) await m.demo(t.db, demo, null);
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
    a.expectWithinBudget("delete a memory");
  });
});
