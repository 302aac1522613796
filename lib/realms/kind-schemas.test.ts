// Kinds are declared once: a native realm's manifest carries, per kind, the JSON Schemas of the zod its adapter
// validates with, and manifestSchema refuses a manifest whose writable fields, filters or selectors disagree.
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { kindSchemaDisagreements, manifestSchema, type RealmManifest } from "./contract";
import { nativeManifest } from "./native/declare";
import { nativeRefs } from "./native/refs";
import { builtInRealms } from "./registry";
import { kinds as boardKinds } from "./board/kinds";
import { kinds as docsKinds } from "./docs/kinds";
import { kinds as memoryKinds } from "./memory/kinds";

const native = Object.values(builtInRealms).filter((r) => r.manifest.realm_type === "native");
const clone = (m: RealmManifest): RealmManifest => structuredClone(m);
const issues = (m: unknown) => {
  const r = manifestSchema.safeParse(m);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

describe("kind schemas in native manifests", () => {
  it.each(native.map((r) => [r.manifest.namespace, r.manifest] as const))("%s: every kind publishes schemas that agree with its fields, filters and selectors", (_ns, m) => {
    for (const k of m.kinds) {
      expect(k.schemas, k.name).toBeDefined();
      const by = m.selectors.filter((s) => s.kind === k.name).map((s) => s.by);
      expect(kindSchemaDisagreements(k, by)).toEqual([]);
      for (const s of Object.values(k.schemas!)) expect(s).toMatchObject({ type: "object", additionalProperties: false });
    }
  });

  it("refuses a filter the schema does not accept, and a filter the schema accepts but the manifest hides", () => {
    const extra = clone(builtInRealms.memory!.manifest);
    extra.kinds[0]!.filters.push("colour");
    expect(issues(extra).join("\n")).toMatch(/kind memory\.item: filters \[.*colour.*\] disagree with its schemas/);
    const missing = clone(builtInRealms.board!.manifest);
    missing.kinds.find((k) => k.name === "board.card")!.filters = ["board"];
    expect(issues(missing).join("\n")).toMatch(/kind board\.card: filters/);
  });

  it("refuses a writable flag or a selector that disagrees with the schemas", () => {
    const readOnly = clone(builtInRealms.docs!.manifest);
    readOnly.kinds.find((k) => k.name === "docs.tab")!.fields.find((f) => f.name === "body")!.writable = false;
    expect(issues(readOnly).join("\n")).toMatch(/kind docs\.tab: writable fields/);
    const selector = clone(builtInRealms.docs!.manifest);
    selector.selectors.push({ kind: "docs.document", by: "colour", description: "no such selector" });
    expect(issues(selector).join("\n")).toMatch(/kind docs\.document: selectors/);
  });

  it("fills schemas from the kind module, so a kind module that changes its zod fails its manifest", () => {
    const refs = nativeRefs("demo", { note: { kind: "demo.note", idPrefix: "nte" } });
    const raw = {
      namespace: "demo",
      realm_type: "native",
      service_card: { title: "Demo", purpose: "p", works_with: "w", touches: ["t"], operation_labels: { "provider.about": "a", "object.schema": "s", "object.list": "l" } },
      kinds: [
        {
          name: "demo.note",
          label: "Note",
          one_liner: "A note.",
          ref_pattern: "demo:note:<id>",
          fields: [{ name: "title", type: "string", description: "Title." }],
          operations: ["object.list"],
          filters: ["tag"],
        },
      ],
      catalog: { path: "/", label: "Demo", description: "d", keywords: [], kinds: [], operations: [], children: [] },
      delivery: { cursors: true, files: false },
    };
    const agreeing = { noun: "note", schemas: { filter: z.strictObject({ tag: z.string().optional() }) } };
    expect(nativeManifest(raw, { refs, kinds: { note: agreeing } }).kinds[0]!.schemas?.filter).toMatchObject({ properties: { tag: { type: "string" } } });
    const drifted = { noun: "note", schemas: { filter: z.strictObject({ label: z.string().optional() }) } };
    expect(() => nativeManifest(raw, { refs, kinds: { note: drifted } })).toThrow(/filters \[tag\] disagree with its schemas \[label\]/);
  });
});

describe("published kind schemas accept what the adapters accept", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const doc = "docs:document:doc_00000000000000000000";
  // Inputs the adapters take (zod parses them): the JSON Schema a dispatcher validates with must not refuse them.
  const samples: [string, "create" | "patch" | "filter" | "selector", { schemas?: Record<string, z.ZodType | undefined> }, Record<string, unknown>][] = [
    ["memory.item", "create", memoryKinds.item, { text: "Tea, no sugar", kind: " Preference ", labels: { add: ["Travel"] }, pinned: true, shared_with: ["bob@acme.test"] }],
    ["memory.item", "filter", memoryKinds.item, { pinned: "true", labels: "Travel", kind: "NOTE" }],
    ["memory.item", "selector", memoryKinds.item, { label: "travel" }],
    ["board.card", "create", boardKinds.card, { title: "Ship it", column: "Done", board: "Launch plan", assignees: ["bob@acme.test"], position: 0 }],
    ["board.card", "patch", boardKinds.card, { assignees: { remove: ["bob@acme.test"] }, archived: false }],
    ["board.card", "filter", boardKinds.card, { archived: "true", assignee: "bob@acme.test", column: "board:column:col_00000000000000000000" }],
    ["board.column", "selector", boardKinds.column, { title: "Done", board: "Launch plan" }],
    ["board.board", "create", boardKinds.board, { title: "Launch plan", shared_with: { add: ["bob@acme.test"] } }],
    ["docs.document", "create", docsKinds.document, { title: "Q3 planning", status: "review", shared_with: ["bob@acme.test"] }],
    // Trimmed before its one-line check: a trailing newline is accepted by both.
    ["docs.document", "patch", docsKinds.document, { title: "  Q3 planning\n" }],
    ["docs.document", "filter", docsKinds.document, { author: "me", status: "draft" }],
    ["docs.document", "selector", docsKinds.document, { author: "Alice" }],
    ["docs.tab", "create", docsKinds.tab, { document: doc, title: "Timeline", body: "# Beta\nIn August.", position: 1 }],
    ["docs.comment_thread", "create", docsKinds.thread, { document: doc, quote: "Beta in August", body: "Too early?" }],
    ["docs.file", "patch", docsKinds.file, { name: "notes.txt", document: null }],
  ];
  it.each(samples)("%s %s", (kind, which, mod, input) => {
    expect(mod.schemas?.[which]!.safeParse(input).success).toBe(true);
    const published = Object.values(builtInRealms)
      .flatMap((r) => r.manifest.kinds)
      .find((k) => k.name === kind)!.schemas![which]!;
    const validate = ajv.compile(published);
    expect(validate(input), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...input, no_such_field: 1 })).toBe(false);
  });
  it("a title over two lines is refused by the kind and by its published schema", () => {
    const published = builtInRealms.docs!.manifest.kinds.find((k) => k.name === "docs.document")!.schemas!.patch!;
    expect(docsKinds.document.schemas?.patch!.safeParse({ title: "Q3\nplanning" }).success).toBe(false);
    expect(ajv.compile(published)({ title: "Q3\nplanning" })).toBe(false);
  });
});

