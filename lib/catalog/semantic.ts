// Capability search by meaning. Semantic ranking embeds the request (one bounded call to the configured
// OpenAI-compatible endpoint) and orders capabilities by cosine similarity to their embedded texts; hybrid
// fuses the lexical and semantic lists by reciprocal rank. Capability texts are embedded lazily — the first
// time a realm is searched by meaning — in batches, cached in the database by (model, text hash) and in
// memory per manifest, as the lexical index is. Whatever mode was asked, the answer names the mode that ran,
// and falls back to lexical, saying why, when embeddings are not configured or cannot be had in time.
//
// Similarity is a scan over the candidates' vectors in memory (about 10 ms for 10,000 operations × 1,536
// dimensions). With pgvector, `similarities` would become one `ORDER BY vector <=> $query` query over the same
// cache table (plus the candidates' average similarity, for `rel`); nothing else here would change.
import { createHash } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { EMBED_BATCH, EmbeddingsFailure, MAX_EMBED_CHARS, embed, embeddingsConfig, type EmbeddingsConfig } from "./embeddings";
import {
  ANSWER_DEPTH,
  answerFrom,
  fallbackAnswer,
  capabilityDocs,
  lexicalHits,
  manifestOf,
  rankCapabilities,
  searchKey,
  toMatch,
  type CapabilityAnswer,
  type CapabilityDoc,
  type CapabilityFilter,
  type RankedHit,
  type RankingMode,
  type Searchable,
} from "./search";
import { dbVectorStore, type StoredVector, type VectorStore } from "./vector-store";

export type SearchMode = RankingMode | "auto";

export type ModeAnswer = CapabilityAnswer & { mode_ran: RankingMode; fallback?: { asked: SearchMode; reason: string } };

/** How long a search waits for embeddings: the request's own, and the capability texts' on first use. */
export const EMBEDDINGS_WAIT_MS = 3000;
/** One batch of capability texts (embedding goes on after a search that stopped waiting has answered). */
const BATCH_TIMEOUT_MS = 30_000;
/**
 * How long embedding capability texts waits for the cache read before it starts asking the endpoint. Under
 * the limit a search waits (EMBEDDINGS_WAIT_MS), so a read stuck behind an open transaction on single-connection
 * PGlite cannot hold a search past it; generous, so a loaded machine still reads the cache rather than re-embedding.
 */
const CACHE_HEADSTART_MS = 2000;
/** Reciprocal rank fusion: the customary constant, and how deep into each list it looks. */
export const RRF_K = 60;
export const FUSION_DEPTH = 100;

/** What is embedded for a capability: what it does, in its catalog's words. */
export function embeddingText(d: CapabilityDoc): string {
  return [d.label, d.description, d.group, d.keywords, d.endpoint]
    .filter(Boolean)
    .join(". ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_EMBED_CHARS);
}

type DocSet = { docs: CapabilityDoc[]; texts: string[]; hashes: string[]; position: Map<string, number> };
const docSets = new WeakMap<object, DocSet>();

function docSetOf(source: Searchable): DocSet {
  const m = searchKey(source);
  let set = docSets.get(m);
  if (!set) {
    const docs = capabilityDocs(source);
    const texts = docs.map(embeddingText);
    set = { docs, texts, hashes: texts.map((t) => createHash("sha256").update(t).digest("hex")), position: new Map(docs.map((d, i) => [d.id, i])) };
    docSets.set(m, set);
  }
  return set;
}

/** One manifest's doc vectors under one model: row i (unit length) belongs to docSetOf(m).docs[i]. */
type Vectors = { dims: number; data: Float32Array };
type Job = { promise: Promise<void>; done: number; total: number };
// Keyed by the realm version (its capability docs, else its manifest: searchKey), then by model: dropped with it.
const vectors = new WeakMap<object, Map<string, Vectors>>();
const jobs = new WeakMap<object, Map<string, Job>>();

function slot<T>(map: WeakMap<object, Map<string, T>>, m: object): Map<string, T> {
  let s = map.get(m);
  if (!s) map.set(m, (s = new Map()));
  return s;
}

const writes = new Set<Promise<void>>();

/** Resolves once every cache write started so far has finished (a script calls it before it exits). */
export async function embeddingWritesSettled(): Promise<void> {
  await Promise.all([...writes]);
}

function unitInto(out: Float32Array, at: number, v: Float32Array): void {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const k = n > 0 ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < v.length; i++) out[at + i] = v[i]! * k;
}

/**
 * Embed the texts of these manifests that are in neither memory nor the cache table, batch by batch, then
 * keep every manifest's vectors in memory. `dims` (the size the query's vector has) marks cached vectors of
 * another size as stale: the model behind the name changed, so they are embedded again and replaced.
 */
function startJob(ms: Searchable[], cfg: EmbeddingsConfig, store: VectorStore, headStartMs: number, dims?: number): Job {
  const job: Job = { promise: Promise.resolve(), done: 0, total: 0 };
  const run = async () => {
    const sets = ms.map(docSetOf);
    const texts = new Map<string, string>();
    for (const s of sets) s.hashes.forEach((h, i) => texts.set(h, s.texts[i]!));
    job.total = texts.size;
    // The cache read gets a head start; when it is slower (a large read, or a connection held by an open
    // transaction), embedding begins anyway and each later batch skips what the read has found by then.
    const cache: { found: Map<string, Float32Array> | null } = { found: null };
    const reading = store.load(cfg.model, [...texts.keys()]).then(
      (found) => void (cache.found = found),
      () => void (cache.found = new Map()),
    );
    await Promise.race([reading, delay(headStartMs, undefined, { ref: false })]);
    const got = new Map<string, Float32Array>();
    const fresh: StoredVector[] = [];
    // The vector size: the query's when given, else the endpoint's, else (all cached) the cache's.
    let want = dims;
    let wantFromCache = false;
    for (;;) {
      if (cache.found) {
        if (want === undefined) {
          want = cache.found.values().next().value?.length;
          wantFromCache = want !== undefined;
        }
        for (const [h, v] of cache.found) if (!got.has(h) && v.length === want) got.set(h, v);
      }
      job.done = got.size;
      const missing = [...texts.keys()].filter((h) => !got.has(h));
      if (!missing.length) break;
      const batch = missing.slice(0, EMBED_BATCH);
      let embedded: Float32Array[];
      try {
        embedded = await embed(cfg, batch.map((h) => texts.get(h)!), { timeoutMs: BATCH_TIMEOUT_MS });
      } catch (err) {
        if (err instanceof EmbeddingsFailure) throw new EmbeddingsFailure(err.kind, `embedding the capability descriptions failed: ${err.reason}`, { cause: err });
        throw err;
      }
      const size = embedded[0]!.length;
      if (want !== undefined && size !== want) {
        if (!wantFromCache) throw new EmbeddingsFailure("invalid", "the embeddings endpoint returned vectors of another length than a moment before");
        // Cached vectors of another size: the model behind this name changed, so they are stale.
        for (const [h, v] of got) if (v.length !== size) got.delete(h);
      }
      want = size;
      wantFromCache = false;
      batch.forEach((h, i) => {
        got.set(h, embedded[i]!);
        fresh.push({ hash: h, vector: embedded[i]! });
      });
    }
    if (fresh.length) {
      // The cache is an optimisation: a failed write costs a re-embedding later, never this search.
      const w = store.save(cfg.model, fresh).catch((err: unknown) => {
        console.error(`[catalog] caching ${fresh.length} embeddings failed: ${err instanceof Error ? err.message.split("\n")[0]!.slice(0, 200) : "unknown error"}`);
      });
      writes.add(w);
      void w.finally(() => writes.delete(w));
    }
    const size = want ?? 0;
    ms.forEach((m, k) => {
      const { hashes } = sets[k]!;
      const data = new Float32Array(hashes.length * size);
      hashes.forEach((h, i) => unitInto(data, i * size, got.get(h)!));
      slot(vectors, searchKey(m)).set(cfg.model, { dims: size, data });
    });
  };
  job.promise = run().finally(() => {
    for (const m of ms.map(searchKey)) if (jobs.get(m)?.get(cfg.model) === job) jobs.get(m)!.delete(cfg.model);
  });
  // Searches await the job with a deadline; once they stop waiting, nobody else will see its failure.
  job.promise.catch(() => {});
  for (const m of ms) slot(jobs, searchKey(m)).set(cfg.model, job);
  return job;
}

type Preparation = { pending: boolean; ready: Promise<void>; progress: () => { done: number; total: number } };

/** Make sure these manifests' doc vectors are (being) computed; one job per manifest and model at a time. */
function prepare(manifests: Searchable[], cfg: EmbeddingsConfig, store: VectorStore, headStartMs: number, dims?: number): Preparation {
  const waiting = new Set<Job>();
  const start: Searchable[] = [];
  for (const m of manifests) {
    const have = vectors.get(searchKey(m))?.get(cfg.model);
    if (have && (dims === undefined || have.dims === dims || have.dims === 0)) continue;
    const running = jobs.get(searchKey(m))?.get(cfg.model);
    if (running) waiting.add(running);
    else start.push(m);
  }
  if (start.length) waiting.add(startJob(start, cfg, store, headStartMs, dims));
  const all = [...waiting];
  const ready = Promise.all(all.map((j) => j.promise)).then(() => {});
  ready.catch(() => {});
  return {
    pending: all.length > 0,
    ready,
    progress: () => all.reduce((a, j) => ({ done: a.done + j.done, total: a.total + j.total }), { done: 0, total: 0 }),
  };
}

async function within<T>(p: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
    timer.unref();
  });
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(prep: Preparation, until: number): Promise<void> {
  if (!prep.pending) return;
  await within(prep.ready, Math.max(0, until - Date.now()), () => {
    const { done, total } = prep.progress();
    return new EmbeddingsFailure("timeout", `the capability descriptions are still being embedded (${done} of ${total} done); try again shortly`);
  });
}

/** The dot product of `q` with row `at` of `data` (four running sums: a third faster than one in V8). */
function dot(q: Float32Array, data: Float32Array, at: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = q.length;
  let j = 0;
  for (; j + 3 < n; j += 4) {
    s0 += q[j]! * data[at + j]!;
    s1 += q[j + 1]! * data[at + j + 1]!;
    s2 += q[j + 2]! * data[at + j + 2]!;
    s3 += q[j + 3]! * data[at + j + 3]!;
  }
  for (; j < n; j++) s0 += q[j]! * data[at + j]!;
  return s0 + s1 + s2 + s3;
}

type Semantic = NonNullable<RankedHit["semantic"]>;
type Similarity = { top: RankedHit[]; of: (doc: CapabilityDoc) => Semantic | undefined };

/**
 * Similarity of the request to every candidate (after the caller's filter): the `depth` most similar as hits,
 * and any other candidate's on request. `rel` places a candidate between the candidates' average similarity
 * (0) and the best one's (1): raw cosines sit in a narrow, model-specific band, and this makes closeness
 * thresholds mean the same for any model.
 */
function similarities(manifests: Searchable[], query: Float32Array, model: string, depth: number, filter?: CapabilityFilter): Similarity {
  const q = new Float32Array(query.length);
  unitInto(q, 0, query);
  const byNamespace = new Map<string, { set: DocSet; cos: Float64Array }>();
  // The best `depth` so far, most similar first (insertion into a short sorted list beats sorting them all).
  const best: { doc: CapabilityDoc; cosine: number }[] = [];
  let sum = 0;
  let count = 0;
  for (const m of manifests) {
    const v = vectors.get(searchKey(m))?.get(model);
    if (!v || v.dims !== q.length) continue;
    const set = docSetOf(m);
    const cos = new Float64Array(set.docs.length).fill(NaN);
    byNamespace.set(manifestOf(m).namespace, { set, cos });
    set.docs.forEach((doc, i) => {
      if (filter && !filter(toMatch(doc, 1))) return;
      const c = (cos[i] = dot(q, v.data, i * v.dims));
      sum += c;
      count++;
      if (best.length === depth && c <= best[depth - 1]!.cosine) return;
      let at = best.length;
      while (at > 0 && best[at - 1]!.cosine < c) at--;
      best.splice(at, 0, { doc, cosine: c });
      if (best.length > depth) best.pop();
    });
  }
  const mean = count ? sum / count : 0;
  const span = (best[0]?.cosine ?? 0) - mean;
  const semantic = (cosine: number): Semantic => {
    const rel = span > 1e-9 ? Math.max(0, (cosine - mean) / span) : 1;
    return { rel, cosine };
  };
  return {
    top: best.map(({ doc, cosine }) => {
      const sem = semantic(cosine);
      return { doc, score: sem.rel, semantic: sem };
    }),
    of: (doc) => {
      const entry = byNamespace.get(doc.namespace);
      const i = entry?.set.position.get(doc.id);
      const c = i === undefined ? NaN : entry!.cos[i]!;
      return Number.isNaN(c) ? undefined : semantic(c);
    },
  };
}

async function semanticHits(
  manifests: Searchable[],
  query: string,
  cfg: EmbeddingsConfig,
  o: { store: VectorStore; waitMs: number; cacheHeadStartMs: number; depth: number; filter?: CapabilityFilter },
): Promise<Similarity> {
  const until = Date.now() + o.waitMs;
  // The request's vector and the capability texts' are asked for at once.
  const asking = embed(cfg, [query], { timeoutMs: o.waitMs });
  asking.catch(() => {}); // awaited just below; this keeps a failure that arrives first from counting as unhandled
  let prep = prepare(manifests, cfg, o.store, o.cacheHeadStartMs);
  const [q] = await asking;
  await waitFor(prep, until);
  const stale = manifests.filter((m) => {
    const v = vectors.get(searchKey(m))?.get(cfg.model);
    return v && v.dims > 0 && v.dims !== q!.length;
  });
  if (stale.length) {
    prep = prepare(stale, cfg, o.store, o.cacheHeadStartMs, q!.length);
    await waitFor(prep, until);
  }
  return similarities(manifests, q!, cfg.model, o.depth, o.filter);
}

/**
 * Reciprocal rank fusion of the lexical and semantic lists. Each fused hit keeps what both rankings said
 * about it, including the similarity of a lexical hit that is not among the most similar.
 */
export function fuse(lexical: RankedHit[], semantic: RankedHit[], semanticOf: (doc: CapabilityDoc) => Semantic | undefined): RankedHit[] {
  const acc = new Map<string, { hit: RankedHit; rrf: number }>();
  lexical.slice(0, FUSION_DEPTH).forEach((h, r) => {
    const sem = semanticOf(h.doc);
    acc.set(h.doc.id, { hit: { doc: h.doc, score: 0, lexical: h.lexical, ...(sem ? { semantic: sem } : {}) }, rrf: 1 / (RRF_K + r + 1) });
  });
  semantic.slice(0, FUSION_DEPTH).forEach((h, r) => {
    const a = acc.get(h.doc.id);
    if (a) a.rrf += 1 / (RRF_K + r + 1);
    else acc.set(h.doc.id, { hit: { doc: h.doc, score: 0, semantic: h.semantic }, rrf: 1 / (RRF_K + r + 1) });
  });
  const fused = [...acc.values()].sort((a, b) => b.rrf - a.rrf);
  const top = fused[0]?.rrf ?? 1;
  return fused.map((f) => ({ ...f.hit, score: f.rrf / top }));
}

export type ModeSearchOptions = {
  mode?: SearchMode;
  limit?: number;
  filter?: CapabilityFilter;
  /** Defaults to the configured endpoint (null: none). */
  embeddings?: EmbeddingsConfig | null;
  /** Where doc vectors are cached between processes (default: the embedding_cache table). */
  store?: VectorStore;
  /** How long to wait for embeddings before answering lexically (default EMBEDDINGS_WAIT_MS). */
  waitMs?: number;
  /** How long the cache read leads before embedding starts anyway (default CACHE_HEADSTART_MS). */
  cacheHeadStartMs?: number;
};

/**
 * Ranked capability matches in the asked mode. `auto` is hybrid when an embeddings endpoint is configured and
 * lexical otherwise. When the asked mode cannot run, the answer is lexical and `fallback` says why.
 */
export async function searchCapabilitiesByMode(manifests: Searchable[], query: string, opts: ModeSearchOptions = {}): Promise<ModeAnswer> {
  const asked = opts.mode ?? "auto";
  const limit = opts.limit ?? 10;
  const lexical = (reason?: string): ModeAnswer => ({
    mode_ran: "lexical",
    ...(reason ? { fallback: { asked, reason: `${reason}; lexical search ran instead` } } : {}),
    ...rankCapabilities(manifests, query, { limit, filter: opts.filter }),
  });
  if (asked === "lexical") return lexical();
  const cfg = opts.embeddings === undefined ? embeddingsConfig() : opts.embeddings;
  if (!cfg) return lexical(asked === "auto" ? undefined : "no embeddings endpoint is configured (REALMGATE_EMBEDDINGS_URL)");
  const mode = asked === "auto" ? "hybrid" : asked;
  // Nothing to rank: no reason to embed the request.
  if (!manifests.length) return { mode_ran: mode, ...answerFrom([], query, limit, mode) };
  let semantic: Similarity;
  try {
    semantic = await semanticHits(manifests, query, cfg, {
      store: opts.store ?? dbVectorStore(),
      waitMs: opts.waitMs ?? EMBEDDINGS_WAIT_MS,
      cacheHeadStartMs: opts.cacheHeadStartMs ?? CACHE_HEADSTART_MS,
      depth: mode === "semantic" ? Math.max(limit, ANSWER_DEPTH) : FUSION_DEPTH,
      filter: opts.filter,
    });
  } catch (err) {
    if (err instanceof EmbeddingsFailure) return lexical(err.reason);
    throw err;
  }
  const hits = mode === "semantic" ? semantic.top : fuse(lexicalHits(manifests, query, { limit: FUSION_DEPTH, filter: opts.filter }), semantic.top, semantic.of);
  if (!hits.length) return { mode_ran: mode, ...fallbackAnswer(manifests, limit, opts.filter) };
  return { mode_ran: mode, ...answerFrom(hits, query, limit, mode) };
}
