import fs from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ERRORS_DOC, renderErrorTable, TABLE_END, TABLE_START, withErrorTable } from "@/scripts/docs-errors";
import { readSources } from "@/test-support/import-graph";
import { AppError, errorTable, parseWith, toErrorBody, type ErrorCode } from "./errors";

describe("toErrorBody", () => {
  it("shapes an AppError with its code, status and details", () => {
    const out = toErrorBody(new AppError("not_found", "No such thing.", { details: { ref: "x" } }), "req_1");
    expect(out.status).toBe(404);
    expect(out.body).toEqual({ error: { code: "not_found", message: "No such thing.", details: { ref: "x" }, request_id: "req_1" } });
  });

  it("names the field path of a zod failure", () => {
    let err: unknown;
    try {
      parseWith(z.strictObject({ a: z.strictObject({ b: z.number() }) }), { a: { b: "no" } });
    } catch (e) {
      err = e;
    }
    const out = toErrorBody(err, "req_2");
    expect(out.status).toBe(400);
    expect(out.body.error.code).toBe("invalid_input");
    expect(out.body.error.message).toContain("a.b");
  });

  it("says a missing field is required, not that it 'received undefined'", () => {
    let err: unknown;
    try {
      parseWith(z.strictObject({ kind: z.string(), limit: z.number().optional() }), { limit: 3 }, "list_objects input");
    } catch (e) {
      err = e;
    }
    const out = toErrorBody(err, "req_4");
    expect(out.body.error.message).toBe("Invalid list_objects input: kind: required (string)");
    expect(out.body.error.details).toMatchObject({ issues: [{ path: "kind", message: "required (string)", code: "invalid_type" }] });
  });

  it("says every problem of the input at once, up to three in the message", () => {
    const schema = z.strictObject({ namespace: z.string(), limit: z.number().int(), kind: z.string(), cursor: z.string(), query: z.string() });
    let err: unknown;
    try {
      parseWith(schema, { namespce: "board", limit: "5", kind: "board.card" }, "list_objects input");
    } catch (e) {
      err = e;
    }
    const { message, details } = toErrorBody(err, "req_5").body.error;
    const issues = details.issues as { path: string }[];
    expect(issues.length).toBe(5);
    expect(message.startsWith("Invalid list_objects input: ")).toBe(true);
    expect(message.split("; ")).toHaveLength(3);
    expect(message).toContain("limit: ");
    expect(message).toContain("namespace: required (string)");
    expect(message).toMatch(/\(and 2 more in details\.issues\)$/);
  });

  it("never leaks an unknown error's message or stack", () => {
    const out = toErrorBody(new Error("password=hunter2 at db.ts:10"), "req_3");
    expect(out.status).toBe(500);
    expect(out.body.error.code).toBe("internal_error");
    expect(JSON.stringify(out.body)).not.toContain("hunter2");
    expect(out.body.error.message).toContain("req_3");
  });
});

/** The codes written as the first argument of `new AppError(…)` in these sources (newlines and all). */
function codesRaised(files: Record<string, string>): Set<string> {
  const used = new Set<string>();
  for (const [name, text] of Object.entries(files)) {
    const visit = (n: ts.Node) => {
      if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === "AppError") {
        const first = n.arguments?.[0];
        if (first && ts.isStringLiteralLike(first)) used.add(first.text);
      }
      ts.forEachChild(n, visit);
    };
    visit(ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true));
  }
  return used;
}
const missingFromTable = (codes: Set<string>) => [...codes].filter((c) => !Object.hasOwn(errorTable, c)).sort();

describe("the table of error codes", () => {
  it("gives every AppError its status", () => {
    for (const [code, info] of Object.entries(errorTable)) expect(new AppError(code as ErrorCode, "x").status).toBe(info.status);
  });

  it("holds every code the code raises with new AppError(\"<code>\", …)", () => {
    const used = codesRaised(readSources(process.cwd(), ["lib", "app", "db", "components", "scripts", "dev", "bench"]));
    expect(used.size).toBeGreaterThan(15);
    expect(missingFromTable(used)).toEqual([]);
  });

  it("matches docs/errors.md (npm run docs:errors rewrites it)", () => {
    const doc = fs.readFileSync(ERRORS_DOC, "utf8");
    expect(doc).toBe(withErrorTable(doc));
    for (const code of Object.keys(errorTable)) expect(doc).toContain(`**\`${code}\`**`);
  });

  it("notices a drifted table, a missing code and missing markers (the check itself)", () => {
    const doc = withErrorTable(`# Errors\n\n${TABLE_START}\n${TABLE_END}\n\nhand-written\n`);
    expect(withErrorTable(doc)).toBe(doc);
    const drifted = doc.replace("| 404 |", "| 410 |");
    expect(withErrorTable(drifted)).not.toBe(drifted);
    expect(renderErrorTable({ only: { status: 400, retry: null, when: "Only." } })).not.toContain("not_found");
    const raised = codesRaised({ "lib/x.ts": 'throw new AppError(\n  "made_up_code",\n  "x");\nnew AppError("not_found", "y");' });
    expect([...raised].sort()).toEqual(["made_up_code", "not_found"]);
    expect(missingFromTable(raised)).toEqual(["made_up_code"]);
    expect(() => withErrorTable("# Errors\n")).toThrow(/markers/);
  });
});
