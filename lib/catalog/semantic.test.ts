import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { embeddingCache } from "@/db/schema";
import { startFakeEmbeddings, type FakeEmbeddings } from "@/dev/fake-embeddings";
import { newId } from "@/lib/ids";
import { compileSpec, type CompiledSpec } from "@/lib/realms/openapi/compile";
import { buildRealm, type BuiltRealm } from "@/lib/realms/openapi/manifest";
import { loadSpec } from "@/lib/realms/openapi/spec";
import { manifest as docs } from "@/lib/realms/docs/manifest";
import { embeddingsEndpoint, type EmbeddingsConfig } from "./embeddings";
import { capabilityDocs, rankCapabilities, type Searchable } from "./search";
import { embeddingText, embeddingWritesSettled, searchCapabilitiesByMode, type ModeSearchOptions } from "./semantic";
import { dbVectorStore, memoryVectorStore } from "./vector-store";

let spec: CompiledSpec;
let fake: FakeEmbeddings;
const DIMS = 128;

/** The helpdesk fixture as an imported realm; every call is a new realm version (a new manifest identity). */
const newDesk = (): BuiltRealm =>
  buildRealm(
    { id: "oas_test", tenantId: "tnt_test", namespace: "desk", title: "Helpdesk", description: "", keywords: ["support"], baseUrl: "https://helpdesk.example.com", version: 1 },
    spec.operations.map((o) => ({ action: o.card.action, card: o.card, contract: o.contract })),
    new Map(),
  );

/** A model name of its own, so tests never share cached vectors. */
const config = (extra: Partial<EmbeddingsConfig> = {}): EmbeddingsConfig => ({ endpoint: embeddingsEndpoint(fake.url), model: newId("req"), ...extra });

/** Searches wait long by default (a busy machine is slow); the tests about time set their own wait. */
const run = (manifests: Searchable[], query: string, opts: ModeSearchOptions) => searchCapabilitiesByMode(manifests, query, { store: memoryVectorStore(), waitMs: 10_000, ...opts });
const op = (name: string) => `object.action.${name}`;

beforeAll(async () => {
  spec = compileSpec(await loadSpec(fs.readFileSync(path.join(process.cwd(), "lib/realms/openapi/fixtures/helpdesk.yaml"), "utf8")));
  fake = await startFakeEmbeddings({ dims: DIMS });
});
afterAll(async () => {
  await embeddingWritesSettled();
  await fake.close();
});
/** Hold the fake's answers until the test lets them go (or ends): a slow endpoint without a sleep. */
let release = () => {};
const holdAnswers = () => void (fake.faults.hold = new Promise<void>((r) => (release = r)));
beforeEach(() => {
  Object.assign(fake.faults, { delayMs: 0, hold: null, status: null, minInputs: 0 });
});
afterEach(() => release());

describe("the mode that ran", () => {
  it.each([
    ["lexical", null, "lexical", undefined],
    ["auto", null, "lexical", undefined],
    ["semantic", null, "lexical", "no embeddings endpoint is configured (REALMGATE_EMBEDDINGS_URL); lexical search ran instead"],
    ["hybrid", null, "lexical", "no embeddings endpoint is configured (REALMGATE_EMBEDDINGS_URL); lexical search ran instead"],
    ["lexical", "fake", "lexical", undefined],
    ["semantic", "fake", "semantic", undefined],
    ["hybrid", "fake", "hybrid", undefined],
    ["auto", "fake", "hybrid", undefined],
  ] as const)("asked %s with endpoint %s: %s ran", async (asked, endpoint, ran, reason) => {
    const before = fake.calls.length;
    const answer = await run([newDesk()], "delete a ticket", { mode: asked, embeddings: endpoint ? config() : null });
    expect(answer.mode_ran).toBe(ran);
    expect(answer.fallback).toEqual(reason ? { asked, reason } : undefined);
    expect(answer.matches[0]!.operation).toBe(op("tickets/delete"));
    // Lexical search never calls the endpoint.
    if (ran === "lexical") expect(fake.calls.length).toBe(before);
  });
});

describe("search by meaning", () => {
  it("finds by meaning what words alone miss: hybrid puts the right operation first where lexical does not", async () => {
    const desk = newDesk();
    const embeddings = config();
    // "discard" is in the lexicon (→ delete): every mode finds it.
    for (const mode of ["semantic", "hybrid"] as const) {
      const answer = await run([desk], "discard a ticket", { mode, embeddings });
      expect(answer.mode_ran).toBe(mode);
      expect(answer.matches[0]).toMatchObject({ operation: op("tickets/delete"), endpoint: "DELETE /tickets/{ticket_id}", score: 1 });
    }
    // No word in common at all: lexical only offers the catalog's starting points (flagged low), hybrid finds the download.
    const lexical = rankCapabilities([desk], "grab the enclosure of a case");
    expect(lexical).toMatchObject({ confidence: "low", reason: expect.stringMatching(/^Nothing/) });
    expect(lexical.matches.every((m) => m.score === 0)).toBe(true);
    const hybrid = await run([desk], "grab the enclosure of a case", { mode: "hybrid", embeddings });
    expect(hybrid.matches[0]!.endpoint).toBe("GET /tickets/{ticket_id}/attachments/{attachment_id}/content");
  });

  it("keeps confidence and alternatives working in every mode", async () => {
    const desk = newDesk();
    const embeddings = config();
    for (const mode of ["semantic", "hybrid"] as const) {
      const sure = await run([desk], "discard a ticket", { mode, embeddings });
      expect(sure.confidence, mode).toBe("high");
      expect(sure.alternatives, mode).toBeUndefined();

      // A toss-up: replace, get and update are all "ticket fields".
      const tossUp = await run([desk], "ticket fields", { mode, embeddings });
      expect(tossUp, mode).toMatchObject({ confidence: "low", reason: expect.stringMatching(/almost equally/) });
      // The first is one of the three; the other two are alternatives, each saying how its method differs.
      const top = tossUp.matches[0]!;
      const three = [op("tickets/replace"), op("tickets/get"), op("tickets/update")];
      expect(three, mode).toContain(top.operation);
      const method = (o: string) => ({ [op("tickets/replace")]: "PUT", [op("tickets/get")]: "GET", [op("tickets/update")]: "PATCH" })[o];
      for (const other of three.filter((o) => o !== top.operation)) {
        expect(tossUp.alternatives, mode).toContainEqual(expect.objectContaining({ operation: other, differs: expect.stringContaining(`${method(other)}, not ${method(top.operation)}`) }));
      }

      // Meaning always finds a nearest capability; sharing none of the request's words, it is flagged.
      const far = await run([desk], "zzyzx qwerty", { mode, embeddings });
      expect(far, mode).toMatchObject({ confidence: "low", reason: expect.stringMatching(/covers only 0 of the 2 words.*found by meaning/) });
    }
  });

  it("applies the caller's filter before ranking, in every mode", async () => {
    const desk = newDesk();
    const embeddings = config();
    const filter = (m: { operation: string }) => m.operation !== op("tickets/delete");
    for (const mode of ["semantic", "hybrid"] as const) {
      const answer = await run([desk], "discard a ticket", { mode, embeddings, filter });
      expect(answer.matches.map((m) => m.operation)).not.toContain(op("tickets/delete"));
      expect(answer.matches[0]!.score).toBe(1);
    }
  });

  it("searches several realms at once and says which realm an alternative is in", async () => {
    const answer = await run([newDesk(), docs], "respond to a remark", { mode: "semantic", embeddings: config() });
    expect(answer.matches[0]).toMatchObject({ namespace: "docs", operation: op("reply_comment") });
    expect(answer.matches.map((m) => m.namespace)).toContain("desk");
  });
});

describe("falling back to lexical", () => {
  const lexicalMatches = (m: Searchable, q: string) => rankCapabilities([m], q, { limit: 10 }).matches;

  it.each([
    ["the endpoint answers 500", () => void (fake.faults.status = 500), /^the embeddings endpoint answered HTTP 500; lexical search ran instead$/],
    ["the endpoint is slow", holdAnswers, /^the embeddings endpoint timed out \(no answer within 250 ms\); lexical search ran instead$/],
  ])("when %s, for the request's own vector", async (_name, fault, reason) => {
    const desk = newDesk();
    const embeddings = config();
    await run([desk], "warm the documents", { mode: "semantic", embeddings });
    fault();
    for (const mode of ["semantic", "hybrid", "auto"] as const) {
      const answer = await run([desk], "delete a ticket", { mode, embeddings, waitMs: 250 });
      expect(answer.mode_ran).toBe("lexical");
      expect(answer.fallback).toEqual({ asked: mode, reason: expect.stringMatching(reason) });
      expect(answer.matches).toEqual(lexicalMatches(desk, "delete a ticket"));
    }
  });

  it("when the endpoint is down", async () => {
    const gone = await startFakeEmbeddings();
    const embeddings = { endpoint: embeddingsEndpoint(gone.url), model: newId("req") };
    await gone.close();
    const answer = await run([newDesk()], "delete a ticket", { mode: "hybrid", embeddings });
    expect(answer).toMatchObject({ mode_ran: "lexical", fallback: { asked: "hybrid", reason: expect.stringMatching(/^the embeddings endpoint could not be reached/) } });
    expect(answer.matches[0]!.operation).toBe(op("tickets/delete"));
  });

  it("when embedding the capability descriptions fails, and recovers on the next search", async () => {
    const desk = newDesk();
    const embeddings = config();
    Object.assign(fake.faults, { status: 503, minInputs: 2 });
    const failed = await run([desk], "discard a ticket", { mode: "semantic", embeddings });
    expect(failed).toMatchObject({
      mode_ran: "lexical",
      fallback: { asked: "semantic", reason: "embedding the capability descriptions failed: the embeddings endpoint answered HTTP 503; lexical search ran instead" },
    });
    fake.faults.status = null;
    const recovered = await run([desk], "discard a ticket", { mode: "semantic", embeddings });
    expect(recovered.mode_ran).toBe("semantic");
    expect(recovered.fallback).toBeUndefined();
  });

  it("when the descriptions are still being embedded; a later search waits for the same job, then uses them", async () => {
    const desk = newDesk();
    const embeddings = config();
    const store = memoryVectorStore();
    const start = fake.calls.length;
    fake.faults.minInputs = 2;
    holdAnswers();
    const early = await searchCapabilitiesByMode([desk], "discard a ticket", { mode: "hybrid", embeddings, store, waitMs: 50 });
    expect(early).toMatchObject({
      mode_ran: "lexical",
      fallback: { asked: "hybrid", reason: expect.stringMatching(/^the capability descriptions are still being embedded \(0 of \d+ done\); try again shortly/) },
    });
    release();
    const patient = await searchCapabilitiesByMode([desk], "discard a ticket", { mode: "hybrid", embeddings, store, waitMs: 10_000 });
    expect(patient.mode_ran).toBe("hybrid");
    expect(fake.calls.slice(start).filter((c) => c.inputs > 1)).toHaveLength(1);
    const before = fake.calls.length;
    expect((await searchCapabilitiesByMode([desk], "discard a ticket", { mode: "hybrid", embeddings, store, waitMs: 10_000 })).mode_ran).toBe("hybrid");
    expect(fake.calls.length - before).toBe(1);
  });
});

describe("document embeddings", () => {
  // These are about what is embedded and kept, not about time: a busy machine gets all the time it needs.
  const waitMs = 20_000;

  // Counts exact HTTP calls: the cache read is given all the time it needs before embedding would start anyway
  // (cacheHeadStartMs), so a loaded machine cannot turn a cache hit into a second batch; and the fake endpoint
  // never drops a kept-alive connection under the client (dev/fake-embeddings.ts), which once failed a first call.
  it("are computed once, in batches, stored in the cache table, and reused — even by a new realm version", async () => {
    const db = await getDb();
    const embeddings = config();
    const store = dbVectorStore();
    const desk = newDesk();
    const before = fake.calls.length;
    expect((await searchCapabilitiesByMode([desk], "discard a ticket", { mode: "semantic", embeddings, store, waitMs, cacheHeadStartMs: waitMs })).mode_ran).toBe("semantic");
    const first = fake.calls.slice(before);
    // One call for the request, one batch for the helpdesk's operations.
    expect(first.map((c) => c.inputs).sort((a, b) => a - b)).toEqual([1, desk.manifest.actions.length]);

    const again = fake.calls.length;
    expect((await searchCapabilitiesByMode([desk], "remove a ticket", { mode: "hybrid", embeddings, store, waitMs, cacheHeadStartMs: waitMs })).mode_ran).toBe("hybrid");
    expect(fake.calls.slice(again)).toEqual([{ model: embeddings.model, inputs: 1, authorization: null }]);

    await embeddingWritesSettled();
    const [row] = await db
      .select({ n: sql<number>`count(*)::int`, dims: sql<number>`min(${embeddingCache.dims})` })
      .from(embeddingCache)
      .where(eq(embeddingCache.model, embeddings.model));
    expect(row).toEqual({ n: desk.manifest.actions.length, dims: DIMS });

    // A re-import builds a new manifest with the same operation texts: only the request is embedded.
    const reimported = newDesk();
    const third = fake.calls.length;
    const answer = await searchCapabilitiesByMode([reimported], "discard a ticket", { mode: "semantic", embeddings, store, waitMs, cacheHeadStartMs: waitMs });
    expect(answer.matches[0]!.operation).toBe(op("tickets/delete"));
    expect(fake.calls.slice(third).map((c) => c.inputs)).toEqual([1]);
  });

  it("that are stale (the model behind the name now gives vectors of another size) are embedded again and replaced", async () => {
    const db = await getDb();
    const embeddings = config();
    const store = dbVectorStore();
    const desk = newDesk();
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    await store.save(
      embeddings.model,
      capabilityDocs(desk).map((d) => ({ hash: sha(embeddingText(d)), vector: Float32Array.from([1, 0, 0]) })),
    );
    const answer = await searchCapabilitiesByMode([desk], "discard a ticket", { mode: "semantic", embeddings, store, waitMs });
    expect(answer.mode_ran).toBe("semantic");
    expect(answer.matches[0]!.operation).toBe(op("tickets/delete"));
    await embeddingWritesSettled();
    const sizes = await db
      .selectDistinct({ dims: embeddingCache.dims })
      .from(embeddingCache)
      .where(eq(embeddingCache.model, embeddings.model));
    expect(sizes).toEqual([{ dims: DIMS }]);
  });

  it("are asked for with the API key as a bearer token", async () => {
    const locked = await startFakeEmbeddings({ dims: DIMS, apiKey: "sk-fake-key" });
    try {
      const desk = newDesk();
      const right = { endpoint: embeddingsEndpoint(locked.url), model: newId("req"), apiKey: "sk-fake-key" };
      const answer = await run([desk], "discard a ticket", { mode: "hybrid", embeddings: right, waitMs });
      expect(answer.mode_ran).toBe("hybrid");
      expect(locked.calls.length).toBeGreaterThan(0);
      expect(locked.calls.every((c) => c.authorization === "Bearer sk-fake-key")).toBe(true);

      const wrong = await run([newDesk()], "discard a ticket", { mode: "hybrid", embeddings: { ...right, apiKey: "sk-other" } });
      expect(wrong.fallback).toEqual({ asked: "hybrid", reason: expect.stringMatching(/HTTP 401/) });
      expect(JSON.stringify(wrong)).not.toContain("sk-other");
    } finally {
      await locked.close();
    }
  });
});
