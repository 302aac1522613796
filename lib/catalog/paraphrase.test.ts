import { beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "@/lib/realms/openapi/compile";
import { buildRealm, type BuiltRealm } from "@/lib/realms/openapi/manifest";
import { loadSpec } from "@/lib/realms/openapi/spec";
import { lemma, processTerm, queryTerms, rankCapabilities } from "./search";

/** A small service with GitHub-like and TMDB-like operations, imported as an owner would import it. */
const ops: [string, string, string, string][] = [
  ["get", "/user", "Get the authenticated user", "Gets the profile of the signed-in account."],
  ["get", "/repos/{owner}/{repo}/actions/runs/{run_id}/logs", "Download workflow run logs", "Gets a redirect URL to download an archive of log files for a workflow run."],
  ["get", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs", "Download job logs for a workflow run", "Gets a redirect URL to download a plain text file of logs for a workflow job."],
  ["post", "/gists", "Create a gist", "Allows you to add a new gist with one or more files."],
  ["patch", "/gists/{gist_id}", "Update a gist", "Allows you to update a gist's description and to update, delete, or rename gist files."],
  ["delete", "/gists/{gist_id}", "Delete a gist", "Deletes a gist."],
  ["get", "/gists/{gist_id}", "Get a gist", "Gets a specified gist."],
  ["put", "/user/starred/{owner}/{repo}", "Star a repository for the authenticated user", "Stars a repository."],
  ["get", "/search/movie", "Search Movies", "Search for movies."],
  ["get", "/search/person", "Search People", "Search for people."],
  ["get", "/movie/{movie_id}", "Get Details", "Get the primary information about a movie."],
  ["get", "/movie/{movie_id}/credits", "Get Credits", "Get the cast and crew for a movie."],
  ["get", "/person/{person_id}/movie_credits", "Get Movie Credits", "Get the movie credits for a person."],
  ["get", "/movie/top_rated", "Get Top Rated", "Get the top rated movies."],
];

let realm: BuiltRealm;
beforeAll(async () => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [method, path, summary, description] of ops) {
    const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    if (path.startsWith("/search/")) params.push({ name: "query", in: "query", required: true, schema: { type: "string" } });
    (paths[path] ??= {})[method] = { summary, description, parameters: params, responses: { "200": { description: "OK" } } };
  }
  const doc = { openapi: "3.0.3", info: { title: "Mixed service", version: "1" }, paths };
  const spec = compileSpec(await loadSpec(JSON.stringify(doc)));
  realm = buildRealm(
    { id: "oas_mixed", tenantId: "tnt_test", namespace: "mixed", title: "Mixed", description: "", keywords: [], baseUrl: "https://mixed.example.com", version: 1 },
    spec.operations.map((o) => ({ action: o.card.action, card: o.card, contract: o.contract })),
    new Map(),
  );
});

const first = (q: string) => rankCapabilities([realm], q, { limit: 5 }).matches[0]?.endpoint;
const top = (q: string, n: number) => rankCapabilities([realm], q, { limit: n }).matches.map((m) => m.endpoint);

describe("lemmas, not stems", () => {
  it("keeps a participle apart from another word's stem, and plurals with their singular", () => {
    expect(lemma("logged")).toBe("logged");
    expect(processTerm("logged")).not.toBe(processTerm("log"));
    expect(processTerm("logs")).toBe(processTerm("log"));
    expect(processTerm("repositories")).toBe(processTerm("repository"));
  });

  it("answers who the caller is logged in as with the authenticated user, not log downloads", () => {
    expect(queryTerms("who am I logged in as")).not.toContain(processTerm("log"));
    expect(first("who am I logged in as")).toBe("GET /user");
    expect(top("who am I logged in as", 2)).not.toContain("GET /repos/{owner}/{repo}/actions/runs/{run_id}/logs");
  });
});

describe("everyday words for API actions", () => {
  it.each([
    ["make a new gist", "POST /gists"],
    ["change the description of my gist", "PATCH /gists/{gist_id}"],
    ["get rid of a gist", "DELETE /gists/{gist_id}"],
    ["erase that gist", "DELETE /gists/{gist_id}"],
    ["look up a film by its title", "GET /search/movie"],
    ["bookmark this repo", "PUT /user/starred/{owner}/{repo}"],
  ])("%s → %s", (query, endpoint) => {
    expect(first(query)).toBe(endpoint);
  });
});

describe("requests about a particular thing", () => {
  it("put the service's search operation first when the request names something the service holds", () => {
    expect(first("Who directed Inception?")).toMatch(/^GET \/search\//);
    expect(top("What movies has Sofia Coppola made?", 2).some((e) => e === "GET /search/person" || e === "GET /search/movie")).toBe(true);
  });

  it("do not when the capitalized word is the service's own word", () => {
    // "Movies" is one of the service's words, not a name: the top rated list answers it.
    expect(first("list the top rated Movies")).toBe("GET /movie/top_rated");
  });
});

describe("when nothing matches", () => {
  it("offers the catalog's starting points, flagged low, search operations first", () => {
    const answer = rankCapabilities([realm], "zzyzx qwerty", { limit: 4 });
    expect(answer.confidence).toBe("low");
    expect(answer.reason).toMatch(/^Nothing .* starting points/);
    expect(answer.matches).toHaveLength(4);
    expect(answer.matches[0]!.endpoint).toMatch(/^GET \/search\//);
    expect(answer.matches.every((m) => m.score === 0)).toBe(true);
  });

  it("keeps the caller's filter, and answers nothing only when there is nothing to offer", () => {
    const onlyGists = rankCapabilities([realm], "zzyzx qwerty", { filter: (m) => m.endpoint?.includes("/gists") ?? false });
    expect(onlyGists.matches.length).toBeGreaterThan(0);
    expect(onlyGists.matches.every((m) => m.endpoint!.includes("/gists"))).toBe(true);
    expect(rankCapabilities([realm], "zzyzx qwerty", { filter: () => false })).toMatchObject({ matches: [], confidence: "low" });
    expect(rankCapabilities([], "zzyzx qwerty")).toMatchObject({ matches: [], confidence: "low" });
  });
});
