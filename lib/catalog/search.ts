// Capability search: ranked matches of an intent ("reply to a comment") against the capability catalogs of
// the realms a caller may use — native catalogs, and the operation cards of imported (OpenAPI) realms.
// Ranking is BM25 (bm25.ts: minisearch's scoring over one index per realm version, built once and cached, so a
// search costs the postings of its terms) over label, description, keywords, group, ids and more text, with
// field weights; words are lemmatized (wink-lemmatizer: `repositories` → repository, but `logged` stays
// `logged`), everyday words and phrases become the words APIs use (lexicon.ts: remove → delete, look up →
// search, logged in → authenticated), applied to documents and queries alike, plus prefix/fuzzy matching. A
// request that names something the service holds ("who directed Inception") also looks for the search
// operations. An answer says how sure it is: a low-confidence answer is flagged and lists the near
// alternatives and how they differ; a request nothing matched gets the catalogs' starting points, flagged low.
// docs/capability-search.md describes it all. This file is the lexical ranking and the answer shaping every
// mode shares; search by meaning (semantic, hybrid) is in semantic.ts.
import lemmatizer from "wink-lemmatizer";
import type { CapabilityDoc, CatalogNode, Realm, RealmManifest } from "@/lib/realms/contract";
import { buildShard, releaseShard, searchShards, type Shard as BM25Shard } from "./bm25";
import { LEXICON, PHRASES, SHORT_FORMS } from "./lexicon";

export type { CapabilityDoc };

/**
 * A capability doc as search indexes it: a realm's docs may also carry `text`, more words it is found by, weighted
 * low and never embedded (imported operations: the start of their whole description, lib/realms/openapi/capability-docs.ts).
 */
export type SearchDoc = CapabilityDoc & { text?: string };

/**
 * What capability search ranks: a realm (its manifest, and the capability docs it brings, if any) or a bare
 * manifest, whose catalog is walked.
 */
export type Searchable = RealmManifest | Pick<Realm, "manifest" | "capabilityDocs">;

export const manifestOf = (s: Searchable): RealmManifest => ("manifest" in s ? s.manifest : s);

/** What identifies a searchable for caching: the docs it brings, else its manifest (a realm version either way). */
export const searchKey = (s: Searchable): object => ("manifest" in s && s.capabilityDocs ? s.capabilityDocs : manifestOf(s));

export type CapabilityMatch = {
  namespace: string;
  catalog_path: string;
  kind: string | null;
  operation: string;
  label: string;
  score: number;
  endpoint?: string;
};

export type CapabilityAlternative = { namespace: string; operation: string; label: string; endpoint?: string; score: number; differs: string };

export type CapabilityAnswer = {
  matches: CapabilityMatch[];
  confidence: "high" | "low";
  /** Why confidence is low, in a sentence. */
  reason?: string;
  /** With a low-confidence answer: the near choices and how each differs from the first match. */
  alternatives?: CapabilityAlternative[];
};

const STOP = new Set(["a", "an", "the", "to", "of", "on", "in", "for", "and", "or", "i", "it", "is", "be", "with", "this", "that", "please", "can", "you", "what", "am", "are", "was", "were", "do", "does", "did", "as", "at", "by"]);

/** Each lexicon word (lemmatized) → the canonical words it stands for (lemmatized). */
const canon = new Map<string, string[]>();
for (const [head, words] of Object.entries(LEXICON)) {
  const target = lemma(head);
  for (const w of [head, ...words]) {
    const k = lemma(w);
    const now = canon.get(k) ?? [];
    if (!now.includes(target)) canon.set(k, [...now, target]);
  }
}
/** A canonical word also stands for itself, so `star` stays `star` wherever else it is listed. */
for (const head of Object.keys(LEXICON)) {
  const k = lemma(head);
  const now = canon.get(k)!;
  if (now[0] !== k) canon.set(k, [k, ...now.filter((x) => x !== k)]);
}
const shortForms = new Map(Object.entries(SHORT_FORMS));
const phraseStarts = new Map<string, [string[], string[]][]>();
for (const p of PHRASES) phraseStarts.set(p[0][0]!, [...(phraseStarts.get(p[0][0]!) ?? []), p]);

/**
 * The lemma of a lowercase word (wink-lemmatizer): plural nouns become singular (`repositories` → repository,
 * `logs` → log) and `-ing` forms their verb (`running` → run); other forms are kept as they are, so a participle
 * is not a different word's stem (`logged` stays `logged`, not `log`; `rated` stays `rated`).
 */
export function lemma(word: string): string {
  if (word.length <= 3 || /[^a-z]/.test(word)) return word;
  const n = lemmatizer.noun(word);
  if (n !== word) return n;
  if (word.endsWith("ing")) return lemmatizer.verb(word);
  return word;
}

/**
 * Split identifiers too: `issues/create-comment` → issues create comment; `replyComment` → reply comment. Known
 * phrases become the words they stand for (`logged in` → authenticated).
 */
export function tokenize(text: string): string[] {
  const raw = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  if (!raw.some((t) => phraseStarts.has(t.toLowerCase()))) return raw;
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const hit = phraseStarts.get(raw[i]!.toLowerCase())?.find(([words]) => words.every((w, j) => raw[i + j]?.toLowerCase() === w));
    if (!hit) out.push(raw[i]!);
    else {
      out.push(...hit[1]);
      i += hit[0].length - 1;
    }
  }
  return out;
}

const processed = new Map<string, string | string[] | null>();
const PROCESSED_MAX = 50_000;

export function processTerm(term: string): string | string[] | null {
  const known = processed.get(term);
  if (known !== undefined || processed.has(term)) return known ?? null;
  const t = term.toLowerCase();
  let out: string | string[] | null;
  if (STOP.has(t)) out = null;
  else {
    const short = shortForms.get(t);
    if (short) out = short.map(lemma);
    else {
      const l = lemma(t);
      const c = canon.get(l);
      out = !c ? l : c.length === 1 ? c[0]! : c;
    }
  }
  if (processed.size >= PROCESSED_MAX) processed.clear();
  processed.set(term, out);
  return out;
}

/**
 * The realm's own capability docs when it brings them; otherwise one document per (catalog node, operation)
 * pair of its manifest, with the node's ancestry folded into its keywords.
 */
export function capabilityDocs(s: Searchable): CapabilityDoc[] {
  if ("manifest" in s && s.capabilityDocs) return s.capabilityDocs;
  const m = manifestOf(s);
  const docs: CapabilityDoc[] = [];
  const labels = m.service_card.operation_labels;
  const walk = (n: CatalogNode, trail: string[]) => {
    for (const op of n.operations) {
      const action = op.startsWith("object.action.") ? m.actions.find((a) => a.name === op.slice(14)) : undefined;
      const kind = action?.target_kind ?? n.kinds[0] ?? null;
      docs.push({
        id: `${m.namespace} ${n.path} ${op}`,
        namespace: m.namespace,
        catalog_path: n.path,
        kind,
        operation: op,
        label: (Object.hasOwn(labels, op) ? labels[op] : undefined) ?? action?.label ?? op,
        description: [n.label, n.description, action?.description ?? ""].join(" "),
        keywords: [...n.keywords, ...trail, ...n.kinds.map((k) => k.replace(/[._]/g, " "))].join(" "),
        ids: [op, action?.name ?? "", kind ?? ""].join(" "),
        risk: action?.risk,
      });
    }
    for (const c of n.children) walk(c, [...trail, n.label]);
  };
  walk(m.catalog, [m.service_card.title]);
  return docs;
}

const fields = ["label", "description", "keywords", "ids", "group", "verbs", "text"] as const;
export const fieldBoost = { label: 3, keywords: 2, ids: 1.5, group: 3, description: 0.3, verbs: 0.7, text: 0.2 };
const boosts = fields.map((f) => fieldBoost[f]);

/** Matching knobs (tuned on the dev half of bench/search-queries.json; see BENCHMARKS.md). */
export const searchTuning = { prefixMin: 7, fuzzyMin: 6, fuzzy: 0.15, verbBonus: 0.5, entitySearch: 1 };

/** The first meaningful word of a text, processed: a label's action verb (`Star a gist` → star). */
export function leadTerm(text: string): string | null {
  for (const t of tokenize(text)) {
    const p = processTerm(t);
    const first = Array.isArray(p) ? p[0] : p;
    if (first) return first;
  }
  return null;
}

type Shard = BM25Shard<CapabilityDoc> & { probes: (CapabilityMatch | undefined)[] };

const analyzer = { tokenize, processTerm };

function build(docs: CapabilityDoc[]): Shard {
  const shard = buildShard(docs, fields, analyzer, {
    // Deprecated operations still match, a little lower than their replacements.
    boost: (d) => (d.deprecated ? 0.7 : 1),
    verb: (d) => leadTerm(d.label),
  });
  return Object.assign(shard, { probes: new Array<CapabilityMatch | undefined>(docs.length) });
}

/**
 * Built shards, one per realm version, least recently used first. The key is the realm version's own object
 * (its capability docs, else its manifest: searchKey), never a name: two tenants' realms of the same namespace
 * are two keys, and an imported realm's new version (a new object) is built afresh. Bounded by the number of
 * documents held; an evicted version is rebuilt when next searched.
 */
const shards = new Map<object, Shard>();
/** At most this many documents are kept indexed (about 10 MB per 10,000); tests lower it. */
export const indexCache = { maxDocs: 200_000 };
const held = { docs: 0, builds: 0 };

function shardOf(s: Searchable): Shard {
  const key = searchKey(s);
  let shard = shards.get(key);
  if (shard) {
    shards.delete(key);
    shards.set(key, shard);
    return shard;
  }
  shard = build(capabilityDocs(s));
  held.builds++;
  shards.set(key, shard);
  held.docs += shard.docs.length;
  return shard;
}

/** Over budget: the least recently used shards go, except those of the search under way. */
function evict(keep: Shard[]): void {
  for (const [k, old] of shards) {
    if (held.docs <= indexCache.maxDocs) break;
    if (keep.includes(old)) continue;
    shards.delete(k);
    held.docs -= old.docs.length;
    releaseShard(old);
  }
}

/** What the index cache holds, and how many shards it has built (for tests and benches). */
export const lexicalCacheStats = () => ({ realms: shards.size, docs: held.docs, builds: held.builds });

/** The shards of these searchables, each once (a realm version listed twice is searched once). */
function shardsFor(manifests: Searchable[]): Shard[] {
  const out: Shard[] = [];
  for (const m of manifests) {
    const shard = shardOf(m);
    if (!out.includes(shard)) out.push(shard);
  }
  if (held.docs > indexCache.maxDocs) evict(out);
  return out;
}

/** The caller's view of a document, made once per document (a filter reads it; nobody may change it). */
function probe(shard: Shard, d: number): CapabilityMatch {
  return (shard.probes[d] ??= Object.freeze(toMatch(shard.docs[d]!, 1)));
}

/** The distinct processed terms of a query (what ranking actually looks for). */
export function queryTerms(query: string): string[] {
  const out = new Set<string>();
  for (const t of tokenize(query)) {
    const p = processTerm(t);
    for (const x of Array.isArray(p) ? p : p ? [p] : []) out.add(x);
  }
  return [...out];
}

/** Which ranking produced an answer. */
export type RankingMode = "lexical" | "semantic" | "hybrid";

/**
 * One ranked capability and what each ranking said about it. Every score is relative to the best of its own
 * list (1.0), so thresholds read the same for every query and every mode.
 */
export type RankedHit = {
  doc: CapabilityDoc;
  /** What the list is ordered by. */
  score: number;
  /** Absent when lexical ranking did not find this capability (or did not run). */
  lexical?: { rel: number; terms: string[] };
  /** `rel`: similarity above the candidates' average, relative to the best one's (0 = average or below). */
  semantic?: { rel: number; cosine: number };
};

export function toMatch(doc: CapabilityDoc, score: number): CapabilityMatch {
  return {
    namespace: doc.namespace,
    catalog_path: doc.catalog_path,
    kind: doc.kind ?? null,
    operation: doc.operation,
    label: doc.label,
    score: Math.round(score * 1000) / 1000,
    ...(doc.endpoint ? { endpoint: doc.endpoint } : {}),
  };
}

export type CapabilityFilter = (m: CapabilityMatch) => boolean;

/** Words that are capitalized without naming anything in particular. */
const NOT_NAMES = new Set(["i", "i'm", "i've", "i'd", "api", "tv", "pr", "prs", "id", "url"]);

/**
 * The words of a request that may name a particular thing ("who directed Inception", "albums of Adele"): quoted
 * text, and capitalized words after the first. A name the realms' own words do not hold (not a product or
 * feature of the service, like GitHub's "Dependabot") names something in the service's data: the first step
 * of such a request is usually the service's search (lookup) operation, which turns the name into an id.
 */
export function nameWords(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/["“‘]([^"“”‘’]{2,})["”’]/g)) out.push(...tokenize(m[1]!));
  const words = query.split(/\s+/).filter(Boolean);
  for (const w of words.slice(1)) if (/^[A-Z][a-z]/.test(w) && !NOT_NAMES.has(w.toLowerCase().replace(/[^a-z']/g, ""))) out.push(...tokenize(w));
  return out;
}

/** The canonical word of a service's search operations. */
const SEARCH = lemma("search");

/** Lexical ranking: BM25 with the lead-verb bonus, the caller's filter applied before the first `limit` are kept. */
export function lexicalHits(manifests: Searchable[], query: string, opts: { limit: number; filter?: CapabilityFilter }): RankedHit[] {
  const parts = shardsFor(manifests);
  const terms: string[] = [];
  for (const t of tokenize(query)) {
    const p = processTerm(t);
    if (Array.isArray(p)) terms.push(...p);
    else if (p) terms.push(p);
  }
  const filter = opts.filter;
  // An entity request also looks for the search operations (a lookup by name comes first).
  const entity =
    !terms.includes(SEARCH) &&
    nameWords(query).some((w) => {
      const p = processTerm(w);
      return typeof p === "string" && !parts.some((s) => s.lookup.has(p));
    });
  if (entity) terms.push(SEARCH);
  const found = searchShards(parts, terms, {
    boosts,
    prefix: (t) => t.length >= searchTuning.prefixMin,
    fuzzy: (t) => (t.length >= searchTuning.fuzzyMin ? searchTuning.fuzzy : false),
    // A request usually leads with what to do ("star a gist"): capabilities whose label leads with the same
    // verb rank above ones that merely share the nouns ("List starred gists").
    lead: leadTerm(query),
    leadBonus: searchTuning.verbBonus,
    ...(entity ? { termWeight: (t: string) => (t === SEARCH ? searchTuning.entitySearch : 1) } : {}),
    limit: opts.limit,
    ...(filter ? { accept: (i: number, d: number) => filter(probe(parts[i]!, d)) } : {}),
  });
  const top = found[0]?.score ?? 1;
  return found.map((h) => ({ doc: parts[h.shard]!.docs[h.doc]!, score: h.score / top, lexical: { rel: h.score / top, terms: h.terms } }));
}

export function searchCapabilities(manifests: Searchable[], query: string, opts: { limit?: number } = {}): CapabilityMatch[] {
  return lexicalHits(manifests, query, { limit: opts.limit ?? 10 }).map((h) => toMatch(h.doc, h.score));
}

/** Below this share of the query's words matched by the best match, the answer is flagged low. */
export const MIN_COVERAGE = 0.34;
/** A runner-up this close to the best match makes the choice a toss-up. */
export const TIE_RATIO = 0.8;
const ALTERNATIVE_MIN = 0.6;
/** Hits looked at for a low-confidence answer's alternatives (beyond the matches asked for). */
export const ANSWER_DEPTH = 6;

/** How a near alternative differs from the first match, in a few words a model can act on. */
function differs(top: CapabilityDoc, alt: CapabilityDoc): string {
  const parts: string[] = [];
  const [tm, tp] = String(top.endpoint ?? "").split(" ");
  const [am, ap] = String(alt.endpoint ?? "").split(" ");
  if (alt.namespace !== top.namespace) parts.push(`in ${alt.namespace}`);
  if (am && tm && am !== tm) parts.push(`${am}, not ${tm}`);
  if (ap && tp && ap !== tp) parts.push(`path ${ap}`);
  if (alt.endpoint && top.endpoint) {
    const tr = new Set(String(top.required ?? "").split(" ").filter(Boolean));
    const ar = new Set(String(alt.required ?? "").split(" ").filter(Boolean));
    const more = [...ar].filter((f) => !tr.has(f));
    const fewer = [...tr].filter((f) => !ar.has(f));
    if (more.length) parts.push(`also requires ${more.slice(0, 6).join(", ")}`);
    if (fewer.length) parts.push(`does not require ${fewer.slice(0, 6).join(", ")}`);
  } else if (alt.kind !== top.kind && alt.kind) parts.push(`on ${alt.kind}`);
  if (alt.risk && alt.risk !== top.risk) parts.push(`risk ${alt.risk}`);
  if (!parts.length) parts.push(alt.operation !== top.operation ? `a different operation (${alt.label})` : "another place in the catalog");
  return parts.join("; ");
}

/** How many of the query's terms a capability's own words contain (for matches lexical ranking did not score). */
function termsIn(doc: CapabilityDoc, terms: string[]): number {
  const words = new Set<string>();
  for (const f of fields) for (const t of tokenize((doc as SearchDoc)[f] ?? "")) for (const p of [processTerm(t)].flat()) if (p) words.add(p);
  return terms.filter((t) => words.has(t)).length;
}

/**
 * How close a hit comes to the first match, 0..1. Lexical and semantic: its score against the first's. Hybrid:
 * close only if close in both rankings (a ranking in which the first match scored nothing is not asked).
 */
function closeness(mode: RankingMode, top: RankedHit, h: RankedHit): number {
  if (mode === "lexical") return h.score / top.score;
  const ratios: number[] = [];
  const sem = top.semantic?.rel ?? 0;
  if (sem > 0) ratios.push(Math.min(1, (h.semantic?.rel ?? 0) / sem));
  const lex = top.lexical?.rel ?? 0;
  if (mode === "hybrid" && lex > 0) ratios.push(Math.min(1, (h.lexical?.rel ?? 0) / lex));
  return ratios.length ? Math.min(...ratios) : h.score / top.score;
}

/**
 * The answer for ranked hits: the first `limit` as matches, and how sure it is. An answer is low when its best
 * match covers few of the request's words, or when the runner-up comes close to it; then it lists the near
 * alternatives and how each differs from the first match.
 */
export function answerFrom(hits: RankedHit[], query: string, limit: number, mode: RankingMode): CapabilityAnswer {
  const matches = hits.slice(0, limit).map((h) => toMatch(h.doc, h.score));
  const top = hits[0];
  if (!top) return { matches, confidence: "low", reason: "Nothing in the catalogs you may use matches these words; try other words or browse object_schema(namespace)." };
  const terms = queryTerms(query);
  const matched = top.lexical ? new Set(top.lexical.terms).size : termsIn(top.doc, terms);
  const coverage = terms.length ? matched / terms.length : 0;
  // The same operation met again at another catalog node is not a rival: compare with the first other one.
  const sameAsTop = (h: RankedHit) => h.doc.namespace === top.doc.namespace && h.doc.operation === top.doc.operation;
  const second = hits.slice(1).find((h) => !sameAsTop(h));
  let reason: string | undefined;
  if (coverage < MIN_COVERAGE) {
    reason = `The best match covers only ${matched} of the ${terms.length} words that matter in the request.`;
    if (mode !== "lexical") reason += " It was found by meaning: check that it fits.";
  } else if (second && closeness(mode, top, second) >= TIE_RATIO) reason = "Several capabilities match almost equally; check how they differ before choosing.";
  if (!reason) return { matches, confidence: "high" };
  const alternatives = hits
    .slice(1, ANSWER_DEPTH)
    .filter((h) => !sameAsTop(h) && closeness(mode, top, h) >= ALTERNATIVE_MIN)
    .slice(0, 4)
    .map((h) => {
      const cap = toMatch(h.doc, h.score);
      return {
        namespace: cap.namespace,
        operation: cap.operation,
        label: cap.label,
        ...(cap.endpoint ? { endpoint: cap.endpoint } : {}),
        score: cap.score,
        differs: differs(top.doc, h.doc),
      };
    });
  return { matches, confidence: "low", reason, ...(alternatives.length ? { alternatives } : {}) };
}

/** Lead words of the operations that help explore a catalog (search and list), preferred as starting points. */
const LIST = lemma("list");
const EXPLORE = new Set([lemma("search"), LIST]);

/** The starting points of one realm version's catalog: one per top group, in catalog order, exploring ones first. */
function startingPoints(shard: Shard): number[] {
  const firstOf = new Map<string, number>();
  const exploring = new Map<string, number>();
  shard.docs.forEach((d, i) => {
    const group = "/" + (d.catalog_path.split("/")[1] ?? "");
    if (!firstOf.has(group)) firstOf.set(group, i);
    const lead = leadTerm(d.label);
    if (!exploring.has(group) && lead && EXPLORE.has(lead) && !d.deprecated) exploring.set(group, i);
  });
  // Search first, then list, then the rest; catalog order within each.
  const rank = (d: number) => ({ [SEARCH]: 0, [LIST]: 1 })[leadTerm(shard.docs[d]!.label) ?? ""] ?? 2;
  return [...firstOf.keys()].map((g) => exploring.get(g) ?? firstOf.get(g)!).sort((a, b) => rank(a) - rank(b) || a - b);
}

/**
 * For a request no word of which matched: the searched catalogs' top capabilities to start from — per realm,
 * one per top catalog group (its search or list operation where it has one, search and list groups first),
 * realms taken in turn — with the caller's filter applied. Empty only when the realms have no operation the
 * filter lets through. Scores are 0: nothing matched.
 */
export function fallbackHits(manifests: Searchable[], opts: { limit: number; filter?: CapabilityFilter }): RankedHit[] {
  const parts = shardsFor(manifests);
  const lists = parts.map((s) => {
    const first = startingPoints(s);
    const taken = new Set(first);
    // Past the groups' starting points, the rest of the catalog in order.
    return [...first, ...s.docs.map((_, i) => i).filter((i) => !taken.has(i))];
  });
  const out: RankedHit[] = [];
  const at = lists.map(() => 0);
  for (let live = true; live && out.length < opts.limit; ) {
    live = false;
    for (let i = 0; i < parts.length && out.length < opts.limit; i++) {
      const list = lists[i]!;
      while (at[i]! < list.length) {
        const d = list[at[i]!++]!;
        if (opts.filter && !opts.filter(probe(parts[i]!, d))) continue;
        out.push({ doc: parts[i]!.docs[d]!, score: 0 });
        live = true;
        break;
      }
    }
  }
  return out;
}

export const FALLBACK_REASON =
  "Nothing in the catalogs you may use matches these words; these are the catalogs' starting points (their search and list operations first). Try other words, or browse object_schema(namespace).";

/** The answer for a request nothing matched: the catalogs' starting points, flagged low (no match at all when there is none). */
export function fallbackAnswer(manifests: Searchable[], limit: number, filter?: CapabilityFilter): CapabilityAnswer {
  const matches = fallbackHits(manifests, { limit, filter }).map((h) => toMatch(h.doc, 0));
  return { matches, confidence: "low", reason: matches.length ? FALLBACK_REASON : "Nothing in the catalogs you may use matches these words, and they offer no operation you could use; browse object_schema(namespace)." };
}

/**
 * Lexical ranking with a confidence flag; a low-confidence answer lists near alternatives and how they differ.
 * A request nothing matched gets the catalogs' starting points, flagged low, rather than no answer.
 */
export function rankCapabilities(manifests: Searchable[], query: string, opts: { limit?: number; filter?: CapabilityFilter } = {}): CapabilityAnswer {
  const limit = opts.limit ?? 10;
  // A few more than asked, for the alternatives of a low-confidence answer.
  const hits = lexicalHits(manifests, query, { limit: Math.max(limit, ANSWER_DEPTH), filter: opts.filter });
  if (!hits.length && manifests.length) return fallbackAnswer(manifests, limit, opts.filter);
  return answerFrom(hits, query, limit, "lexical");
}
