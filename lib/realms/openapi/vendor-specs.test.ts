// Real vendors' documents (fixtures/SOURCES.md): Spotify's official one imports although its policy extension
// names a file it does not ship; TMDB's reads well although its title is "API", its description starts with
// "## Welcome" and ten operations share the summary "Get Details".
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { validatePayload } from "@/lib/tools/payload";
import { runCompileJob } from "./compile-job";
import { compileSpec, type CompiledSpec } from "./compile";
import { buildRealm, type BuiltRealm, type RealmRecord } from "./manifest";
import { ENCODE_NOTE } from "./notes";
import { loadBundledSpec } from "./spec-refs";

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "fixtures", name), "utf8");

function realmOf(compiled: CompiledSpec, ns: string): BuiltRealm {
  const record: RealmRecord = { id: `oas_${ns}`, tenantId: "tnt_v", namespace: ns, title: compiled.title, description: compiled.description, keywords: [], baseUrl: compiled.servers[0]!, version: 1, credential: { type: "none", configured: false } };
  return buildRealm(record, compiled.operations.map((o) => ({ action: o.card.action, card: o.card, contract: o.contract })), new Map());
}

describe("Spotify's official OpenAPI document", () => {
  let compiled: CompiledSpec;
  beforeAll(async () => {
    compiled = compileSpec(await loadBundledSpec(fixture("spotify-official.yml")));
  });

  it("imports: the external ref inside x-spotify-policy is ignored, every operation compiles", async () => {
    const job = await runCompileJob({ spec: fixture("spotify-official.yml"), gzip: true }, "inline");
    expect(job.cards.length).toBeGreaterThan(80);
    expect(job.dropped).toEqual([]);
    expect(compiled.title).toBe("Spotify Web API");
    expect(compiled.description).toBe("You can use Spotify's Web API to discover music and podcasts, manage your Spotify library, control audio playback, and much more.");
    // Every operation's example payload passes its own contract.
    for (const o of compiled.operations) expect(() => validatePayload(o.contract.input_schema, o.contract.example, o.card.action)).not.toThrow();
  });

  it("says what an operation returns and that the service expects a credential", () => {
    const album = compiled.operations.find((o) => o.card.action === "get-an-album")!;
    expect(album.contract.returns).toMatchObject({ status: 200, content_type: "application/json", shape: { type: "object", properties: expect.objectContaining({ id: "string", name: "string", tracks: "object" }) } });
    expect(album.card.auth_declared).toBe(true);
    const realm = realmOf(compiled, "spotify");
    expect(realm.manifest.service_card.works_with).toMatch(/calls will likely be refused by the service until an owner adds a credential/);
    expect(realm.manifest.actions.find((a) => a.name === "get-an-album")!.returns).toMatch(/On success: HTTP 200 application\/json, body of shape \{"type":"object","properties":\{.*"id":"string"/);
  });
});

describe("TMDB's OpenAPI document", () => {
  let compiled: CompiledSpec;
  let realm: BuiltRealm;
  beforeAll(async () => {
    compiled = compileSpec(await loadBundledSpec(fixture("tmdb.json")));
    realm = realmOf(compiled, "tmdb");
  });

  it("gives a purpose that is a sentence, not its heading", () => {
    expect(compiled.title).toBe("API");
    expect(compiled.description).toBe("This is a place to put general notes and extra information, for internal use.");
    expect(realm.manifest.service_card.purpose).not.toMatch(/#/);
  });

  it("labels the ten 'Get Details' operations by what they get, each label once", () => {
    const labels = realm.manifest.actions.map((a) => a.label);
    expect(labels).not.toContain("Get Details");
    expect(labels).toEqual(expect.arrayContaining(["Get movie details", "Get TV details", "Get person details", "Get season details", "Get episode details", "Get collection details"]));
    expect(new Set(labels.map((l) => l.toLowerCase())).size).toBe(labels.length);
    const byAction = new Map(realm.manifest.actions.map((a) => [a.name, a.label]));
    expect(realm.manifest.service_card.operation_labels["object.action.GET_movie-movie_id"]).toBe(byAction.get("GET_movie-movie_id"));
  });

  it("tells the agent to pass the search query plain, and what a movie looks like", () => {
    const search = realm.manifest.actions.find((a) => a.name === "GET_search-movie")!;
    const query = (search.payload_schema.properties as Record<string, { description?: string }>).query!;
    expect(query.description).toMatch(new RegExp(`^${ENCODE_NOTE.replace(/[.]/g, "\\.")}`));
    const movie = compiled.operations.find((o) => o.card.path === "/movie/{movie_id}")!;
    expect(movie.contract.returns?.shape).toMatchObject({ type: "object", properties: expect.objectContaining({ id: "integer", title: "string" }) });
    // The document defines an api_key scheme: without a credential the card warns.
    expect(realm.manifest.service_card.works_with).toMatch(/likely be refused/);
  });
});
