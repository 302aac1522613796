// The freight provider over real HTTP on 127.0.0.1, signed as Realmgate signs: lists and filters, search,
// selectors, gate two (alice dispatches, bob reads, carol nothing), the desk's conflicts, the proof-of-delivery
// upload flow through to stream_file, scope narrowing, and the kit refusing an unsigned call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFreight, type FreightApp } from "./app";
import { call, checkAnswer, rawCall, TEST_REGISTRATION } from "./test-client";

// The desk's clock is fixed (seeded relative to it), so overdue_days is exact; the calls' own clock is real time.
const NOW = new Date("2026-12-01T12:00:00.000Z");
let app: FreightApp;
let url: string;

beforeAll(async () => {
  app = await startFreight({ port: 0, registration: TEST_REGISTRATION, now: () => NOW });
  url = app.url;
});
afterAll(async () => {
  await app?.close();
});

type Item = { ref: string; kind: string; label: string; summary?: string };
const items = (r: Awaited<ReturnType<typeof call>>) => (r.body.result as { items: Item[] }).items;
const labels = (r: Awaited<ReturnType<typeof call>>) => items(r).map((i) => i.label.split(" ")[0]);

describe("reading the desk", () => {
  it("lists overdue shipments with overdue_days, exactly the late ones still on their way", async () => {
    const all = await call(url, "list", { kind: "freight.shipment", filter: { overdue_days: 1 }, cursor: null, limit: 50 }, { email: "bob@acme.test" });
    expect(all.status).toBe(200);
    expect(labels(all)).toEqual(["SHP-1042", "SHP-1043", "SHP-1045", "SHP-1050", "SHP-1051"]);
    const three = await call(url, "list", { kind: "freight.shipment", filter: { overdue_days: 3 }, cursor: null, limit: 50 });
    expect(labels(three)).toEqual(["SHP-1042", "SHP-1045", "SHP-1051"]);
    const got = await call(url, "get", { ref: "freight:shipment:s1045", full: false });
    expect(got.body.result).toMatchObject({ reference: "SHP-1045", status: "delayed", overdue_days: 8, carrier: "freight:carrier:bluewave" });
    expect(got.body.result).not.toHaveProperty("notes");
    const delivered = await call(url, "get", { ref: "freight:shipment:s1040", full: true });
    expect(delivered.body.result).toMatchObject({ overdue_days: 0, documents: ["freight:document:d1040"] });
    expect(delivered.body.result!.notes).toMatch(/Delivered to dock 2/);
  });

  it("pages with cursors and refuses a bad filter", async () => {
    const first = await call(url, "list", { kind: "freight.shipment", filter: {}, cursor: null, limit: 5 });
    const next = (first.body.result as { next: Record<string, string> | null }).next;
    expect(labels(first)).toEqual(["SHP-1040", "SHP-1041", "SHP-1042", "SHP-1043", "SHP-1044"]);
    expect(next).not.toBeNull();
    const second = await call(url, "list", { kind: "freight.shipment", filter: {}, cursor: next, limit: 50 });
    expect(labels(second)[0]).toBe("SHP-1045");
    expect(items(second)).toHaveLength(7);
    expect((second.body.result as { next: unknown }).next).toBeNull();
    const bad = await call(url, "list", { kind: "freight.shipment", filter: { colour: "red" }, cursor: null, limit: 5 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_input", details: { field: "filter.colour" } });
  });

  it("pages a search over every kind without losing or repeating an item", async () => {
    const seen: string[] = [];
    let cursor: unknown = null;
    for (let pages = 0; pages < 10; pages++) {
      const r = await call(url, "search", { kind: null, query: "", filter: {}, cursor, limit: 6 });
      seen.push(...items(r).map((i) => i.ref));
      cursor = (r.body.result as { next: unknown }).next;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(20); // 12 shipments, 4 carriers, 3 exceptions, 1 document
    expect(new Set(seen).size).toBe(20);
    expect(seen.slice(11, 13)).toEqual(["freight:shipment:s1051", "freight:carrier:balticrail"]);
    expect(seen.at(-1)).toBe("freight:document:d1040");
  });

  it("filters by carrier name or ref, status and route", async () => {
    const byName = await call(url, "list", { kind: "freight.shipment", filter: { carrier: "baltic rail", status: "in_transit" }, cursor: null, limit: 50 });
    expect(labels(byName)).toEqual(["SHP-1043"]);
    const byRef = await call(url, "list", { kind: "freight.shipment", filter: { carrier: "freight:carrier:skybridge" }, cursor: null, limit: 50 });
    expect(labels(byRef)).toEqual(["SHP-1048"]);
    const route = await call(url, "list", { kind: "freight.shipment", filter: { route: "rotterdam -> munich" }, cursor: null, limit: 50 });
    expect(items(route).map((i) => i.label)).toEqual(["SHP-1042 Rotterdam → Munich"]);
  });

  it("searches case-insensitively over reference, route and notes", async () => {
    const r = await call(url, "search", { kind: "freight.shipment", query: "rotterdam", filter: {}, cursor: null, limit: 50 });
    expect(labels(r)).toEqual(["SHP-1042", "SHP-1043", "SHP-1045", "SHP-1049"]);
    const notes = await call(url, "search", { kind: null, query: "CUSTOMS", filter: {}, cursor: null, limit: 50 });
    expect(items(notes).map((i) => i.ref)).toEqual(["freight:shipment:s1045", "freight:exception:e2"]);
  });

  it("resolves selectors: one match, choices, and a did-you-mean", async () => {
    const one = await call(url, "resolve_selector", { kind: "freight.shipment", selector: { reference: "shp-1042" } });
    expect(one.body.result).toEqual({ ref: "freight:shipment:s1042" });
    const several = await call(url, "resolve_selector", { kind: "freight.shipment", selector: { status: "delayed" } });
    expect((several.body.result as { choices: Item[] }).choices.map((c) => c.ref)).toEqual(["freight:shipment:s1042", "freight:shipment:s1045", "freight:shipment:s1051"]);
    const typo = await call(url, "resolve_selector", { kind: "freight.shipment", selector: { reference: "SHP-1024" } });
    expect(typo.status).toBe(404);
    expect(typo.body.error).toMatchObject({ code: "not_found", details: { did_you_mean: ["SHP-1042", "SHP-1044"] } });
    expect(typo.body.error?.message).toMatch(/did you mean SHP-1042 or SHP-1044\?/);
    const carrier = await call(url, "resolve_selector", { kind: "freight.carrier", selector: { name: "Nordline Road" } });
    expect(carrier.body.result).toEqual({ ref: "freight:carrier:nordline" });
    const exception = await call(url, "resolve_selector", { kind: "freight.exception", selector: { shipment: "SHP-1045" } });
    expect(exception.body.result).toEqual({ ref: "freight:exception:e2" });
    const late = await call(url, "resolve_selector", { kind: "freight.shipment", selector: { carrier: "Nordline Road", overdue_days: "2" } });
    expect((late.body.result as { choices: Item[] }).choices.map((c) => c.ref)).toEqual(["freight:shipment:s1042", "freight:shipment:s1050"]);
  });

  it("describes refs and their lineage", async () => {
    const d = await call(url, "describe_refs", { refs: ["freight:shipment:s1042", "freight:exception:e1", "freight:shipment:nope"] });
    expect(d.body.result).toMatchObject({
      "freight:shipment:s1042": { kind: "freight.shipment", label: "SHP-1042 Rotterdam → Munich", lineage: [] },
      "freight:exception:e1": { kind: "freight.exception", lineage: ["freight:shipment:s1042"] },
      "freight:shipment:nope": null,
    });
    const l = await call(url, "lineage", { refs: ["freight:document:d1040", "freight:carrier:nordline"] });
    expect(l.body.result).toEqual({ "freight:document:d1040": ["freight:shipment:s1040"], "freight:carrier:nordline": [] });
  });
});

describe("gate two and the desk's rules", () => {
  const reschedule = (ref: string, email: string, payload: Record<string, unknown> = { due_at: "2026-12-05T09:00:00Z", reason: "Customer moved the slot." }) =>
    call(url, "action", { action: "reschedule", ref, payload }, { email, operation: "object.action.reschedule" });

  it("refuses bob's reschedule naming the dispatch claim; alice's moves due_at", async () => {
    const bob = await reschedule("freight:shipment:s1043", "bob@acme.test");
    expect(bob.status).toBe(403);
    expect(bob.body.error).toMatchObject({ code: "realm_denied", details: { claim: "freight:dispatch", who_can_open: "The freight desk lead (dispatch@acme.test)" } });
    const alice = await reschedule("freight:shipment:s1043", "alice@acme.test");
    expect(alice.status).toBe(200);
    expect(alice.body.result).toMatchObject({ ref: "freight:shipment:s1043", due_at: "2026-12-05T09:00:00.000Z", overdue_days: 0 });
    const got = await call(url, "get", { ref: "freight:shipment:s1043", full: true });
    expect(got.body.result).toMatchObject({ due_at: "2026-12-05T09:00:00.000Z" });
    expect(got.body.result!.notes).toMatch(/alice@acme\.test: rescheduled .*Customer moved the slot\./);
  });

  it("refuses anyone the desk does not know, even for reading", async () => {
    const carol = await call(url, "list", { kind: "freight.shipment", filter: {}, cursor: null, limit: 5 }, { email: "carol@acme.test" });
    expect(carol.status).toBe(403);
    expect(carol.body.error).toMatchObject({ code: "realm_denied", details: { claim: "freight:read" } });
  });

  it("answers conflict for a delivered shipment or a resolved exception, invalid_input for a bad payload", async () => {
    const delivered = await reschedule("freight:shipment:s1046", "alice@acme.test");
    expect(delivered.status).toBe(409);
    expect(delivered.body.error).toMatchObject({ code: "conflict", details: { status: "delivered" } });
    const resolved = await call(url, "action", { action: "escalate_exception", ref: "freight:exception:e3", payload: { note: "again" } }, { email: "bob@acme.test" });
    expect(resolved.body.error?.code).toBe("conflict");
    const noReason = await reschedule("freight:shipment:s1044", "alice@acme.test", { due_at: "2026-12-09T09:00:00Z" });
    expect(noReason.body.error).toMatchObject({ code: "invalid_input", details: { field: "payload.reason" } });
    const backwards = await reschedule("freight:shipment:s1044", "alice@acme.test", { due_at: "2026-12-02T09:00:00Z", pickup_at: "2026-12-03T09:00:00Z", reason: "x" });
    expect(backwards.body.error).toMatchObject({ code: "invalid_input", details: { field: "payload.pickup_at" } });
  });

  it("assigns a carrier and escalates an open exception", async () => {
    const assigned = await call(url, "action", { action: "assign_carrier", ref: "freight:shipment:s1044", payload: { carrier: "freight:carrier:nordline" } }, { email: "alice@acme.test" });
    expect(assigned.body.result).toMatchObject({ carrier: "freight:carrier:nordline", carrier_name: "Nordline Road" });
    const unknown = await call(url, "action", { action: "assign_carrier", ref: "freight:shipment:s1044", payload: { carrier: "freight:carrier:ghost" } }, { email: "alice@acme.test" });
    expect(unknown.body.error?.code).toBe("invalid_ref");
    const escalated = await call(url, "action", { action: "escalate_exception", ref: "freight:exception:e1", payload: { severity: "critical", note: "Customer escalated." } }, { email: "bob@acme.test" });
    expect(escalated.body.result).toMatchObject({ status: "escalated", severity: "critical", note: "Customer escalated.", kind: "delay" });
  });
});

describe("proof of delivery", () => {
  it("attach_pod answers an upload slot; receive_upload files a document that streams back byte for byte", async () => {
    const slot = await call(url, "action", { action: "attach_pod", ref: "freight:shipment:s1046", payload: { filename: "pod-SHP-1046.png" } }, { email: "bob@acme.test" });
    expect(slot.status).toBe(200);
    expect(slot.body.result).toMatchObject({ $upload: { name: "pod-SHP-1046.png", params: { content_type: "image/png" } }, shipment: "freight:shipment:s1046" });

    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 250, 0, 7]);
    const up = await call(
      url,
      "receive_upload",
      { ref: "freight:shipment:s1046", name: "pod-SHP-1046.png", content_type: "image/png", bytes_base64: Buffer.from(bytes).toString("base64"), params: { content_type: "image/png" } },
      { email: "bob@acme.test" },
    );
    expect(up.status).toBe(200);
    const doc = up.body.result as { document: string; shipment: string; size: number; filename: string };
    expect(doc).toMatchObject({ shipment: "freight:shipment:s1046", size: bytes.length, filename: "pod-SHP-1046.png" });
    expect(doc.document).toMatch(/^freight:document:d[0-9a-z]{10}$/);

    const got = await call(url, "get", { ref: doc.document, full: false });
    expect(got.body.result).toMatchObject({ shipment: "freight:shipment:s1046", uploaded_by: "Dispatch helper for bob@acme.test", content: { $file: { name: "pod-SHP-1046.png", content_type: "image/png" } } });
    const shipment = await call(url, "get", { ref: "freight:shipment:s1046", full: false });
    expect(shipment.body.result!.documents).toEqual([doc.document]);

    const streamed = await rawCall(url, "stream_file", { ref: doc.document }, { email: "bob@acme.test" });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("content-type")).toBe("image/png");
    expect(decodeURIComponent(streamed.headers.get("realmgate-filename") ?? "")).toBe("pod-SHP-1046.png");
    expect(new Uint8Array(await streamed.arrayBuffer())).toEqual(bytes);
  });

  it("streams the seeded proof of delivery as a PDF", async () => {
    const res = await rawCall(url, "stream_file", { ref: "freight:document:d1040" });
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const text = Buffer.from(await res.arrayBuffer()).toString("latin1");
    expect(text.startsWith("%PDF-1.4")).toBe(true);
    expect(text.trimEnd().endsWith("%%EOF")).toBe(true);
  });
});

describe("scope and signatures", () => {
  it("narrows list and search to the scope's refs and what their shipments contain", async () => {
    const scope = { refs: ["freight:shipment:s1045", "freight:carrier:nordline"] };
    const shipments = await call(url, "list", { kind: "freight.shipment", filter: {}, cursor: null, limit: 50 }, { scope });
    expect(labels(shipments)).toEqual(["SHP-1045"]);
    const exceptions = await call(url, "list", { kind: "freight.exception", filter: {}, cursor: null, limit: 50 }, { scope });
    expect(items(exceptions).map((i) => i.ref)).toEqual(["freight:exception:e2"]);
    const everything = await call(url, "search", { kind: null, query: "", filter: {}, cursor: null, limit: 50 }, { scope });
    expect(items(everything).map((i) => i.ref)).toEqual(["freight:shipment:s1045", "freight:carrier:nordline", "freight:exception:e2"]);
  });

  it("resolves selectors within the scope only", async () => {
    const scope = { refs: ["freight:shipment:s1042"] };
    const inside = await call(url, "resolve_selector", { kind: "freight.shipment", selector: { status: "delayed" } }, { scope });
    expect(inside.body.result).toEqual({ ref: "freight:shipment:s1042" });
    const outside = await call(url, "resolve_selector", { kind: "freight.shipment", selector: { reference: "SHP-1045" } }, { scope });
    // Only what the scope shows is suggested: SHP-1045 itself stays unknown, SHP-1042 is one edit away.
    expect(outside.body.error).toMatchObject({ code: "not_found", details: { did_you_mean: ["SHP-1042"] } });
  });

  it("refuses an unsigned call and a call signed with another secret", async () => {
    const unsigned = await fetch(`${url}/ops/list`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ context: {}, input: {} }) });
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as { error: { code: string } }).error.code).toBe("bad_signature");
    const forged = await call(url, "list", { kind: "freight.shipment", filter: {}, cursor: null, limit: 5 }, { registration: { ...TEST_REGISTRATION, secret: "rgs_not_the_secret" } });
    expect(forged.status).toBe(401);
  });

  it("checks every answer above against the protocol's schemas (and that check can fail)", () => {
    expect(() => checkAnswer("list", 200, { manifest_version: "1", result: { items: [{ ref: 1 }], next: null } })).toThrow(/results\/list/);
    expect(() => checkAnswer("get", 404, { manifest_version: "1", error: { code: "gone", message: "x" } })).toThrow(/answer\.json/);
  });

  it("serves the manifest unsigned", async () => {
    const res = await fetch(`${url}/manifest`);
    expect(((await res.json()) as { manifest: { namespace: string } }).manifest.namespace).toBe("freight");
  });
});
