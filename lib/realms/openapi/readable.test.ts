// What makes an imported service read well: its purpose, labels people can tell apart, what an operation
// returns, notes where the document's prose contradicts the request Realmgate builds, and a truthful credential.
import { describe, expect, it } from "vitest";
import { distinctLabels, type LabelSource } from "./labels";
import { buildRealm, returnsText, worksWith, type OperationRecord, type RealmRecord } from "./manifest";
import { compileSpec } from "./compile";
import { ENCODE_NOTE, headerNotes, parameterNote } from "./notes";
import { MAX_SHAPE_BYTES, responseShape } from "./response-shape";
import { loadSpec } from "./spec";
import { firstSentence } from "./text";

describe("a service's purpose from info.description", () => {
  it("is the first sentence of the first prose paragraph, never a heading", () => {
    expect(firstSentence("## Welcome\n\nThis is a place to put general notes. To get started, select a version.")).toBe("This is a place to put general notes.");
    expect(firstSentence("# Title\n\n---\n\n> **Stripe** lets you [take payments](https://stripe.com) online. More here.")).toBe("Stripe lets you take payments online.");
    expect(firstSentence("The `v1.2` API, e.g. for _pets_. Second sentence.")).toBe("The v1.2 API, e.g. for pets.");
    expect(firstSentence("GitHub's official OpenAPI spec + Octokit extension")).toBe("GitHub's official OpenAPI spec + Octokit extension");
    expect(firstSentence("<p>Manage <b>tickets</b>.</p>")).toBe("Manage tickets.");
  });

  it("is empty when there is no prose, and bounded", () => {
    expect(firstSentence("## Welcome")).toBe("");
    expect(firstSentence("```\ncode only\n```")).toBe("");
    expect(firstSentence(undefined)).toBe("");
    const long = firstSentence(`${"word ".repeat(200)}end.`, 100);
    expect(long.length).toBeLessThanOrEqual(100);
    expect(long.endsWith("…")).toBe(true);
  });
});

describe("labels when summaries collide", () => {
  const ops: LabelSource[] = [
    { action: "movie", label: "Get Details", method: "GET", path: "/movie/{movie_id}" },
    { action: "tv", label: "Get Details", method: "GET", path: "/tv/{tv_id}" },
    { action: "person", label: "Get Details", method: "GET", path: "/person/{person_id}" },
    { action: "season", label: "Get Details", method: "GET", path: "/tv/{tv_id}/season/{season_number}" },
    { action: "movie-images", label: "Get Images", method: "GET", path: "/movie/{movie_id}/images" },
    { action: "tv-images", label: "Get Images", method: "GET", path: "/tv/{tv_id}/images" },
    { action: "search", label: "Search Movies", method: "GET", path: "/search/movie" },
  ];

  it("names each by the resource its path names; a label used once stays", () => {
    const labels = distinctLabels(ops);
    expect(labels.get("movie")).toBe("Get movie details");
    expect(labels.get("tv")).toBe("Get TV details");
    expect(labels.get("person")).toBe("Get person details");
    expect(labels.get("season")).toBe("Get season details");
    expect(labels.get("movie-images")).toBe("Get movie images");
    expect(labels.get("tv-images")).toBe("Get TV images");
    expect(labels.get("search")).toBe("Search Movies");
  });

  it("is deterministic whatever the order, and never leaves two operations with one label", () => {
    const a = distinctLabels(ops);
    const b = distinctLabels([...ops].reverse());
    expect([...b.entries()].sort()).toEqual([...a.entries()].sort());
    const same: LabelSource[] = [
      { action: "a", label: "List", method: "GET", path: "/things" },
      { action: "b", label: "List", method: "POST", path: "/things" },
      { action: "c", label: "Get things list", method: "GET", path: "/x" },
      { action: "d", label: "Get list", method: "GET", path: "/things/list" },
      { action: "e", label: "Get list", method: "GET", path: "/stuff/list" },
    ];
    const out = distinctLabels(same);
    expect(new Set([...out.values()].map((l) => l.toLowerCase())).size).toBe(same.length);
    expect(out.get("a")).toBe("List (GET /things)");
    expect(out.get("d")).toBe("Get things list (GET /things/list)");
  });
});

describe("what an operation returns", () => {
  const doc = {
    components: {
      schemas: {
        Movie: { type: "object", required: ["id"], properties: { id: { type: "integer" }, title: { type: "string" }, genres: { type: "array", items: { $ref: "#/components/schemas/Genre" } }, tagline: { type: "string", nullable: true } } },
        Genre: { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } } },
      },
    },
  };
  const resolve = (ref: string) => ref.slice(2).split("/").reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], doc);

  it("says the first 2xx response's status, media type and top-level shape; arrays their item type", () => {
    const r = responseShape({ "404": {}, "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/Movie" } } } } }, resolve);
    expect(r).toEqual({ status: 200, content_type: "application/json", shape: { type: "object", properties: { id: "integer", title: "string", genres: "object[]", tagline: "string|null" }, required: ["id"] } });
    const list = responseShape({ "200": { content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Genre" } } } } } }, resolve);
    expect(list?.shape).toEqual({ type: "array", items: "object", item_properties: { id: "integer", name: "string" } });
    expect(responseShape({ "204": { description: "gone" } }, resolve)).toEqual({ status: 204, content_type: null, shape: null });
    expect(responseShape({ default: {} }, resolve)).toBeNull();
  });

  it("is bounded in bytes however wide the schema", () => {
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`property_with_a_long_name_${i}`, { type: "string" }]));
    const r = responseShape({ "200": { content: { "application/json": { schema: { type: "object", properties: wide } } } } }, resolve)!;
    expect(JSON.stringify(r.shape).length).toBeLessThanOrEqual(MAX_SHAPE_BYTES);
    expect(r.shape).toMatchObject({ type: "object", more_properties: expect.any(Number) });
    expect(returnsText({ method: "GET", path: "/", params: [], body: null, input_schema: {}, example: {}, accepts: [], returns: r }).length).toBeLessThan(2600);
  });
});

describe("notes where the document's prose contradicts the request Realmgate builds", () => {
  it("flags encoding advice on path and query values, and header instructions", () => {
    expect(parameterNote("Pass a text query to search. This value should be URI encoded.", "query")).toBe(ENCODE_NOTE);
    expect(parameterNote("The user id, percent-encoded.", "path")).toBe(ENCODE_NOTE);
    expect(parameterNote("A text query.", "query")).toBeNull();
    expect(headerNotes("You must set the Content-Type header to application/json. Send your token in the Authorization header.")).toEqual([
      expect.stringMatching(/Realmgate sends the realm's credential/),
      expect.stringMatching(/Content-Type/),
    ]);
    expect(headerNotes("Returns the accepted invitations.")).toEqual([]);
  });
});

describe("the service card's credential", () => {
  it("says what is configured, and warns when the document asks for one and none is", () => {
    expect(worksWith("api.example.com", { type: "header", configured: true }, true)).toBe("api.example.com, called by Realmgate with the owner's API key, sent in a header.");
    expect(worksWith("api.example.com", { type: "bearer", configured: true }, true)).toMatch(/the owner's bearer token/);
    expect(worksWith("api.example.com", { type: "none", configured: false }, true)).toMatch(/no credential.*calls will likely be refused by the service until an owner adds a credential/);
    expect(worksWith("api.example.com", { type: "none", configured: false }, false)).toBe("api.example.com, called by Realmgate with no credential (none is configured).");
    expect(worksWith("api.example.com", undefined, false)).not.toMatch(/owner's/);
  });

  it("is built from the realm's credential and the operations' declared security", async () => {
    const spec = await loadSpec({
      openapi: "3.0.3",
      info: { title: "Keyed", version: "1" },
      components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } } },
      security: [{ key: [] }],
      paths: { "/things": { get: { operationId: "list", summary: "List things", responses: { "200": { description: "ok" } } } } },
    });
    const ops: OperationRecord[] = compileSpec(spec).operations.map((o) => ({ action: o.card.action, card: o.card, contract: o.contract }));
    const record: RealmRecord = { id: "oas_1", tenantId: "tnt_1", namespace: "keyed", title: "Keyed", description: "", keywords: [], baseUrl: "https://keyed.example.com", version: 1 };
    const bare = buildRealm({ ...record, credential: { type: "none", configured: false } }, ops, new Map()).manifest.service_card.works_with;
    expect(bare).toMatch(/likely be refused/);
    const keyed = buildRealm({ ...record, credential: { type: "header", configured: true } }, ops, new Map()).manifest.service_card.works_with;
    expect(keyed).toBe("keyed.example.com, called by Realmgate with the owner's API key, sent in a header.");
  });
});
