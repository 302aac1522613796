// The tool catalog is sent to a model on every turn: it stays within its budget, measured exactly as
// `npm run bench:catalog` measures it (the same function), and what it leaves to provider_about is there.
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { makeTenant } from "@/test-support";
import { canonicalJson } from "@/lib/canonical-json";
import { CATALOG_BUDGET_BYTES, catalogBytes, jsonBytes, toolCatalog, toolEntry } from "./catalog";
import { TOOL_RULES } from "./describe";
import { dispatch } from "./dispatch";
import { toolDef, toolJsonSchema, toolNames } from "./schemas";

describe("the tool catalog's size", () => {
  it(`is at most ${CATALOG_BUDGET_BYTES} bytes of canonical JSON`, () => {
    expect(CATALOG_BUDGET_BYTES).toBe(6144);
    const bytes = catalogBytes();
    expect(bytes, `the nine-tool catalog weighs ${bytes} bytes: move detail into provider_about's rules or object_schema's answers`).toBeLessThanOrEqual(CATALOG_BUDGET_BYTES);
  });

  it("is measured as the nine toolEntry values, canonical JSON, UTF-8 bytes", () => {
    const catalog = toolNames.map(toolEntry);
    expect(toolCatalog()).toEqual(catalog);
    expect(catalogBytes()).toBe(Buffer.byteLength(canonicalJson(catalog)));
    expect(jsonBytes({ a: "é" })).toBe(Buffer.byteLength('{"a":"é"}'));
  });

  it("keeps each description to one line and leaves out keywords that say nothing", () => {
    const text = canonicalJson(toolCatalog());
    expect(text).not.toContain('"additionalProperties":{}');
    expect(text).not.toContain('"propertyNames":{"type":"string"}');
    for (const t of toolCatalog()) {
      expect(t.description).not.toContain("\n");
      expect(t.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
    }
  });
});

describe("the catalog's schemas against the zod inputs", () => {
  it("leave out the length bounds of issued values only; the exact contract and zod keep them", () => {
    const lean = toolEntry("list_objects").inputSchema as { properties: Record<string, Record<string, unknown>> };
    const full = toolJsonSchema("list_objects") as { properties: Record<string, Record<string, unknown>> };
    for (const p of ["namespace", "kind", "cursor"]) {
      expect(lean.properties[p]).toEqual({ type: "string" });
      expect(full.properties[p]).toMatchObject({ type: "string", minLength: expect.any(Number), maxLength: expect.any(Number) });
    }
    expect(lean.properties.limit).toEqual(full.properties.limit);
    expect(toolDef("list_objects").input.safeParse({ namespace: "d", kind: "docs.document" }).success).toBe(false);
    expect(toolDef("get_object").input.safeParse({ ref: "x".repeat(513) }).success).toBe(false);
    // Other bounds an agent needs for its first call stay in the catalog.
    const upsert = toolEntry("upsert_object").inputSchema as { properties: Record<string, Record<string, unknown>> };
    expect(upsert.properties.idempotency_key).toMatchObject({ minLength: 8, maxLength: 128 });
  });

  it("accept what the zod inputs accept (the dropped keywords changed no meaning)", () => {
    const ajv = new Ajv2020({ strict: false });
    const samples: [string, Record<string, unknown>][] = [
      ["object_action", { action: "reply_comment", ref: "docs:thread:thr_x", payload: { body: "hi", n: 1, nested: { a: [1] } } }],
      ["upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "x", tags: { add: ["a"] } } }],
      ["list_objects", { namespace: "docs", kind: "docs.document", filter: { status: "open", n: 2, tags: ["a"] }, limit: 5 }],
      ["get_object", { namespace: "docs", kind: "docs.document", selector: { title: "Q3 planning" } }],
    ];
    for (const [name, input] of samples) {
      const tool = name as (typeof toolNames)[number];
      expect(toolDef(tool).input.safeParse(input).success).toBe(true);
      expect(ajv.validate(toolEntry(tool).inputSchema, input), `${name}: ${ajv.errorsText()}`).toBe(true);
      expect(ajv.validate(toolJsonSchema(tool), input), `${name}: ${ajv.errorsText()}`).toBe(true);
      expect(ajv.validate(toolEntry(tool).inputSchema, { ...input, extra: 1 })).toBe(false);
    }
  });
});

describe("what the catalog leaves to provider_about", () => {
  it("is in provider_about()'s rules, once: refs, tool listing, selectors, paging, files, idempotency, search modes, denials", async () => {
    const t = await makeTenant();
    const root = (await dispatch(t.users.alice!, "provider_about", {})) as { rules: string[] };
    for (const rule of TOOL_RULES) expect(root.rules).toContain(rule);
    const rules = root.rules.join("\n");
    for (const said of ["opaque", "could be granted is listed, whatever you hold now", "consent_required", "needs_grant", "ambiguous_selector", "next_cursor", "20 items unless limit", "invalid_cursor", 'encoding: "url"', "idempotency_key", "8–128 printable ASCII", "idempotency_conflict", "search_mode: auto (default)", "hybrid", "lexical", "mode_ran", "retry_hint"]) {
      expect(rules).toContain(said);
    }
    // A realm's about says only what is its own, and points to the list for the rest.
    const about = (await dispatch(t.users.alice!, "provider_about", { namespace: "docs" })) as { rules: string[] };
    for (const rule of TOOL_RULES) expect(about.rules).not.toContain(rule);
    expect(about.rules.join("\n")).toContain("host_file stores a file here (at most");
    expect(about.rules.join("\n")).toContain("provider_about() without a namespace");
  });
});
