// NUL and lone surrogates are refused where input enters — JSON bodies, path ids, query parameters, MCP requests and
// the dispatcher itself — with 400 invalid_input naming the field, and never reach the database.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { call, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { createApiKey } from "@/lib/authz/api-keys";
import type { ActorContext } from "@/lib/authz/context";
import { AppError } from "@/lib/errors";
import { mcpResourceUrl } from "@/lib/mcp/config";
import { handleMcpPost } from "@/lib/mcp/handler";
import { dispatch } from "@/lib/tools/dispatch";
import { readJson } from "@/lib/http/body";
import { param, queryOf, route, withCaller } from "@/lib/http/route";
import { assertCleanText, findTextIssue, textProblem } from "./text";

type Issue = { path: string; message: string; code: string };

describe("textProblem", () => {
  it.each([
    ["plain", "hello", null],
    ["emoji (a well-formed pair)", "a😀b\ud83d\ude00", null],
    ["other control characters", "tab\tnew\nline\u0001", null],
    ["NUL", "ab\u0000", { index: 2, char: "U+0000" }],
    ["a lone high surrogate", "x\ud800y", { index: 1, char: "U+D800" }],
    ["a high surrogate at the end", "x\udbff", { index: 1, char: "U+DBFF" }],
    ["a lone low surrogate", "\udc00", { index: 0, char: "U+DC00" }],
    ["two highs in a row", "\ud83d\ud83d\ude00", { index: 0, char: "U+D83D" }],
  ])("%s", (_what, s, expected) => expect(textProblem(s)).toEqual(expected));
});

describe("findTextIssue", () => {
  it("walks values and keys, arrays and objects, and stops at the depth limit", () => {
    expect(findTextIssue({ a: [1, { b: "ok" }], c: null })).toBeNull();
    expect(findTextIssue({ a: [1, { b: "x\u0000" }] })).toEqual({ path: ["a", 1, "b"], char: "U+0000", in: "value" });
    expect(findTextIssue({ a: { "k\ud800": 1 } })).toEqual({ path: ["a", "k\ud800"], char: "U+D800", in: "key" });
    let deep: unknown = "x";
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(findTextIssue(deep)).toMatchObject({ in: "depth" });
    expect(() => assertCleanText(deep, "tool input")).toThrow(/nested deeper than 64 levels/);
  });

  it("`__proto__` made an own key by JSON.parse is walked like any key", () => {
    expect(findTextIssue(JSON.parse('{"__proto__":{"x":"\\u0000"}}'))).toEqual({ path: ["__proto__", "x"], char: "U+0000", in: "value" });
  });
});

let t: TestTenant;
let apiKey: string;
let agent: ActorContext & { token: string };

beforeAll(async () => {
  t = await makeTenant({ alice: "owner" });
  apiKey = (await createApiKey(t.db, t.users.alice!, "text test")).key;
  agent = await makeActor(t, t.users.alice!, "Text agent");
  await grant(t, t.users.alice!, agent.actorId, "docs", ["object.upsert", "object.schema", "provider.about"]);
});

const docCount = async () => {
  const r = await t.db.execute<{ n: number }>(sql`select count(*)::int as n from docs_documents where tenant_id = ${t.tenantId}`);
  return Number((r as unknown as { rows: { n: number }[] }).rows[0]!.n);
};

async function refusal(res: Response): Promise<Issue> {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: string; details: { issues: Issue[] } } };
  expect(body.error.code).toBe("invalid_input");
  return body.error.details.issues[0]!;
}

describe("path ids and query parameters", () => {
  const echo = route(async (req, ctx) => Response.json({ id: param(ctx, "id"), query: queryOf(req) }));
  const get = (url: string, id: string | string[]) => echo(new Request(url), { params: Promise.resolve({ id }) });

  it("pass ordinary values through", async () => {
    const res = await get("http://realmgate.test/api/v1/x/y?namespace=docs&q=%F0%9F%98%80&constructor=1", "act_123");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: "act_123", query: { namespace: "docs", q: "😀", constructor: "1" } });
  });

  it.each([
    ["a NUL in a path id", "http://realmgate.test/x", "act_\u0000", "id"],
    ["a lone surrogate in a path id", "http://realmgate.test/x", "act_\ud800", "id"],
    ["a NUL in a catch-all path segment", "http://realmgate.test/x", ["a", "b\u0000"], "id"],
    ["a NUL in a query value", "http://realmgate.test/x?namespace=docs&actor=act%00x", "ok", "actor"],
    ["a NUL in a query key", "http://realmgate.test/x?na%00me=docs", "ok", "na\\u0000me"],
  ])("%s → 400 invalid_input naming it", async (_what, url, id, path) => {
    const issue = await refusal(await get(url, id));
    expect(issue.path).toBe(path);
    expect(issue.message).toMatch(/NUL|unpaired surrogate/);
  });
});

describe("the REST tool route (withCaller → readJson → dispatch)", () => {
  // The composition of app/api/v1/tools/[tool]/route.ts, without the rate limit.
  const tools = withCaller(async (req, ctx) => Response.json(await dispatch(ctx.auth, param(ctx, "tool"), await readJson(req))));
  const post = (tool: string, body: string) =>
    tools(new Request(`http://realmgate.test/api/v1/tools/${tool}`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body }), {
      params: Promise.resolve({ tool }),
    });

  it.each([
    ["a NUL in a body string", '{"namespace":"docs","kind":"docs.document","fields":{"title":"Plan\\u0000"}}', "fields.title"],
    ["a lone surrogate in a body string", '{"namespace":"docs","kind":"docs.document","fields":{"title":"Plan\\ud800"}}', "fields.title"],
    ["a NUL in a body key", '{"namespace":"docs","kind":"docs.document","fields":{"title":"Plan","ti\\u0000tle":"x"}}', "fields.ti\\u0000tle"],
    ["a lone surrogate in a body key", '{"namespace":"docs","kind":"docs.document","fields":{"\\udfff":"x"}}', "fields.\\udfff"],
  ])("%s → 400 invalid_input naming the field, nothing written", async (_what, body, path) => {
    const before = await docCount();
    const issue = await refusal(await post("upsert_object", body));
    expect(issue.path).toBe(path);
    expect(await docCount()).toBe(before);
  });

  it.each(["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "constructor toString __proto__"])("capability query %j → 200 with a normal answer", async (query) => {
    const res = await post("object_schema", JSON.stringify({ query }));
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toMatchObject({ query, mode_ran: "lexical", confidence: expect.stringMatching(/^(high|low)$/) });
    expect(Array.isArray(answer.matches)).toBe(true);
  });

  it.each(["constructor", "__proto__", "toString", "hasOwnProperty"])("namespace %j → 404 not_found, not 500", async (namespace) => {
    const res = await post("provider_about", JSON.stringify({ namespace }));
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("not_found");
  });
});

describe("the dispatcher (MCP and the UI reach it without the body reader)", () => {
  it.each([
    ["upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "a\u0000b" } }, "fields.title"],
    ["upsert_object", { namespace: "docs", kind: "docs.document", fields: { ["x\u0000"]: "b" } }, "fields.x\\u0000"],
    ["search_objects", { namespace: "docs", query: "plan\ud800" }, "query"],
    ["get_object", { namespace: "docs", kind: "docs.document", selector: { title: "\u0000" } }, "selector.title"],
    ["get_object", { ref: "docs:document:doc_\u0000" }, "ref"],
  ])("%s with %j → invalid_input naming %s", async (tool, input, path) => {
    for (const who of [call(t.users.alice!), call(agent)]) {
      const before = await docCount();
      const err = await dispatch(who, tool, input).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("invalid_input");
      expect(((err as AppError).details.issues as Issue[])[0]!.path).toBe(path);
      expect(await docCount()).toBe(before);
    }
  });
});

describe("MCP requests", () => {
  const mcp = route((req, { requestId }) => handleMcpPost(req, requestId));
  const rpc = (body: string) =>
    mcp(
      new Request(mcpResourceUrl(), {
        method: "POST",
        headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body,
      }),
    );

  it("a NUL or lone surrogate anywhere in the JSON-RPC body → 400 invalid_input naming it", async () => {
    const args = '{"namespace":"docs","kind":"docs.document","fields":{"title":"a\\u0000"}}';
    let issue = await refusal(await rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upsert_object","arguments":${args}}}`));
    expect(issue.path).toBe("params.arguments.fields.title");
    issue = await refusal(await rpc('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"object_action","arguments":{"namespace":"do\\ud800cs","action":"x"}}}'));
    expect(issue.path).toBe("params.arguments.namespace");
  });

  it("an ordinary call still works", async () => {
    const res = await rpc('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"object_schema","arguments":{"query":"constructor"}}}');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.result.isError).toBeFalsy();
  });
});
