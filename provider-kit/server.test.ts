// The provider server over real HTTP on 127.0.0.1: the manifest route, signed calls reaching handlers, errors
// mapped to their status and body, unknown operations and paths, oversize bodies, unsigned calls, stream_file's
// raw bytes and headers, and base64 decoding for receive_upload.
import { Buffer } from "node:buffer";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conflict, ProviderError } from "./errors";
import { HEADER_FILENAME, HEADER_MANIFEST_VERSION, PROTOCOL } from "./protocol";
import { createProvider, type ProviderHandlers } from "./server";
import { signedCall, testContext } from "./testing";
import type { AuthContext, ManifestDocument, OperationInputs, OperationResults } from "./types";

const registration = { registrationId: "rrp_1", tenantId: "ten_1", secret: "rgs_server_test" };
const doc: ManifestDocument = {
  protocol: PROTOCOL,
  manifest_version: "7",
  manifest: {
    namespace: "freight",
    realm_type: "remote",
    service_card: { title: "Freight", purpose: "Shipments", works_with: "shipments", touches: ["shipments"], operation_labels: { "provider.about": "About", "object.schema": "Schema", "object.get": "Read a shipment" } },
    kinds: [{ name: "freight.shipment", label: "Shipment", one_liner: "A shipment", ref_pattern: "freight:shipment:<id>", fields: [{ name: "id", type: "string", description: "Id" }], operations: ["object.get"] }],
    catalog: { path: "/", label: "Freight", description: "Freight", keywords: [], kinds: ["freight.shipment"], operations: ["object.get"], children: [] },
    delivery: { cursors: false, files: true },
  },
};

const seen: { ctx?: AuthContext; upload?: OperationInputs["receive_upload"] } = {};
const logs: string[] = [];
let registered = true;

const handlers: Partial<ProviderHandlers> = {
  async get(ctx, input) {
    seen.ctx = ctx;
    return { ref: input.ref, status: "in_transit" };
  },
  async action(_ctx, input) {
    if (input.action === "explode") throw new Error("database password is hunter2");
    // A code outside the protocol's table, as plain JavaScript could throw it.
    if (input.action === "odd_code") throw new ProviderError("consent_required" as never, "ask someone");
    throw conflict("the shipment has left", { state: "departed" });
  },
  async upsert() {
    return undefined as unknown as OperationResults["upsert"];
  },
  async stream_file(_ctx, input) {
    return { content_type: "application/pdf", filename: `pod ${input.ref.split(":").pop()}é.pdf`, bytes: new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]) };
  },
  async receive_upload(_ctx, input) {
    seen.upload = input;
    return { stored: input.bytes.byteLength };
  },
};

const provider = createProvider({ manifest: () => doc, registration: () => (registered ? registration : null), handlers, basePath: "/freight", maxBodyBytes: 4096, log: (l) => logs.push(l) });
let server: { url: string; close(): Promise<void> };
const origin = () => new URL(server.url).origin;

beforeAll(async () => {
  server = await provider.listen(0, "127.0.0.1");
});
afterAll(async () => {
  await server.close();
});

async function post(op: string, input: unknown, overrides: Partial<AuthContext> = {}) {
  const path = `/freight/ops/${op}`;
  const c = signedCall({ ...registration, path, context: testContext({ ...registration, ...overrides }), input });
  return fetch(`${origin()}${path}`, { method: "POST", headers: c.headers, body: c.body });
}

describe("createProvider", () => {
  it("listens under its base path and answers the manifest document, unsigned", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/freight$/);
    const res = await fetch(`${server.url}/manifest`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual(doc);
  });

  it("runs a signed call's handler with its context and answers { manifest_version, result }", async () => {
    const res = await post("get", { ref: "freight:shipment:9", full: false }, { grantor: { id: "usr_a", email: "alice@acme.test" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ manifest_version: "7", result: { ref: "freight:shipment:9", status: "in_transit" } });
    expect(seen.ctx?.grantor.email).toBe("alice@acme.test");
  });

  it("maps a ProviderError to its status and body", async () => {
    const res = await post("action", { action: "reschedule", ref: "freight:shipment:9", payload: {} });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ manifest_version: "7", error: { code: "conflict", message: "the shipment has left", details: { state: "departed" } } });
  });

  it("a ProviderError with a code outside the table is a 503 provider_unavailable, and the server keeps serving", async () => {
    const res = await post("action", { action: "odd_code", ref: null, payload: {} });
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe("provider_unavailable");
    expect((await post("get", { ref: "freight:shipment:1", full: false })).status).toBe(200);
  });

  it("answers any other failure as 503 provider_unavailable with a generic message, logging it", async () => {
    const res = await post("action", { action: "explode", ref: null, payload: {} });
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error.code).toBe("provider_unavailable");
    expect(JSON.stringify(body)).not.toContain("hunter2");
    expect(logs.some((l) => l.startsWith("action failed (request req_"))).toBe(true);
    expect(logs.join("\n")).not.toContain(registration.secret);

    const nothing = await post("upsert", { kind: "freight.shipment", ref: null, fields: {} });
    expect(nothing.status).toBe(503);
    expect(logs.some((l) => l.includes("the upsert handler returned nothing"))).toBe(true);
  });

  it("answers 404 for an operation without a handler, an unknown operation and an unknown path", async () => {
    const missing = await post("delete", { ref: "freight:shipment:9" });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ code: "not_found", details: { operation: "delete" } });
    const unknown = await post("teleport", {});
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toMatchObject({ code: "not_found", details: { operation: "teleport" } });
    const elsewhere = await fetch(`${origin()}/manifest`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ manifest_version: "7", error: { code: "not_found" } });
  });

  it("answers 405 for a wrong method", async () => {
    const res = await fetch(`${server.url}/ops/get`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect((await res.json()).error.code).toBe("invalid_input");
    expect((await fetch(`${server.url}/manifest`, { method: "POST", body: "{}" })).status).toBe(405);
  });

  it("refuses an unsigned call with 401 bad_signature, before any handler", async () => {
    seen.ctx = undefined;
    const res = await fetch(`${server.url}/ops/get`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ context: testContext(registration), input: { ref: "freight:shipment:1", full: false } }) });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toMatchObject({ code: "bad_signature", message: "missing header realmgate-registration" });
    expect(seen.ctx).toBeUndefined();
  });

  it("answers 503 not registered before a registration exists", async () => {
    registered = false;
    try {
      const res = await post("get", { ref: "freight:shipment:1", full: false });
      expect(res.status).toBe(503);
      expect((await res.json()).error).toMatchObject({ code: "provider_unavailable", message: "not registered" });
    } finally {
      registered = true;
    }
  });

  it("refuses a body over the bound with 413, declared or streamed", async () => {
    const big = await post("get", { ref: "freight:shipment:1", full: false, pad: "x".repeat(5000) });
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatchObject({ code: "payload_too_large", details: { max_bytes: 4096 } });

    // Chunked (no Content-Length): the bound applies while reading.
    const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${server.url}/ops/get`, { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      for (let i = 0; i < 5; i++) req.write("x".repeat(1000));
      req.end();
    });
    expect(status.status).toBe(413);
    expect(JSON.parse(status.body).error.code).toBe("payload_too_large");

    // Far over (more than twice the bound), declared: refused without reading it.
    const huge = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/ops/get`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(100_000) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.write("x".repeat(10));
    });
    expect(huge).toBe(413);
  });

  it("answers stream_file with the raw bytes and the file's headers", async () => {
    const res = await post("stream_file", { ref: "freight:shipment:9" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get(HEADER_FILENAME)).toBe(encodeURIComponent("pod 9é.pdf"));
    expect(res.headers.get(HEADER_MANIFEST_VERSION)).toBe("7");
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]);
  });

  it("decodes receive_upload's bytes_base64 into bytes, and refuses invalid base64", async () => {
    const bytes = Buffer.from([1, 2, 3, 250, 251]);
    const res = await post("receive_upload", { ref: "freight:shipment:9", name: "pod.pdf", content_type: "application/pdf", bytes_base64: bytes.toString("base64"), params: { slot: "pod" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ manifest_version: "7", result: { stored: 5 } });
    expect(seen.upload).toMatchObject({ ref: "freight:shipment:9", name: "pod.pdf", content_type: "application/pdf", params: { slot: "pod" } });
    expect(seen.upload && "bytes_base64" in seen.upload).toBe(false);
    expect([...(seen.upload?.bytes ?? [])]).toEqual([1, 2, 3, 250, 251]);

    const bad = await post("receive_upload", { ref: "freight:shipment:9", name: "pod.pdf", content_type: "application/pdf", bytes_base64: "not base64!", params: {} });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ code: "invalid_input", details: { field: "bytes_base64" } });
  });
});
