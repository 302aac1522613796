// The freight manifest against Realmgate's own rules: manifestSchema, the protocol's ref templates, every action
// example against its payload schema, and the catalog leading a capability search to the right node.
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { searchCapabilities } from "@/lib/catalog/search";
import { manifestSchema, operationKeysOf } from "@/lib/realms/contract";
import { PROTOCOL } from "../../provider-kit/protocol";
import { manifestDocument } from "./manifest";
import { protocolSchemas } from "./test-client";

const doc = manifestDocument();
const parsed = manifestSchema.safeParse(doc.manifest);

describe("the freight manifest", () => {
  it("passes Realmgate's manifestSchema as a remote realm", () => {
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(doc.protocol).toBe(PROTOCOL);
    expect(doc.manifest.realm_type).toBe("remote");
    expect(Buffer.byteLength(JSON.stringify(doc))).toBeLessThan(512 * 1024);
  });

  it("is a manifest document by the protocol's JSON Schema", () => {
    const validate = protocolSchemas().getSchema("manifest-document.json")!;
    expect(validate(JSON.parse(JSON.stringify(doc))), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
  });

  it("offers no upsert, delete or file.host, and labels every operation it offers", () => {
    const ops = operationKeysOf(parsed.data!);
    expect(ops).not.toContain("file.host");
    expect(ops).not.toContain("object.upsert");
    expect(ops).not.toContain("object.delete");
    expect(ops.sort()).toEqual(Object.keys(doc.manifest.service_card.operation_labels).sort());
  });

  it("has one ref template per kind, each `freight:<noun>:<id>`", () => {
    const templates = doc.manifest.kinds.map((k) => k.ref_pattern);
    expect(new Set(templates).size).toBe(templates.length);
    for (const k of doc.manifest.kinds) expect(k.ref_pattern).toBe(`freight:${k.name.split(".")[1]}:<id>`);
  });

  it("has action examples that validate against their payload schemas, and schemas that refuse a bad payload", () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    for (const a of doc.manifest.actions ?? []) {
      const validate = ajv.compile(a.payload_schema);
      expect(validate(a.example), `${a.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(validate({ ...a.example, unexpected: 1 }), a.name).toBe(false);
    }
    const reschedule = ajv.compile(doc.manifest.actions!.find((a) => a.name === "reschedule")!.payload_schema);
    expect(reschedule({ due_at: "next friday", reason: "x" })).toBe(false);
    expect(reschedule({ due_at: "2026-12-04T16:00:00Z" })).toBe(false);
  });

  it("declares the two claims and puts them on the actions that need them", () => {
    expect(doc.manifest.claims?.map((c) => c.name)).toEqual(["freight:read", "freight:dispatch"]);
    const claims = Object.fromEntries((doc.manifest.actions ?? []).map((a) => [a.name, a.claims]));
    expect(claims).toEqual({ reschedule: ["freight:dispatch"], assign_carrier: ["freight:dispatch"], escalate_exception: ["freight:read"], attach_pod: ["freight:read"] });
    expect(doc.manifest.actions!.find((a) => a.name === "assign_carrier")!.ref_paths).toEqual(["carrier"]);
  });

  it("leads Realmgate's capability search for everyday phrases to the right node", () => {
    const top = (q: string) => {
      const [m] = searchCapabilities([parsed.data!], q, { limit: 3 });
      return `${m?.catalog_path} ${m?.operation}`;
    };
    expect(top("reschedule a shipment")).toBe("/shipments/reschedule object.action.reschedule");
    expect(top("overdue shipments")).toBe("/shipments/overdue object.list");
    expect(top("proof of delivery")).toMatch(/^\/documents/);
    expect(top("change carrier")).toBe("/shipments/carrier object.action.assign_carrier");
    expect(top("escalate the customs problem")).toBe("/exceptions/escalate object.action.escalate_exception");
  });
});
