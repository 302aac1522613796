// npm run bench:search — capability search quality and latency over GitHub's REST API (1,200+ operations),
// imported exactly as an owner would import it. Quality: Recall@1/5/20 and MRR on a query set written from
// user intent (bench/search-queries.json), and on RestBench's TMDB and Spotify requests over the OpenAPI
// documents RestBench ships (bench/restbench/, imported the same way; a request counts as found at k when any
// API of its solution is in the first k), dev and test halves apart, against a plain BM25 baseline (a
// minisearch index with default settings over the same cards). Latency: median and p99 over 10,000+
// operations (the GitHub cards replicated under several namespaces) of what one object_schema(query) call
// does — schemaQuery: the caller's realm list, its grants as the filter, the needs_grant marks — next to the
// lexical ranking alone, the same call on the ranking as it was before (BASELINE_REF, one minisearch index
// per set of realms; its rankings are also compared with today's, query by query) and the BM25 baseline.
// With an embeddings endpoint configured
// (REALMGATE_EMBEDDINGS_URL + REALMGATE_EMBEDDINGS_MODEL, optional REALMGATE_EMBEDDINGS_API_KEY), the same
// queries also run in semantic and hybrid mode; without one, the section says those modes were not measured.
// Results go to BENCHMARKS.md.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import MiniSearch from "minisearch";
import { embed, embeddingsConfig, type EmbeddingsConfig } from "@/lib/catalog/embeddings";
import { lexicalCacheStats, lexicalHits, rankCapabilities, type CapabilityDoc, type CapabilityFilter, type Searchable } from "@/lib/catalog/search";
import { searchCapabilitiesByMode } from "@/lib/catalog/semantic";
import { memoryVectorStore } from "@/lib/catalog/vector-store";
import { compileSpec, type CompiledOperation } from "@/lib/realms/openapi/compile";
import { buildRealm, type BuiltRealm } from "@/lib/realms/openapi/manifest";
import { loadSpec } from "@/lib/realms/openapi/spec";
import { operationKeysOf, type OperationKey, type Realm } from "@/lib/realms/contract";
import { schemaQuery } from "@/lib/tools/describe";
import { machineLine, stats, timeIt, writeSection } from "./report";

type Query = { id: number; split: "dev" | "test"; query: string; gold: string[] };
/** One benchmark case: gold holds operation keys (`object.action.issues/create`) or endpoints (`GET /search/movie`). */
type Case = { id: number; split: "dev" | "test"; query: string; gold: string[] };
type Suite = { name: string; realm: BuiltRealm; ops: number; cases: Case[] };
const RESTBENCH = path.join(import.meta.dirname, "restbench");
const SPEC = path.join(process.cwd(), "node_modules/@octokit/openapi/generated/api.github.com.json");
const K = 20;
const LATENCY_OPS = 10_000;
const LATENCY_ROUNDS = 6;
/** The ranking before one index per realm version (one minisearch index per set of realms, rebuilt per set). */
const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? "c745135";

type Ranking = {
  rankCapabilities: (m: Searchable[], q: string, o?: { limit?: number; filter?: CapabilityFilter }) => { matches: { operation: string }[] };
  lexicalHits: typeof lexicalHits;
};

/** lib/catalog/search.ts as it was at BASELINE_REF (null when git cannot show it). */
async function baselineRanking(): Promise<Ranking | null> {
  const dir = path.join(process.cwd(), ".data", "bench-search-baseline");
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "search.ts"), execFileSync("git", ["show", `${BASELINE_REF}:lib/catalog/search.ts`], { encoding: "utf8" }));
  } catch (err) {
    console.warn(`Baseline skipped: ${(err as Error).message}`);
    return null;
  }
  const mod = (await import(pathToFileURL(path.join(dir, "search.ts")).href)) as Ranking;
  fs.rmSync(dir, { recursive: true, force: true });
  return mod;
}
const fmt = (n: number, digits = 3) => n.toFixed(digits);

function realmFrom(ops: CompiledOperation[], namespace: string, about = { title: "GitHub", description: "GitHub's REST API.", keywords: ["github"], baseUrl: "https://api.github.com" }): BuiltRealm {
  return buildRealm(
    { id: `oas_${namespace}`, tenantId: "tnt_bench", namespace, ...about, version: 1 },
    ops.map((o) => ({ action: o.card.action, card: o.card, contract: o.contract })),
    new Map(),
  );
}

/**
 * A RestBench set: its OpenAPI document imported as an owner would (loadSpec → compileSpec → buildRealm, the
 * title and description as the document gives them), its requests split by position (even: dev, odd: test).
 */
async function restbench(name: string, namespace: string, title: string, baseUrl: string): Promise<Suite> {
  const text = fs.readFileSync(path.join(RESTBENCH, `${namespace}_oas.json`), "utf8");
  // Spotify's document points one vendor extension at a file beside it ("$ref": "../policies.yaml"), which an
  // import refuses (one bundled document): the owner drops that reference, as done here; nothing else changes.
  const compiled = compileSpec(await loadSpec(text.replace(/"\$ref":\s*"\.\.\/policies\.yaml",?/, "")));
  const realm = realmFrom(compiled.operations, namespace, { title, description: "", keywords: [], baseUrl });
  const raw = JSON.parse(fs.readFileSync(path.join(RESTBENCH, `${namespace}.json`), "utf8")) as { query: string; solution: string[] }[];
  const cases = raw.map((r, i): Case => ({ id: i, split: i % 2 === 0 ? "dev" : "test", query: r.query, gold: r.solution }));
  return { name, realm, ops: compiled.operations.length, cases };
}

/** Where the first gold capability is in a ranking (-1: absent). */
const rankOf = (got: { operation: string; endpoint?: string }[], gold: string[]) => {
  const g = new Set(gold);
  return got.findIndex((m) => g.has(m.operation) || (m.endpoint !== undefined && g.has(m.endpoint)));
};

/** A plain BM25 baseline: minisearch with default settings over the same card text. */
function baseline(docs: CapabilityDoc[]) {
  const ms = new MiniSearch<CapabilityDoc>({ fields: ["label", "description", "ids", "group", "endpoint"], storeFields: ["operation", "endpoint"] });
  ms.addAll(docs);
  return (q: string) => ms.search(q).map((h) => ({ operation: String(h.operation), endpoint: String(h.endpoint) }));
}

type Metrics = { n: number; r1: number; r5: number; r20: number; mrr: number };

function score(rankings: { operation: string; endpoint?: string }[][], queries: Case[]): Metrics {
  let r1 = 0;
  let r5 = 0;
  let r20 = 0;
  let mrr = 0;
  queries.forEach((q, i) => {
    const rank = rankOf(rankings[i]!, q.gold);
    if (rank === 0) r1++;
    if (rank >= 0 && rank < 5) r5++;
    if (rank >= 0 && rank < K) r20++;
    if (rank >= 0) mrr += 1 / (rank + 1);
  });
  const n = rankings.length;
  return { n, r1: r1 / n, r5: r5 / n, r20: r20 / n, mrr: mrr / n };
}

async function timeEach(queries: string[], rounds: number, run: (q: string) => unknown): Promise<number[]> {
  for (const q of queries) await run(q); // warm-up: one untimed round
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t = performance.now();
      await run(q);
      out.push(performance.now() - t);
    }
  }
  return out;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The embeddings endpoint from the environment (the bench needs no AUTH_SECRET, so it is read directly). */
function endpointFromEnv(): EmbeddingsConfig | null {
  const cfg = embeddingsConfig({
    REALMGATE_EMBEDDINGS_URL: process.env.REALMGATE_EMBEDDINGS_URL?.trim() || undefined,
    REALMGATE_EMBEDDINGS_MODEL: process.env.REALMGATE_EMBEDDINGS_MODEL?.trim() || undefined,
    REALMGATE_EMBEDDINGS_API_KEY: process.env.REALMGATE_EMBEDDINGS_API_KEY?.trim() || undefined,
  });
  if (!cfg && process.env.REALMGATE_EMBEDDINGS_URL?.trim()) throw new Error("REALMGATE_EMBEDDINGS_MODEL is required when REALMGATE_EMBEDDINGS_URL is set");
  return cfg;
}

/** Search by meaning with one vector store for the whole run: the copies share their texts, so they are embedded once. */
function meaningSearch(cfg: EmbeddingsConfig) {
  // The bench has no database: vectors are kept in process memory.
  const store = memoryVectorStore();
  return (manifests: Searchable[], query: string, mode: "semantic" | "hybrid", limit: number, waitMs?: number) =>
    searchCapabilitiesByMode(manifests, query, { embeddings: cfg, store, mode, limit, ...(waitMs ? { waitMs } : {}) });
}

/** The first search by meaning embeds every operation card of these realms; give it all the time it needs. */
async function embedCards(search: ReturnType<typeof meaningSearch>, manifests: Searchable[]): Promise<number> {
  const t0 = performance.now();
  const warm = await search(manifests, "warm up", "semantic", 1, 30 * 60_000);
  if (warm.mode_ran !== "semantic") throw new Error(`semantic search could not run: ${warm.fallback?.reason ?? "unknown"}`);
  return performance.now() - t0;
}

/** Semantic and hybrid quality on the one realm, per split; and how many answers fell back to lexical. */
async function meaningQuality(search: ReturnType<typeof meaningSearch>, github: Searchable, splits: Record<string, Case[]>) {
  const rows: { mode: string; split: string; m: Metrics; fellBack: number }[] = [];
  for (const mode of ["semantic", "hybrid"] as const) {
    for (const [split, qs] of Object.entries(splits)) {
      const answers = [];
      for (const q of qs) answers.push(await search([github], q.query, mode, K));
      rows.push({ mode, split, m: score(answers.map((a) => a.matches), qs), fellBack: answers.filter((a) => a.mode_ran !== mode).length });
    }
  }
  return rows;
}

async function main() {
  const { queries } = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "search-queries.json"), "utf8")) as { queries: Query[] };
  const t0 = performance.now();
  const loaded = await loadSpec(fs.readFileSync(SPEC, "utf8"));
  const compiled = compileSpec(loaded);
  const importMs = performance.now() - t0;
  const github = realmFrom(compiled.operations, "github");
  const ops = compiled.operations.length;

  // Quality: GitHub with our query set, then RestBench's TMDB and Spotify sets, each on its own realm.
  const githubCases: Case[] = queries.map((q) => ({ ...q, gold: q.gold.map((g) => `object.action.${g}`) }));
  const suites: Suite[] = [
    { name: "GitHub", realm: github, ops, cases: githubCases },
    await restbench("RestBench TMDB", "tmdb", "TMDB", "https://api.themoviedb.org/3"),
    await restbench("RestBench Spotify", "spotify", "Spotify", "https://api.spotify.com/v1"),
  ];
  const splits = { dev: githubCases.filter((q) => q.split === "dev"), test: githubCases.filter((q) => q.split === "test"), all: githubCases };
  type Row = { suite: string; split: string; ours: Metrics; base: Metrics; lowShare: number; highPrecision: number; lowPrecision: number };
  const rows: Row[] = [];
  const misses: string[] = [];
  const only = process.env.BENCH_SUITE?.toLowerCase();
  for (const suite of suites) {
    if (only && !suite.name.toLowerCase().includes(only)) continue;
    const base = baseline(suite.realm.capabilityDocs);
    const parts = { dev: suite.cases.filter((q) => q.split === "dev"), test: suite.cases.filter((q) => q.split === "test"), all: suite.cases };
    for (const [split, qs] of Object.entries(parts)) {
      const answers = qs.map((q) => rankCapabilities([suite.realm], q.query, { limit: K }));
      const mine = score(answers.map((a) => a.matches), qs);
      const theirs = score(qs.map((q) => base(q.query).slice(0, K)), qs);
      const top1 = qs.map((q, i) => rankOf(answers[i]!.matches.slice(0, 1), q.gold) === 0);
      const low = answers.map((a) => a.confidence === "low");
      const hiIdx = low.map((l, i) => (!l ? i : -1)).filter((i) => i >= 0);
      const loIdx = low.map((l, i) => (l ? i : -1)).filter((i) => i >= 0);
      rows.push({
        suite: suite.name,
        split,
        ours: mine,
        base: theirs,
        lowShare: loIdx.length / qs.length,
        highPrecision: hiIdx.filter((i) => top1[i]).length / Math.max(1, hiIdx.length),
        lowPrecision: loIdx.filter((i) => top1[i]).length / Math.max(1, loIdx.length),
      });
      // Misses are printed for the dev half only: the test half stays unread while tuning.
      if (split === "dev" && process.env.BENCH_VERBOSE) {
        qs.forEach((q, i) => {
          const got = answers[i]!.matches;
          const rank = rankOf(got, q.gold);
          if (rank < 0 || rank >= 5) misses.push(`${suite.name} #${q.id} ${JSON.stringify(q.query)} gold=${q.gold.join("|")} rank=${rank < 0 ? "miss" : rank + 1} top=${got.slice(0, 3).map((m) => m.endpoint ?? m.operation).join(", ")} conf=${answers[i]!.confidence}`);
        });
      }
    }
  }
  if (misses.length) console.log(misses.join("\n"));
  const cfg = endpointFromEnv();
  if (process.env.BENCH_QUICK) {
    for (const r of rows) console.log(r.suite, r.split, JSON.stringify(r.ours), "base", JSON.stringify(r.base), "low", r.lowShare.toFixed(2), "hi-prec", r.highPrecision.toFixed(2), "lo-prec", r.lowPrecision.toFixed(2));
    if (!cfg) console.log("semantic and hybrid: not measured (no embeddings endpoint configured)");
    else {
      const search = meaningSearch(cfg);
      await embedCards(search, [github]);
      for (const r of await meaningQuality(search, github, splits)) console.log(r.mode, r.split, JSON.stringify(r.m), "fell back", r.fellBack);
    }
    return;
  }

  // Latency over 10,000+ operations: the GitHub cards under several namespaces, searched together.
  const copies = Math.ceil(LATENCY_OPS / ops);
  const realms = [github, ...Array.from({ length: copies - 1 }, (_, i) => realmFrom(compiled.operations, `github${i + 2}`))];
  const manifests: Searchable[] = realms;
  const total = realms.reduce((n, r) => n + r.manifest.actions.length, 0);
  // The caller: an agent holding grants for the read operations of every realm; the owner turned every
  // tenth operation off, so it is not grantable either (the filter refuses it).
  const asRealm = (r: BuiltRealm): Realm => ({ manifest: r.manifest, capabilityDocs: r.capabilityDocs, adapter: {} as Realm["adapter"] });
  const tenantRealms = realms.map(asRealm);
  const grantable = new Map<string, Set<OperationKey>>();
  const allowed = new Map<string, Set<OperationKey>>();
  for (const r of realms) {
    const opsOf = r.capabilityDocs.map((d) => d.operation as OperationKey).filter((_, i) => i % 10 !== 9);
    grantable.set(r.manifest.namespace, new Set(opsOf));
    allowed.set(r.manifest.namespace, new Set(r.capabilityDocs.filter((d) => d.risk === "read").map((d) => d.operation as OperationKey)));
  }
  const filter: CapabilityFilter = (mt) => grantable.get(mt.namespace)?.has(mt.operation as OperationKey) ?? false;
  // What object_schema(query) runs, with a realm list of its own on every call (as the tenant source gives it).
  const oneCall = (q: string) => schemaQuery([...tenantRealms], allowed, q, { limit: 8, asked: "lexical", grantable });
  const b0 = performance.now();
  await oneCall("warm the index");
  const buildMs = performance.now() - b0;
  const perRealmMs = buildMs / copies;
  const texts = queries.map((q) => q.query);
  const loadAvg = os.loadavg()[0]!;
  const callMs = await timeEach(texts, LATENCY_ROUNDS, oneCall);
  const rankMs = await timeEach(texts, LATENCY_ROUNDS, (q) => rankCapabilities(manifests, q, { limit: 8 }));
  // What the tool also computes before it searches: the caller's grantable operations as sets, as
  // grantableOperations (lib/authz/allowed.ts) builds them on every call (its database read left out).
  const turnedOff = new Set<string>();
  const grantsMs = await timeEach(texts, LATENCY_ROUNDS, () => {
    const out = new Map<string, Set<OperationKey>>();
    for (const r of tenantRealms) out.set(r.manifest.namespace, new Set(operationKeysOf(r.manifest).filter((op) => !turnedOff.has(`${r.manifest.namespace} ${op}`))));
    return out;
  });
  const heapMb = process.memoryUsage().heapUsed / 1024 / 1024;
  const held = lexicalCacheStats();

  // Before: the same call's ranking as it was at BASELINE_REF, and whether it ranks exactly as today.
  const before = await baselineRanking();
  let beforeMs: number[] | null = null;
  const same = { equal: 0, of: 0 };
  if (before) {
    const searchable = () => tenantRealms.filter((r) => allowed.has(r.manifest.namespace));
    before.rankCapabilities(searchable(), "warm the index", { limit: 8, filter });
    beforeMs = await timeEach(texts, LATENCY_ROUNDS, (q) => before.rankCapabilities(searchable(), q, { limit: 8, filter }));
    const ids = (hits: ReturnType<typeof lexicalHits>) => JSON.stringify(hits.map((h) => [h.doc.id, h.lexical?.terms]));
    const cases: [Searchable[], number, CapabilityFilter | undefined][] = [
      [[github], K, undefined],
      [manifests, 8, filter],
      [manifests, 100, undefined],
    ];
    for (const [ms, limit, f] of cases) {
      for (const q of texts) {
        same.of++;
        if (ids(before.lexicalHits(ms, q, { limit, filter: f })) === ids(lexicalHits(ms, q, { limit, filter: f }))) same.equal++;
      }
    }
  }
  const baseBig = baseline(realms.flatMap((r) => r.capabilityDocs));
  const baseMs = await timeEach(texts, LATENCY_ROUNDS, (q) => baseBig(q).slice(0, 8));

  const sc = stats(callMs);
  const sr = stats(rankMs);
  const sf = beforeMs ? stats(beforeMs) : null;
  const sb = stats(baseMs);
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "n/a");
  const table = [
    "| set | split | queries | Recall@1 (ours / BM25) | Recall@5 (ours / BM25) | Recall@20 (ours / BM25) | MRR (ours / BM25) | MRR ratio |",
    "|---|---|---:|---|---|---|---|---:|",
    ...rows.map(
      (r) =>
        `| ${r.suite} | ${r.split} | ${r.ours.n} | ${pct(r.ours.r1)} / ${pct(r.base.r1)} | ${pct(r.ours.r5)} / ${pct(r.base.r5)} | ${pct(r.ours.r20)} / ${pct(r.base.r20)} | ${fmt(r.ours.mrr)} / ${fmt(r.base.mrr)} | ${ratio(r.ours.mrr, r.base.mrr)} |`,
    ),
  ].join("\n");
  const conf = [
    "| set | split | flagged low | top-1 right when high | top-1 right when low |",
    "|---|---|---:|---:|---:|",
    ...rows.map((r) => `| ${r.suite} | ${r.split} | ${pct(r.lowShare)} | ${pct(r.highPrecision)} | ${pct(r.lowPrecision)} |`),
  ].join("\n");
  const row = (what: string, x: ReturnType<typeof stats>) => `| ${what} | ${total} | ${fmt(x.median, 2)} ms | ${fmt(x.p99, 2)} ms | ${ratio(x.median, sb.median)} | ${ratio(x.p99, sb.p99)} |`;
  const latency = [
    "| what is timed | operations | p50 | p99 | p50 vs BM25 | p99 vs BM25 |",
    "|---|---:|---:|---:|---:|---:|",
    row("**one object_schema(query) call** (schemaQuery: realm list, grants filter, needs_grant; lexical)", sc),
    row("ranking alone (rankCapabilities, no filter)", sr),
    row("not search: the per-call grant sets object_schema builds first (grantableOperations' work, no database)", stats(grantsMs)),
    ...(sf ? [row(`before (${BASELINE_REF}): the same ranking, filter and realm list, one minisearch index per set of realms`, sf)] : []),
    row("BM25 baseline (minisearch defaults, no filter, no confidence)", sb),
  ].join("\n");
  let meaning: string;
  if (!cfg) {
    meaning =
      "Semantic and hybrid modes were not measured: no embeddings endpoint was configured. Set `REALMGATE_EMBEDDINGS_URL` and `REALMGATE_EMBEDDINGS_MODEL` (and `REALMGATE_EMBEDDINGS_API_KEY` if it needs one) to an OpenAI-compatible API and rerun.";
  } else {
    const search = meaningSearch(cfg);
    const embedMs = await embedCards(search, [github]);
    const quality = await meaningQuality(search, github, splits);
    await embedCards(search, manifests);
    const endpointMs = stats(await timeIt(texts.length, (i) => embed(cfg, [texts[i]!], { timeoutMs: 10_000 }), 5));
    const semanticMs = stats(await timeIt(texts.length, (i) => search(manifests, texts[i]!, "semantic", 8), 5));
    const hybridMs = stats(await timeIt(texts.length, (i) => search(manifests, texts[i]!, "hybrid", 8), 5));
    const both = (x: ReturnType<typeof stats>) => `${fmt(x.median, 1)} ms / ${fmt(x.p99, 1)} ms`;
    meaning = [
      `Semantic and hybrid modes, model \`${cfg.model}\` (embedding the ${ops} cards took ${fmt(embedMs / 1000, 1)} s, once; vectors are cached by model and text hash):`,
      "",
      "| mode | split | Recall@1 | Recall@5 | Recall@20 | MRR | fell back to lexical |",
      "|---|---|---:|---:|---:|---:|---:|",
      ...rows.filter((r) => r.suite === "GitHub").map((r) => `| lexical | ${r.split} | ${pct(r.ours.r1)} | ${pct(r.ours.r5)} | ${pct(r.ours.r20)} | ${fmt(r.ours.mrr)} | — |`),
      ...quality.map((r) => `| ${r.mode} | ${r.split} | ${pct(r.m.r1)} | ${pct(r.m.r5)} | ${pct(r.m.r20)} | ${fmt(r.m.mrr)} | ${r.fellBack} |`),
      "",
      `Latency of one search by meaning over ${total} operations, median / p99 (each embeds its request with one call to the endpoint): the endpoint alone ${both(endpointMs)}; semantic ${both(semanticMs)}; hybrid ${both(hybridMs)}.`,
    ].join("\n");
  }
  const body = `
Command: \`npm run bench:search\` (bench/search.ts). Spec: GitHub's REST API from \`@octokit/openapi\` (${ops} operations, OpenAPI ${loaded.version}), imported with the same code an owner's import runs (read + check + cards: ${fmt(importMs / 1000, 2)} s). Queries: ${queries.length} natural requests written from user intent with gold operation ids (bench/search-queries.json); and RestBench's requests (bench/restbench/, from RestGPT, MIT) over the OpenAPI documents it ships — ${suites.slice(1).map((x) => `${x.name.replace("RestBench ", "")}: ${x.cases.length} requests, ${x.ops} operations`).join("; ")} — where a request counts as found at k when any API of its solution is among the first k (split by position: even dev, odd test). In every set the **dev** half was used while tuning ranking, the **test** half was held out. Baseline: a minisearch index with default settings (plain BM25, no stemming, no weights) over the same cards' summary, description, operation id, group and endpoint. Mode: lexical (semantic and hybrid: see the end of this section).

${table}

Confidence (\`confidence: "low"\` answers list near alternatives and how they differ):

${conf}

Latency of one capability search (${LATENCY_ROUNDS} rounds of all ${queries.length} queries, after one untimed round) over ${total} operations: ${copies} copies of the GitHub cards under different namespaces, searched together. The caller is an agent granted the read operations of every realm, in a tenant whose owner turned every tenth operation off; each call gets a realm list of its own. Indexes are built once per realm version and cached: the first call built all ${copies} (${fmt(buildMs / 1000, 2)} s, ${fmt(perRealmMs, 0)} ms per ${ops}-operation realm — what a re-import costs its next search); the cache then held ${held.realms} realms, ${held.docs} operations, and the process ${heapMb.toFixed(0)} MB of heap. Load average when timing began: ${loadAvg.toFixed(1)} on ${os.cpus().length} cores (a p99 in wall time counts every moment the scheduler gave to another process).${sf ? ` Rankings against ${BASELINE_REF}: ${same.equal} of ${same.of} identical (operation order and matched terms; the GitHub realm alone at ${K}, all copies with the filter at 8 and without at 100).` : ""}

${latency}

Where the time went before (CPU profile of the ${BASELINE_REF} ranking over these ${total} operations): minisearch's per-term scoring built a result object per matching operation (a broad request matches thousands of them) with its match table, merged them across terms, copied stored fields into each, and sorted them all — about two thirds of the time in those loops and a sixth in garbage collection; and each new set of realms a caller could see (a different grant, a re-imported realm) built one whole index over all of them. Now (lib/catalog/bm25.ts) each realm version is indexed once into flat postings, a call sums the shards' statistics so scores are those of one index over all of them, only the postings of the query's terms (and their prefix and fuzzy expansions, found once in a shared vocabulary) are scored into reused arrays, and the best few are kept as they are found — the grants filter is asked only about a candidate that would enter them.

${meaning}
`;
  writeSection("search", `## Capability search (\`npm run bench:search\`)\n${body}\n${machineLine()}`);
  console.log(body);
}

await main();
