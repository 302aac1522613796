import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "@/lib/realms/openapi/compile";
import { buildRealm, type BuiltRealm } from "@/lib/realms/openapi/manifest";
import { loadSpec } from "@/lib/realms/openapi/spec";
import type { RealmManifest } from "@/lib/realms/contract";
import { vocabularySize } from "./bm25";
import { indexCache, lexicalCacheStats, leadTerm, processTerm, queryTerms, rankCapabilities, searchCapabilities, tokenize } from "./search";

let desk: BuiltRealm;
beforeAll(async () => {
  const spec = compileSpec(await loadSpec(fs.readFileSync(path.join(process.cwd(), "lib/realms/openapi/fixtures/helpdesk.yaml"), "utf8")));
  desk = buildRealm(
    { id: "oas_test", tenantId: "tnt_test", namespace: "desk", title: "Helpdesk", description: "", keywords: ["support"], baseUrl: "https://helpdesk.example.com", version: 1 },
    spec.operations.map((o) => ({ action: o.card.action, card: o.card, contract: o.contract })),
    new Map(),
  );
});

describe("terms", () => {
  it("splits identifiers and applies lemmas, the lexicon and expansions to documents and queries alike", () => {
    expect(tokenize("issues/create-comment replyComment")).toEqual(["issues", "create", "comment", "reply", "Comment"]);
    expect(processTerm("Remove")).toBe(processTerm("delete"));
    expect(processTerm("repos")).toBe(processTerm("repository"));
    expect(processTerm("people")).toBe(processTerm("user"));
    expect(processTerm("my")).toBe(processTerm("authenticated"));
    expect(processTerm("PR")).toEqual(["pull", "request"]);
    expect(processTerm("the")).toBeNull();
    expect(queryTerms("remove the PR")).toEqual([processTerm("delete"), "pull", "request"]);
    expect(leadTerm("Star a gist")).toBe("star");
  });
});

describe("capability search over imported operation cards", () => {
  it("finds operations by intent and shows their endpoint", () => {
    const [top] = searchCapabilities([desk], "look up a person by email", { limit: 3 });
    expect(top).toMatchObject({ namespace: "desk", operation: "object.action.GET/search/person", endpoint: "GET /search/person", score: 1 });
    expect(searchCapabilities([desk], "remove a ticket for good", { limit: 1 })[0]!.operation).toBe("object.action.tickets/delete");
  });

  it("is sure when one operation clearly fits", () => {
    const answer = rankCapabilities([desk], "download an attachment of a ticket");
    expect(answer.confidence).toBe("high");
    expect(answer.matches[0]!.endpoint).toBe("GET /tickets/{ticket_id}/attachments/{attachment_id}/content");
    expect(answer.alternatives).toBeUndefined();
  });

  it("flags a toss-up as low confidence and says how the near alternatives differ (get vs replace vs update)", () => {
    const answer = rankCapabilities([desk], "ticket fields");
    expect(answer).toMatchObject({ confidence: "low", reason: expect.stringMatching(/almost equally/) });
    // "One ticket with its fields" (get) and the two writes of a ticket's fields match almost equally.
    expect(answer.matches[0]).toMatchObject({ operation: "object.action.tickets/get", endpoint: "GET /tickets/{ticket_id}" });
    expect(answer.alternatives).toContainEqual(
      expect.objectContaining({ operation: "object.action.tickets/replace", endpoint: "PUT /tickets/{ticket_id}", differs: "PUT, not GET; also requires title, body, status, priority; risk write" }),
    );
    expect(answer.alternatives).toContainEqual(expect.objectContaining({ operation: "object.action.tickets/update", differs: "PATCH, not GET; risk write" }));
  });

  it("says so when nothing matches, or when the best match covers few of the words", () => {
    expect(rankCapabilities([desk], "zzyzx qwerty")).toMatchObject({ confidence: "low", reason: expect.stringMatching(/Nothing/) });
    expect(rankCapabilities([desk], "ticket invoices payroll spreadsheet export").confidence).toBe("low");
  });

  it("applies a caller filter before ranking and confidence", () => {
    const answer = rankCapabilities([desk], "delete a ticket", { filter: (m) => !m.operation.endsWith("tickets/delete") });
    expect(answer.matches.map((m) => m.operation)).not.toContain("object.action.tickets/delete");
    expect(answer.matches[0]!.score).toBe(1);
  });
});

describe("words that are also Object.prototype's names", () => {
  const words = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", "prototype"];

  it.each(words)("%s is an ordinary query word", (w) => {
    for (const variant of [w, w.toLowerCase()]) {
      const p = processTerm(variant);
      expect(p === null || typeof p === "string" || (Array.isArray(p) && p.every((x) => typeof x === "string"))).toBe(true);
      expect(queryTerms(`${variant} a ticket`).every((x) => typeof x === "string")).toBe(true);
      expect(rankCapabilities([desk], variant).matches).toEqual(expect.any(Array));
    }
  });

  it("an imported operation whose summary says `constructor` is indexed and found, and search across realms keeps working", async () => {
    const spec = compileSpec(
      await loadSpec({
        openapi: "3.0.3",
        info: { title: "Oddities", version: "1" },
        paths: {
          "/things": {
            get: { operationId: "constructor", summary: "constructor toString __proto__ hasOwnProperty valueOf", responses: { "200": { description: "ok" } } },
            post: { operationId: "make", summary: "Build a constructor kit", responses: { "201": { description: "ok" } } },
          },
        },
      }),
    );
    const odd = buildRealm(
      { id: "oas_odd", tenantId: "tnt_test", namespace: "odd", title: "Oddities", description: "constructor", keywords: ["constructor", "__proto__"], baseUrl: "https://odd.example.com", version: 1 },
      spec.operations.map((o) => ({ action: o.card.action, card: o.card, contract: o.contract })),
      new Map(),
    );
    const both = [desk, odd];
    expect(searchCapabilities(both, "remove a ticket for good", { limit: 1 })[0]!.operation).toBe("object.action.tickets/delete");
    const found = searchCapabilities(both, "constructor", { limit: 5 }).map((m) => m.operation);
    expect(found).toContain("object.action.constructor");
    expect(found).toContain("object.action.make");
    expect(rankCapabilities(both, "toString __proto__").matches).toEqual(expect.any(Array));
  });
});

describe("the index cache (one index per realm version)", () => {
  /** An imported realm of `tenant`, namespace `svc`, whose operations are the given (operationId, summary) pairs. */
  async function svc(tenant: string, version: number, ops: [string, string][]): Promise<BuiltRealm> {
    const spec = compileSpec(
      await loadSpec({
        openapi: "3.0.3",
        info: { title: "Service", version: String(version) },
        paths: Object.fromEntries(ops.map(([id, summary]) => [`/${id}`, { post: { operationId: id, summary, responses: { "200": { description: "ok" } } } }])),
      }),
    );
    return buildRealm(
      { id: `oas_${tenant}`, tenantId: tenant, namespace: "svc", title: "Service", description: "", keywords: [], baseUrl: "https://svc.example.com", version },
      spec.operations.map((o) => ({ action: o.card.action, card: o.card, contract: o.contract })),
      new Map(),
    );
  }
  const ops = (r: BuiltRealm) => new Set(r.capabilityDocs.map((d) => d.operation));
  const found = (r: BuiltRealm, q: string) => searchCapabilities([desk, r], q, { limit: 20 }).filter((m) => m.namespace === "svc").map((m) => m.operation);

  it("two tenants' realms of the same namespace never answer for each other, whichever is searched first", async () => {
    const a = await svc("tnt_a", 1, [["refund", "Refund a card charge"], ["charges", "List card charges"]]);
    const b = await svc("tnt_b", 1, [["payroll", "Run the payroll for employees"], ["void", "Void a customer invoice"]]);
    for (let round = 0; round < 2; round++) {
      for (const q of ["refund a card charge", "run the payroll", "void an invoice", "charges"]) {
        const fromA = found(a, q);
        const fromB = found(b, q);
        expect(fromA.every((op) => ops(a).has(op))).toBe(true);
        expect(fromB.every((op) => ops(b).has(op))).toBe(true);
        // The same answer with a filter (checked against candidates, never by rebuilding).
        const filtered = rankCapabilities([b], q, { filter: (m) => m.operation !== "object.action.void" }).matches.map((m) => m.operation);
        expect(filtered.every((op) => ops(b).has(op) && op !== "object.action.void")).toBe(true);
      }
    }
    expect(found(a, "refund a card charge")[0]).toBe("object.action.refund");
    expect(found(b, "refund a card charge")).not.toContain("object.action.refund");
    expect(found(b, "run the payroll")[0]).toBe("object.action.payroll");
    expect(found(a, "run the payroll")).not.toContain("object.action.payroll");
  });

  it("a realm's new version is indexed afresh; searching an unchanged version builds nothing", async () => {
    const v1 = await svc("tnt_c", 1, [["refund", "Refund a card charge"]]);
    expect(found(v1, "refund a card charge")).toEqual(["object.action.refund"]);
    const builds = lexicalCacheStats().builds;
    found(v1, "refund a card charge");
    expect(lexicalCacheStats().builds).toBe(builds);
    // Re-imported: the refund is gone, a capture came.
    const v2 = await svc("tnt_c", 2, [["capture", "Capture an authorized card charge"]]);
    expect(found(v2, "refund a card charge")).not.toContain("object.action.refund");
    expect(found(v2, "capture a card charge")).toEqual(["object.action.capture"]);
    expect(lexicalCacheStats().builds).toBe(builds + 1);
  });

  it("a native realm's changed manifest is indexed afresh", () => {
    const m = desk.manifest;
    const changed: RealmManifest = structuredClone(m);
    changed.service_card.operation_labels["object.schema"] = "Browse the helpdesk's zebra catalog";
    expect(searchCapabilities([m], "zebra catalog")).toEqual([]);
    expect(searchCapabilities([changed], "zebra catalog")[0]).toMatchObject({ namespace: "desk", operation: "object.schema" });
    expect(searchCapabilities([m], "zebra catalog")).toEqual([]);
  });

  it("holds at most its budget of documents, never evicting the realms of the search under way", async () => {
    const saved = indexCache.maxDocs;
    try {
      const realms = await Promise.all([1, 2, 3].map((i) => svc(`tnt_e${i}`, 1, [[`thing${i}`, `Frobnicate the quux number ${i}`], ["other", "Something else"]])));
      indexCache.maxDocs = 0;
      searchCapabilities([desk], "ticket");
      const deskWords = vocabularySize();
      indexCache.maxDocs = 2;
      for (const r of realms) expect(searchCapabilities([r], "frobnicate the quux")[0]?.operation).toMatch(/^object\.action\.thing/);
      expect(lexicalCacheStats().docs).toBeLessThanOrEqual(2);
      // A search over more than the budget still sees every realm it was given.
      expect(searchCapabilities(realms, "frobnicate the quux", { limit: 10 }).map((m) => m.operation).sort()).toEqual(["object.action.thing1", "object.action.thing2", "object.action.thing3"]);
      indexCache.maxDocs = 0;
      searchCapabilities([desk], "ticket");
      // Evicted realms' words leave the vocabulary used for prefix and fuzzy matching.
      expect(vocabularySize()).toBe(deskWords);
      expect(searchCapabilities([realms[0]!], "frobnicate the quux")[0]?.operation).toBe("object.action.thing1");
    } finally {
      indexCache.maxDocs = saved;
    }
  });
});
