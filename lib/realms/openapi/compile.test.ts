import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { ACTION_NAME_PATTERN, actionNameSchema } from "@/lib/realms/contract";
import { validatePayload } from "@/lib/tools/payload";
import { compileSpec, fallbackActionName, type CompiledSpec } from "./compile";
import { loadSpec, MAX_OPERATIONS, MAX_SPEC_BYTES, parseSpecText } from "./spec";
import { errorOf } from "@/test-support";

const helpdeskYaml = fs.readFileSync(path.join(import.meta.dirname, "fixtures", "helpdesk.yaml"), "utf8");

async function compile(doc: string | Record<string, unknown>): Promise<CompiledSpec> {
  return compileSpec(await loadSpec(doc));
}

/** How a document is refused: the AppError's code, message and the issues it lists. */
async function problem(doc: string | Record<string, unknown>): Promise<{ code: string; message: string; issues: { path: string; message: string }[] }> {
  const e = await errorOf(compile(doc));
  return { code: e.code, message: e.message, issues: (e.details.issues as { path: string; message: string }[]) ?? [] };
}

const minimal = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ openapi: "3.0.3", info: { title: "T", version: "1" }, paths, ...extra });

describe("operation cards", () => {
  it("gives every Helpdesk operation a card: operationId as written, else METHOD/path; risk from the method", async () => {
    const spec = await compile(helpdeskYaml);
    expect(spec.title).toBe("Helpdesk");
    expect(spec.servers).toEqual(["https://helpdesk.example.com/api/v2"]);
    expect(spec.warnings).toEqual([]);
    const byAction = new Map(spec.operations.map((o) => [o.card.action, o.card]));
    expect([...byAction.keys()]).toEqual([
      "tickets/list",
      "tickets/create",
      "tickets/get",
      "tickets/replace",
      "tickets/delete",
      "tickets/update",
      "comments/list",
      "comments/create",
      "GET/tickets/ticket_id/attachments/attachment_id/content",
      "GET/search/person",
      "people/get",
      "meta/status",
    ]);
    expect(byAction.get("tickets/delete")).toMatchObject({ method: "DELETE", risk: "destructive", scopes: ["tickets:admin"] });
    expect(byAction.get("tickets/update")).toMatchObject({ method: "PATCH", risk: "write", required_fields: ["ticket_id"] });
    expect(byAction.get("tickets/replace")!.required_fields).toEqual(["ticket_id", "title", "body", "status", "priority"]);
    expect(byAction.get("GET/search/person")).toMatchObject({ operation_id: null, risk: "read", tag: "people", input_digest: "q*: string", scopes: ["tickets:read"] });
    expect(byAction.get("meta/status")).toMatchObject({ category: "meta", tag: null });
    expect(byAction.get("comments/create")!.input_digest).toBe("ticket_id*: integer, X-Request-Source: string, body*: string, internal: boolean, in_reply_to: Comment");
    expect(byAction.get("tickets/list")!.group_description).toBe("Customer requests and their lifecycle.");
    expect(byAction.get("tickets/list")!.description).toBe("Lists tickets visible to the caller, newest first. Filter by status, assignee or labels.");
  });

  it("compiles a self-contained input schema that validates payloads and names failing fields", async () => {
    const spec = await compile(helpdeskYaml);
    const create = spec.operations.find((o) => o.card.action === "comments/create")!.contract;
    // The cyclic Comment schema stays a $ref into $defs: no expansion, no hang.
    expect(create.input_schema.$defs).toHaveProperty("Comment");
    expect(JSON.stringify(create.input_schema.$defs)).toContain('"#/$defs/Comment"');
    expect(create.body).toMatchObject({ mode: "flat", fields: ["body", "internal", "in_reply_to"], contentType: "application/json" });
    expect(validatePayload(create.input_schema, { ticket_id: 1, body: "On it" }, "comments/create")).toEqual({ ticket_id: 1, body: "On it", internal: false });
    const bad = (() => {
      try {
        validatePayload(create.input_schema, { ticket_id: 0, body: "", surprise: true, in_reply_to: { replies: [{}] } }, "comments/create");
      } catch (e) {
        return (e as AppError).details.issues as { path: string }[];
      }
      return [];
    })();
    expect(bad.map((i) => i.path).sort()).toEqual(["body", "in_reply_to.body", "in_reply_to.replies.0.body", "surprise", "ticket_id"]);
    // readOnly properties are the server's: never asked of the caller.
    expect(JSON.stringify(create.input_schema)).not.toContain('"id"');
    // The example satisfies the contract it illustrates.
    expect(() => validatePayload(create.input_schema, create.example, "example")).not.toThrow();
  });

  it("wraps a body that cannot sit beside the parameters", async () => {
    const spec = await compile(
      minimal({
        "/things/{name}": {
          put: {
            operationId: "things/put",
            parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
            requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } } } } },
          },
          post: { operationId: "things/raw", parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }], requestBody: { content: { "text/plain": { schema: { type: "string" } } } } },
        },
      }),
    );
    const put = spec.operations[0]!.contract;
    expect(put.body).toMatchObject({ mode: "wrapped", field: "body" });
    expect(put.input_schema.required).toEqual(["name", "body"]);
    expect(spec.operations[1]!.contract.body).toMatchObject({ mode: "wrapped", encoding: "text", required: false });
  });

  it("converts OpenAPI 3.0 schemas: nullable, boolean exclusive bounds, unknown formats and broken patterns", async () => {
    const spec = await compile(
      minimal({
        "/x": {
          get: {
            operationId: "x",
            parameters: [
              { name: "a", in: "query", schema: { type: "string", nullable: true, format: "repo.nwo" } },
              { name: "n", in: "query", schema: { type: "integer", minimum: 0, exclusiveMinimum: true } },
              { name: "p", in: "query", schema: { type: "string", pattern: "(?<!x" } },
            ],
          },
        },
      }),
    );
    const props = spec.operations[0]!.contract.input_schema.properties as Record<string, Record<string, unknown>>;
    expect(props.a).toEqual({ type: ["string", "null"] });
    expect(props.n).toEqual({ type: "integer", exclusiveMinimum: 0 });
    expect(props.p).toEqual({ type: "string" });
    expect(spec.warnings[0]!.message).toMatch(/not a valid regular expression/);
    expect(() => validatePayload(spec.operations[0]!.contract.input_schema, { a: null, n: 1 }, "x")).not.toThrow();
  });

  it("names operations with a missing, unusable or duplicate operationId by METHOD/path, with a warning", async () => {
    const spec = await compile(
      minimal({
        "/a": { get: { operationId: "same" }, post: { operationId: "same" } },
        "/b": { get: { operationId: "has spaces in it" }, delete: {} },
      }),
    );
    expect(spec.operations.map((o) => o.card.action)).toEqual(["same", "POST/a", "GET/b", "DELETE/b"]);
    expect(spec.warnings.map((w) => w.message)).toEqual([
      "operationId same is used twice; this operation is named POST/a",
      'operationId "has spaces in it" is not a usable action name (a letter or digit, then letters, digits, _ . - or /); the operation is named GET/b',
    ]);
  });

  it("renames an operationId that is not a name (`*`, spaces, a leading symbol) by METHOD/path — never drops it", async () => {
    const spec = await compile(
      minimal({
        "/c": { get: { operationId: "*" }, post: { operationId: "list all" }, put: { operationId: "a b" }, patch: { operationId: "-x" }, delete: { operationId: "ok.name/v1-2_3" } },
        "/repos/{owner}/{repo}": {
          parameters: [
            { name: "owner", in: "path", required: true, schema: { type: "string" } },
            { name: "repo", in: "path", required: true, schema: { type: "string" } },
          ],
          get: { operationId: "object.action.*" },
        },
      }),
    );
    const names = spec.operations.map((o) => o.card.action);
    expect(names).toEqual(["GET/c", "PUT/c", "POST/c", "ok.name/v1-2_3", "PATCH/c", "GET/repos/owner/repo"]);
    for (const n of names) expect(n).toMatch(ACTION_NAME_PATTERN);
    expect(names).not.toContain("*");
    const star = spec.operations.find((o) => o.card.operation_id === "*")!;
    expect(star.card).toMatchObject({ action: "GET/c", method: "GET", path: "/c", summary: "GET /c" });
    expect(spec.warnings.map((w) => w.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^operationId "\*" is not a usable action name .*; the operation is named GET\/c$/),
        expect.stringMatching(/^operationId "list all" is not a usable action name .*; the operation is named POST\/c$/),
        expect.stringMatching(/^operationId "a b" is not a usable action name .*; the operation is named PUT\/c$/),
        expect.stringMatching(/^operationId "-x" is not a usable action name .*; the operation is named PATCH\/c$/),
        expect.stringMatching(/^operationId "object\.action\.\*" is not a usable action name .*; the operation is named GET\/repos\/owner\/repo$/),
      ]),
    );
    expect(spec.warnings).toHaveLength(5);
  });

  it("a fallback that collides with a name already used gets -2, -3…", async () => {
    const spec = await compile(
      minimal({
        "/x": { get: { operationId: "GET/y" } },
        "/y": { get: {} },
        "/{y}": { parameters: [{ name: "y", in: "path", required: true, schema: { type: "string" } }], get: { operationId: "y y" } },
      }),
    );
    expect(spec.operations.map((o) => o.card.action)).toEqual(["GET/y", "GET/y-2", "GET/y-3"]);
  });
});

describe("fallbackActionName", () => {
  it.each([
    ["GET", "/search/person", "GET/search/person"],
    ["GET", "/repos/{owner}/{repo}", "GET/repos/owner/repo"],
    ["get", "/files/{name}.json", "GET/files/name.json"],
    ["POST", "/a b//c*~{d}:e", "POST/a_b/c_d_e"],
    ["DELETE", "/", "DELETE/"],
    ["PUT", "no-leading-slash", "PUT/no-leading-slash"],
    ["GET", "/café/%20x", "GET/caf_/_20x"],
  ])("%s %s → %s", (method, path, name) => {
    expect(fallbackActionName(method, path)).toBe(name);
    expect(name).toMatch(ACTION_NAME_PATTERN);
  });

  it("suffixes -2, -3… against the names taken, and stays within 200 characters", () => {
    expect(fallbackActionName("GET", "/a", new Set(["GET/a"]))).toBe("GET/a-2");
    expect(fallbackActionName("GET", "/a", new Set(["GET/a", "GET/a-2"]))).toBe("GET/a-3");
    const long = `/${"x".repeat(300)}`;
    const first = fallbackActionName("GET", long);
    expect(first).toHaveLength(200);
    const second = fallbackActionName("GET", long, new Set([first]));
    expect(second).toHaveLength(200);
    expect(second.endsWith("-2")).toBe(true);
    expect(actionNameSchema.safeParse(second).success).toBe(true);
  });
});

describe("bad documents are refused with every problem named, before anything is stored", () => {
  it.each([
    ["Swagger 2.0", { swagger: "2.0", info: {}, paths: {} }, /Swagger 2.0 document/],
    ["not OpenAPI 3", { openapi: "4.0.0", paths: {} }, /Not an OpenAPI 3.0 or 3.1 document/],
    ["no operations", minimal({}), /declares no operations/],
    ["not JSON nor YAML", "{ nope", /not valid JSON/],
    ["a YAML list", "- a\n- b\n", /not an object/],
  ])("%s", async (_name, doc, message) => {
    expect((await problem(doc as never)).message).toMatch(message);
  });

  it("lists every $ref that points nowhere, and refuses external refs (no file or network reads)", async () => {
    const missing = await problem(
      minimal({ "/a": { get: { parameters: [{ $ref: "#/components/parameters/nope" }], responses: { 200: { $ref: "#/components/responses/gone" } } } } }, { components: {} }),
    );
    expect(missing.code).toBe("invalid_input");
    expect(missing.issues.map((i) => i.message).sort()).toEqual(["$ref #/components/parameters/nope points nowhere", "$ref #/components/responses/gone points nowhere"]);
    expect(missing.issues[0]!.path).toMatch(/^paths\./);
    const external = await problem(minimal({ "/a": { get: { parameters: [{ $ref: "/etc/passwd#/x" }, { $ref: "https://example.com/p.yaml" }] } } }));
    expect(external.issues).toHaveLength(2);
    expect(external.message).toMatch(/2 external \$refs/);
  });

  it("refuses a $ref chain that loops instead of hanging", async () => {
    const p = await problem(minimal({ "/a": { get: { parameters: [{ $ref: "#/components/parameters/a" }] } } }, { components: { parameters: { a: { $ref: "#/components/parameters/b" }, b: { $ref: "#/components/parameters/a" } } } }));
    expect(p.message).toMatch(/refers to itself/);
  });

  it("refuses undeclared path parameters and bad parameter objects, all at once", async () => {
    const p = await problem(minimal({ "/a/{id}": { get: {} }, "/b": { get: { parameters: [{ name: "x" }] } } }));
    expect(p.issues).toEqual([
      { path: "paths./a/{id}.get", message: "path parameter {id} is not declared" },
      { path: "paths./b.get.parameters[0]", message: "a parameter needs a name and `in` (path, query, header or cookie)" },
    ]);
  });

  it("refuses a document over 50 MB before parsing it", () => {
    expect(() => parseSpecText(`{"x":"${"a".repeat(MAX_SPEC_BYTES)}"}`)).toThrow(expect.objectContaining({ code: "payload_too_large" }));
  });

  it("refuses YAML alias bombs, absurd nesting and too many operations", async () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join("\n");
    expect((await problem(`openapi: 3.1.0\n${bomb}\n`)).code).toBe("invalid_input");
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) deep = { x: deep };
    expect((await problem(minimal({ "/a": { get: { "x-deep": deep } } }))).message).toMatch(/nested deeper/);
    const many: Record<string, unknown> = {};
    for (let i = 0; i <= MAX_OPERATIONS; i++) many[`/p${i}`] = { get: {} };
    expect((await problem(minimal(many))).issues[0]!.message).toMatch(/at most 20000 are imported/);
  });
});
