// Kinds are declared once: a native realm's manifest carries, per kind, the JSON Schemas of the zod its adapter
// validates with, and manifestSchema refuses a manifest whose writable fields, filters or selectors disagree.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { kindSchemaDisagreements, manifestSchema, type RealmManifest } from "./contract";
import { nativeManifest } from "./native/declare";
import { nativeRefs } from "./native/refs";
import { builtInRealms } from "./registry";

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
