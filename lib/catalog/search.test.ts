import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "@/lib/realms/openapi/compile";
import { buildRealm, type BuiltRealm } from "@/lib/realms/openapi/manifest";
import { loadSpec } from "@/lib/realms/openapi/spec";
import { leadTerm, processTerm, queryTerms, rankCapabilities, searchCapabilities, tokenize } from "./search";

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
  it("splits identifiers and applies stemming, synonyms and expansions to documents and queries alike", () => {
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

  it("flags a toss-up as low confidence and says how the near alternatives differ (update vs replace)", () => {
    const answer = rankCapabilities([desk], "ticket fields");
    expect(answer).toMatchObject({ confidence: "low", reason: expect.stringMatching(/almost equally/) });
    expect(answer.matches[0]).toMatchObject({ operation: "object.action.tickets/replace", endpoint: "PUT /tickets/{ticket_id}" });
    expect(answer.alternatives).toContainEqual(
      expect.objectContaining({ operation: "object.action.tickets/update", endpoint: "PATCH /tickets/{ticket_id}", differs: "PATCH, not PUT; does not require title, body, status, priority" }),
    );
    expect(answer.alternatives).toContainEqual(expect.objectContaining({ operation: "object.action.tickets/get", differs: expect.stringContaining("risk read") }));
  });

  it("says so when nothing matches, or when the best match covers few of the words", () => {
    expect(rankCapabilities([desk], "zzyzx qwerty")).toMatchObject({ confidence: "low", matches: [], reason: expect.stringMatching(/Nothing/) });
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
