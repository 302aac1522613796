// External $refs: bundled from the files given beside a document, never read from this server's disk, and
// ignored inside vendor extensions.
import { describe, expect, it } from "vitest";
import { errorOf } from "@/test-support";
import { compileSpec } from "./compile";
import { loadBundledSpec, type SpecFiles } from "./spec-refs";
import { loadSpec } from "./spec";

const root = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ openapi: "3.1.0", info: { title: "Split", version: "1" }, servers: [{ url: "https://split.example.com" }], paths, ...extra });
const petOp = (ref: string) => ({ "/pets/{id}": { get: { operationId: "pets/get", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: ref } } } } } } } });
const files: SpecFiles = {
  "schemas/pet.yaml": "type: object\nrequired: [id]\nproperties:\n  id: {type: string}\n  owner: {$ref: './owner.json'}\n  tags: {type: array, items: {$ref: '../../common.yaml#/Tag'}}\n",
  "schemas/owner.json": JSON.stringify({ type: "object", properties: { name: { type: "string" }, pets: { type: "array", items: { $ref: "./pet.yaml" } } } }),
  "../common.yaml": "Tag:\n  type: object\n  properties:\n    label: {type: string}\n",
};

describe("bundling a document split over files", () => {
  it("resolves relative refs from spec_files, nested and cyclic, into one document that compiles", async () => {
    const spec = await loadBundledSpec(root(petOp("./schemas/pet.yaml")), { files });
    const op = compileSpec(spec).operations[0]!;
    expect(op.contract.returns).toEqual({ status: 200, content_type: "application/json", shape: { type: "object", properties: { id: "string", owner: "object", tags: "object[]" }, required: ["id"] } });
    // Every ref is now local: the stored document names no file.
    expect(spec.canonical).not.toMatch(/"\$ref":"[^#]/);
  });

  it("refuses a ref to a file that was not given, naming it, with spec_ref_unresolved", async () => {
    const e = await errorOf(loadBundledSpec(root(petOp("./schemas/pet.yaml")), { files: { "schemas/pet.yaml": files["schemas/pet.yaml"]! } }));
    expect(e.code).toBe("spec_ref_unresolved");
    expect(e.details).toMatchObject({ reason: "missing_file", missing_files: ["../common.yaml", "schemas/owner.json"] });
  });

  it("never reads this server's disk: paths that climb out, absolute paths and file: URLs name nothing", async () => {
    for (const ref of ["../../../../etc/hostname", "/etc/hostname", "file:///etc/hostname", "https://elsewhere.example.com/pet.yaml"]) {
      const e = await errorOf(loadBundledSpec(root(petOp(ref))));
      expect(e.code).toBe("spec_ref_unresolved");
      expect(["missing_file", "cross_origin"]).toContain(e.details.reason);
    }
    // A companion file may not be named by an absolute path or a URL of another origin.
    expect((await errorOf(loadBundledSpec(root(petOp("./pet.yaml")), { files: { "/etc/pet.yaml": "{}" } }))).details.reason).toBe("bad_file_name");
    expect((await errorOf(loadBundledSpec(root(petOp("./pet.yaml")), { files: { "file:///pet.yaml": "{}" } }))).details.reason).toBe("bad_file_name");
  });

  it("says which pointer is missing in a file that was given", async () => {
    const e = await errorOf(loadBundledSpec(root(petOp("../common.yaml#/Nope")), { files }));
    expect(e.code).toBe("spec_ref_unresolved");
    expect(e.details.reason).toBe("pointer_missing");
  });

  it("bounds the files read", async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}.yaml`, "type: string"]));
    expect((await errorOf(loadBundledSpec(root(petOp("./f0.yaml")), { files: many }))).details.reason).toBe("too_many_files");
    // A chain of files, each naming the next, stops at the bound too.
    const chain = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`c${i}.yaml`, `$ref: './c${i + 1}.yaml'`]));
    expect((await errorOf(loadBundledSpec(root(petOp("./c0.yaml")), { files: chain }))).code).toBe("spec_ref_unresolved");
  });
});

describe("refs inside vendor extensions", () => {
  it("are neither resolved nor refused, external or local", async () => {
    const doc = root(
      { "/things": { get: { operationId: "things/list", "x-policy-list": { $ref: "#/components/x-policy/list" }, responses: { "200": { description: "ok" } } } } },
      { components: { "x-policy": { policies: { $ref: "../policies.yaml" }, list: [{ $ref: "#/components/x-policy/policies/Downloading" }] } } },
    );
    const spec = await loadBundledSpec(structuredClone(doc));
    expect(compileSpec(spec).operations.map((o) => o.card.action)).toEqual(["things/list"]);
    // Loading without bundling takes it too.
    expect((await loadSpec(structuredClone(doc))).operationCount).toBe(1);
    // The extension is kept as written.
    expect(spec.doc.components).toEqual((doc as Record<string, unknown>).components);
  });

  it("an external ref outside an extension is still refused when its file is not given", async () => {
    const e = await errorOf(loadBundledSpec(root({ "/t": { get: { responses: { "200": { $ref: "./responses.yaml#/Ok" } } } } })));
    expect(e.code).toBe("spec_ref_unresolved");
  });
});
