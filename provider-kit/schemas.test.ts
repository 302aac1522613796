// The JSON Schemas of docs/provider-protocol/ against what the kit sends and answers (ajv, draft 2020-12), and
// manifest.json against Realmgate's zod contract: regenerated here, failing when the file is stale (refresh it
// with UPDATE_PROVIDER_SCHEMAS=1 npx vitest run provider-kit/schemas.test.ts). Also a type-level check that the
// kit's Manifest and ResourceScope mirror Realmgate's. This test imports Realmgate (`@/…`, zod, ajv); the kit's
// own files never do, so a team copying provider-kit/ leaves the tests behind or drops this one.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ResourceScope as RealmgateScope } from "@/db/schema/authz";
import { type CatalogNode as ContractCatalogNode, manifestSchema } from "@/lib/realms/contract";
import { ambiguous, conflict, invalidInput, invalidRef, notFound, ProviderError, rateLimited, realmDenied, tooLarge, unavailable } from "./errors";
import { OPERATIONS, PROTOCOL } from "./protocol";
import { signedCall, testContext } from "./testing";
import type { AnswerFailure, CatalogNode, Manifest, ManifestDocument, ResourceScope, WireInputs } from "./types";

const dir = path.resolve(import.meta.dirname, "../docs/provider-protocol");
const read = (name: string) => readFileSync(path.join(dir, name), "utf8");

function generatedManifestSchema(): string {
  const { $schema, ...rest } = z.toJSONSchema(manifestSchema, { io: "input" });
  const schema = {
    $schema,
    $id: "manifest.json",
    title: "A realm manifest",
    description: "Generated from lib/realms/contract.ts (manifestSchema, input side) by provider-kit/schemas.test.ts; do not edit. Realmgate also checks rules a JSON Schema cannot express (namespaces, kinds, operation labels, catalog names).",
    ...rest,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

function ajv() {
  const a = new Ajv2020({ strict: true, allErrors: true });
  addFormats(a);
  for (const f of ["context.json", "call.json", "answer.json", "registration.json", "manifest.json", "manifest-document.json"]) a.addSchema(JSON.parse(read(f)));
  return a;
}

const manifest: Manifest = {
  namespace: "freight",
  realm_type: "remote",
  service_card: {
    title: "Freight",
    purpose: "Shipments and their proofs of delivery",
    works_with: "shipments",
    touches: ["shipments"],
    operation_labels: { "provider.about": "About", "object.schema": "Schema", "object.get": "Read a shipment", "object.list": "List shipments", "file.host": "Host a file", "object.action.reschedule": "Reschedule" },
  },
  kinds: [
    {
      name: "freight.shipment",
      label: "Shipment",
      one_liner: "A shipment",
      ref_pattern: "freight:shipment:<id>",
      fields: [
        { name: "id", type: "string", description: "Id", required: true },
        { name: "pod", type: "file", description: "Proof of delivery", heavy: true },
      ],
      operations: ["object.get", "object.list"],
    },
  ],
  actions: [
    { name: "reschedule", label: "Reschedule", description: "Moves the delivery date", target_kind: "freight.shipment", payload_schema: { type: "object" }, example: { date: "2026-12-02" }, risk: "write", returns: "The shipment" },
  ],
  catalog: { path: "/", label: "Freight", description: "Freight", keywords: [], kinds: ["freight.shipment"], operations: ["object.get"], children: [] },
  delivery: { cursors: true, files: true, max_page_size: 100 },
};
const doc: ManifestDocument = { protocol: PROTOCOL, manifest_version: "3", manifest };

// Type-level mirrors (tsc fails when the kit drifts from Realmgate's contract).
type ManifestInput = z.input<typeof manifestSchema>;
const _toContract: ManifestInput = manifest;
// (The contract's catalog is a lazy schema whose input is unknown: its node type is compared on its own.)
const _fromContract = (m: Omit<ManifestInput, "realm_type" | "catalog">): Omit<Manifest, "realm_type" | "catalog"> => m;
const _catalogTo = (n: CatalogNode): ContractCatalogNode => n;
const _catalogFrom = (n: ContractCatalogNode): CatalogNode => n;
const _scopeTo = (s: ResourceScope): RealmgateScope => s;
const _scopeFrom = (s: RealmgateScope): ResourceScope => s;
void [_toContract, _fromContract, _catalogTo, _catalogFrom, _scopeTo, _scopeFrom];

describe("docs/provider-protocol JSON Schemas", () => {
  it("manifest.json is the one generated from lib/realms/contract.ts", () => {
    const generated = generatedManifestSchema();
    if (process.env.UPDATE_PROVIDER_SCHEMAS === "1") writeFileSync(path.join(dir, "manifest.json"), generated);
    expect(read("manifest.json"), "stale: run UPDATE_PROVIDER_SCHEMAS=1 npx vitest run provider-kit/schemas.test.ts").toBe(generated);
  });

  it("are valid draft 2020-12 schemas that compile together", () => {
    expect(() => ajv()).not.toThrow();
  });

  it("accept a manifest document, and refuse one that is not a remote realm's", () => {
    const a = ajv();
    expect(manifestSchema.safeParse(manifest).success).toBe(true);
    expect(a.validate("manifest-document.json", doc), a.errorsText()).toBe(true);
    expect(a.validate("manifest-document.json", { ...doc, manifest: { ...manifest, realm_type: "native" } })).toBe(false);
    expect(a.validate("manifest-document.json", { ...doc, protocol: "realmgate.provider/2" })).toBe(false);
  });

  it("accept the kit's context and call body, and refuse a changed shape", () => {
    const a = ajv();
    const context = testContext({ registrationId: "rrp_1", tenantId: "ten_1" });
    expect(a.validate("context.json", context), a.errorsText()).toBe(true);
    expect(a.validate("context.json", { ...context, scope: { refs: ["freight:shipment:1"] } }), a.errorsText()).toBe(true);
    expect(a.validate("context.json", { ...context, scope: { kinds: ["freight.shipment"] } })).toBe(false);
    expect(a.validate("context.json", { ...context, issued_at: "yesterday" })).toBe(false);
    const { grantor: _g, ...noGrantor } = context;
    expect(a.validate("context.json", noGrantor)).toBe(false);

    const call = signedCall({ secret: "rgs_s", registrationId: "rrp_1", path: "/ops/get", context, input: { ref: "freight:shipment:1", full: false } });
    expect(a.validate("call.json", JSON.parse(call.body)), a.errorsText()).toBe(true);
    expect(a.validate("call.json", { context })).toBe(false);
  });

  it("describe every operation's input", () => {
    const a = ajv();
    const inputs: WireInputs = {
      about: {},
      list: { kind: "freight.shipment", filter: { status: "late" }, cursor: { after: "s_9", n: 2 }, limit: 50 },
      search: { kind: null, query: "rotterdam", filter: {}, cursor: null, limit: 20 },
      get: { ref: "freight:shipment:1", full: true },
      action: { action: "reschedule", ref: "freight:shipment:1", payload: { date: "2026-12-02" } },
      upsert: { kind: "freight.shipment", ref: null, fields: { id: "s_1" } },
      delete: { ref: "freight:shipment:1" },
      host_file: { name: "pod.pdf", content_type: "application/pdf", bytes_base64: "JVBERg==" },
      resolve_selector: { kind: "freight.shipment", selector: { number: "42" } },
      describe_refs: { refs: ["freight:shipment:1"] },
      lineage: { refs: ["freight:shipment:1"] },
      stream_file: { ref: "freight:shipment:1" },
      receive_upload: { ref: "freight:shipment:1", name: "pod.pdf", content_type: "application/pdf", bytes_base64: "JVBERg==", params: { slot: "pod" } },
    };
    expect(Object.keys(inputs)).toEqual([...OPERATIONS]);
    for (const op of OPERATIONS) expect(a.validate(`call.json#/$defs/inputs/${op}`, inputs[op]), `${op}: ${a.errorsText()}`).toBe(true);
    expect(a.validate("call.json#/$defs/inputs/host_file", { ...inputs.host_file, bytes_base64: "not base64!" })).toBe(false);
    expect(a.validate("call.json#/$defs/inputs/get", { ref: "freight:shipment:1" })).toBe(false);
  });

  it("accept success answers and every error helper's failure answer, refuse a mixed one", () => {
    const a = ajv();
    expect(a.validate("answer.json", { manifest_version: "3", result: { items: [], next: null } }), a.errorsText()).toBe(true);
    expect(a.validate("answer.json#/$defs/results/list", { items: [{ ref: "freight:shipment:1", kind: "freight.shipment", label: "S1", updated_at: "2026-12-01T10:00:00.000Z" }], next: { after: "s_1" } }), a.errorsText()).toBe(true);
    expect(a.validate("answer.json#/$defs/results/resolve_selector", { choices: [{ ref: "freight:shipment:1", kind: "freight.shipment", label: "S1" }] }), a.errorsText()).toBe(true);
    expect(a.validate("answer.json#/$defs/results/describe_refs", { "freight:shipment:1": { kind: "freight.shipment", label: "S1", lineage: [] }, "freight:shipment:2": null }), a.errorsText()).toBe(true);
    const lean = { ref: "freight:shipment:1", kind: "freight.shipment", label: "S1" };
    const errors = [notFound("no such shipment"), invalidInput("date is in the past", "date"), invalidRef("freight:shipment:x"), conflict("left", { state: "departed" }), ambiguous("two match", [lean, lean]), realmDenied({ message: "dispatch leads only", who_can_open: "a dispatch lead", url: "https://freight.example/access" }), rateLimited(2.5), tooLarge(1024), unavailable("down")];
    for (const e of errors) {
      const answer: AnswerFailure = { manifest_version: "3", error: { code: e.code, message: e.message, details: e.details } };
      expect(a.validate("answer.json", answer), `${e.code}: ${a.errorsText()}`).toBe(true);
    }
    // The kit's own refusal is outside the codes Realmgate accepts (it becomes provider_unavailable there).
    const refused = new ProviderError("bad_signature", "the signature does not match");
    expect(a.validate("answer.json", { manifest_version: "3", error: { code: refused.code, message: refused.message } })).toBe(false);
    expect(a.validate("answer.json", { manifest_version: "3", result: {}, error: { code: "not_found", message: "x" } })).toBe(false);
  });

  it("describe the registration request and answer", () => {
    const a = ajv();
    expect(a.validate("registration.json#/$defs/request", { url: "https://freight.internal.example/" }), a.errorsText()).toBe(true);
    expect(a.validate("registration.json#/$defs/request", { url: "not a url" })).toBe(false);
    const answer = { provider: { id: "rrp_1", namespace: "freight", url: "https://freight.internal.example/", manifest_version: "3", status: "available" }, secret: "rgs_x", tenant_id: "ten_1" };
    expect(a.validate("registration.json#/$defs/answer", answer), a.errorsText()).toBe(true);
    expect(a.validate("registration.json", answer), a.errorsText()).toBe(true);
    expect(a.validate("registration.json#/$defs/answer", { ...answer, secret: undefined })).toBe(false);
  });
});
