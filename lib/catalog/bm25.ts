// The lexical index behind capability search: one shard per realm version, built once, searched together.
//
// Ranking is exactly minisearch's (BM25+ with k 1.2, b 0.7, d 0.5; per-field document frequencies; prefix and
// fuzzy expansions weighted 0.375 and 0.45 by distance; the sum over query terms multiplied by how many of
// them matched), so results and their order are what one minisearch index over the same documents gives.
// What differs is the cost of a query:
// - shards are per realm version, so any caller's list of realms is served without building anything, and
//   collection statistics (document count, average field lengths, document frequencies) are summed over
//   the shards of the call, as one index over them all would have them;
// - postings are flat typed arrays (term × field → documents and term frequencies), scored into a
//   per-shard accumulator that is reused between queries (only the documents a query touched are reset);
// - a query touches only the postings of its terms and their expansions: no per-query object per
//   matching document, no sort of every match — the best `limit` are kept as they are found, and the
//   caller's filter is asked only about a candidate that would enter them.
import SearchableMap from "minisearch/SearchableMap";

const K = 1.2;
const B = 0.7;
const D = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
const MAX_FUZZY = 6;

export type Analyzer = {
  tokenize: (text: string) => string[];
  processTerm: (term: string) => string | string[] | null;
};

/** One realm version's documents, indexed. Scratch arrays are the shard's own and clean between queries. */
export type Shard<Doc> = {
  docs: Doc[];
  fields: readonly string[];
  /** Per field, the sum over documents of the field's length (distinct raw tokens). */
  totalLength: Float64Array;
  /** [doc × fields + field]: the field's length. */
  fieldLength: Uint32Array;
  /** Term → term number. */
  lookup: Map<string, number>;
  /** Postings of (term t, field f): postDoc/postTf[start[t × fields + f] .. start[t × fields + f + 1]). */
  start: Uint32Array;
  postDoc: Uint32Array;
  postTf: Uint32Array;
  /** Per document: a multiplier of its score (deprecated operations rank a little lower). */
  docBoost: Float64Array;
  /** Per document: the term number of its lead verb, -1 for none. */
  verb: Int32Array;
  scratch?: Scratch;
  released?: boolean;
};

/**
 * Every term of every shard held, with how many shards hold it: a query term is expanded (prefix, fuzzy) once
 * against it, not once per shard, and each expansion is then looked up in each shard of the call.
 */
const vocabulary = new SearchableMap<number>();

/**
 * What a query term expanded to (prefix and fuzzy matches in the vocabulary, with their weights), for as long
 * as the vocabulary stays as it was: walking the radix tree allocates, and requests repeat their words.
 */
const expansions = new Map<string, [string, number][]>();
const EXPANSIONS_MAX = 4096;

/** A shard leaves the cache: its terms leave the vocabulary unless another shard has them. */
export function releaseShard(s: Shard<object>): void {
  if (s.released) return;
  s.released = true;
  expansions.clear();
  for (const t of s.lookup.keys()) {
    const n = vocabulary.get(t) ?? 0;
    if (n <= 1) vocabulary.delete(t);
    else vocabulary.set(t, n - 1);
  }
}

/** How many distinct terms the shards held have (for tests). */
export const vocabularySize = () => vocabulary.size;

type Scratch = {
  acc: Float64Array;
  /** The last query term (index) that matched the document; -1: untouched. */
  last: Int32Array;
  /** How many distinct query terms matched the document. */
  count: Uint16Array;
  /** Linked list of (query term) events per document: head, then next. */
  head: Int32Array;
  touched: Uint32Array;
  touchedCount: number;
  evTerm: Int32Array;
  evNext: Int32Array;
  evCount: number;
};

export function buildShard<Doc extends object>(
  docs: Doc[],
  fields: readonly string[],
  analyzer: Analyzer,
  extra: { boost: (d: Doc) => number; verb: (d: Doc) => string | null },
): Shard<Doc> {
  const F = fields.length;
  const lookup = new Map<string, number>();
  const totalLength = new Float64Array(F);
  const fieldLength = new Uint32Array(docs.length * F);
  // Every occurrence as (term × fields + field, doc), in document order; sorted into postings below. Flat
  // growable arrays rather than one array per posting list: building leaves little for the collector.
  let occKey = new Uint32Array(1024);
  let occDoc = new Uint32Array(1024);
  let occurrences = 0;
  const add = (t: string, d: number, f: number) => {
    let n = lookup.get(t);
    if (n === undefined) lookup.set(t, (n = lookup.size));
    if (occurrences === occKey.length) {
      const k = new Uint32Array(occKey.length * 2);
      k.set(occKey);
      occKey = k;
      const o = new Uint32Array(occDoc.length * 2);
      o.set(occDoc);
      occDoc = o;
    }
    occKey[occurrences] = n * F + f;
    occDoc[occurrences++] = d;
  };
  docs.forEach((doc, d) => {
    for (let f = 0; f < F; f++) {
      const value = (doc as Record<string, unknown>)[fields[f]!];
      if (value == null) continue;
      const tokens = analyzer.tokenize(String(value));
      const len = new Set(tokens).size;
      fieldLength[d * F + f] = len;
      totalLength[f]! += len;
      for (const token of tokens) {
        const p = analyzer.processTerm(token);
        if (Array.isArray(p)) for (const t of p) add(t, d, f);
        else if (p) add(p, d, f);
      }
    }
  });
  // A stable counting sort by posting list keeps each list in document order; repeats of a document are
  // then one posting with its term frequency.
  const keys = lookup.size * F;
  const at = new Uint32Array(keys + 1);
  for (let i = 0; i < occurrences; i++) at[occKey[i]! + 1]!++;
  for (let k = 0; k < keys; k++) at[k + 1]! += at[k]!;
  const sorted = new Uint32Array(occurrences);
  const fill = at.slice(0, keys);
  for (let i = 0; i < occurrences; i++) sorted[fill[occKey[i]!]!++] = occDoc[i]!;
  const start = new Uint32Array(keys + 1);
  const postDoc = new Uint32Array(occurrences);
  const postTf = new Uint32Array(occurrences);
  let total = 0;
  for (let k = 0; k < keys; k++) {
    start[k] = total;
    for (let i = at[k]!; i < at[k + 1]!; i++) {
      if (total > start[k]! && postDoc[total - 1] === sorted[i]) postTf[total - 1]!++;
      else {
        postDoc[total] = sorted[i]!;
        postTf[total++] = 1;
      }
    }
  }
  start[keys] = total;
  const verb = new Int32Array(docs.length).fill(-1);
  const docBoost = new Float64Array(docs.length);
  docs.forEach((doc, d) => {
    docBoost[d] = extra.boost(doc);
    const v = extra.verb(doc);
    const n = v === null ? undefined : lookup.get(v);
    if (n !== undefined) verb[d] = n;
  });
  for (const t of lookup.keys()) vocabulary.update(t, (n) => (n ?? 0) + 1);
  expansions.clear();
  return { docs, fields, totalLength, fieldLength, lookup, start, postDoc: postDoc.slice(0, total), postTf: postTf.slice(0, total), docBoost, verb };
}

function scratchOf(s: Shard<object>): Scratch {
  if (!s.scratch) {
    const n = s.docs.length;
    s.scratch = {
      acc: new Float64Array(n),
      last: new Int32Array(n).fill(-1),
      count: new Uint16Array(n),
      head: new Int32Array(n).fill(-1),
      touched: new Uint32Array(n),
      touchedCount: 0,
      evTerm: new Int32Array(Math.max(64, n)),
      evNext: new Int32Array(Math.max(64, n)),
      evCount: 0,
    };
  }
  return s.scratch;
}

function reset(x: Scratch): void {
  for (let i = 0; i < x.touchedCount; i++) {
    const d = x.touched[i]!;
    x.acc[d] = 0;
    x.last[d] = -1;
    x.count[d] = 0;
    x.head[d] = -1;
  }
  x.touchedCount = 0;
  x.evCount = 0;
}

function pushEvent(x: Scratch, doc: number, term: number): void {
  if (x.evCount === x.evTerm.length) {
    const grow = (a: Int32Array) => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    x.evTerm = grow(x.evTerm);
    x.evNext = grow(x.evNext);
  }
  const e = x.evCount++;
  x.evTerm[e] = term;
  x.evNext[e] = x.head[doc]!;
  x.head[doc] = e;
}

export type QueryOptions = {
  /** Per field (in the shards' field order): its weight. */
  boosts: readonly number[];
  prefix: (term: string) => boolean;
  /** Fuzziness: a fraction of the term's length, or false. */
  fuzzy: (term: string) => number | false;
  /** The query's lead verb and the score multiplier of documents whose label leads with it. */
  lead: string | null;
  leadBonus: number;
  limit: number;
  /** Per query term: a multiplier of its weight (1 when absent; a hint the query did not say outright weighs less). */
  termWeight?: (term: string) => number;
  /** Asked only about a document that would enter the best `limit`. */
  accept?: (shard: number, doc: number) => boolean;
};

export type ShardHit = { shard: number; doc: number; score: number; raw: number; seq: number; terms: string[] };

type Expansion = { weight: number; no: number[] /* per shard, -1: absent */ };

/** The vocabulary's prefix matches of a term, then its fuzzy matches (not also prefix matches), weighted. */
function expansionsOf(term: string, prefix: boolean, maxDistance: number): [string, number][] {
  const key = `${prefix ? "p" : "-"}${maxDistance} ${term}`;
  const known = expansions.get(key);
  if (known) return known;
  const out: [string, number][] = [];
  const prefixed = new Set<string>();
  if (prefix) {
    for (const t of vocabulary.atPrefix(term).keys()) {
      const distance = t.length - term.length;
      if (!distance) continue;
      prefixed.add(t);
      out.push([t, (PREFIX_WEIGHT * t.length) / (t.length + 0.3 * distance)]);
    }
  }
  if (maxDistance) {
    for (const [t, [, distance]] of vocabulary.fuzzyGet(term, maxDistance)) {
      if (!distance || prefixed.has(t)) continue;
      out.push([t, (FUZZY_WEIGHT * t.length) / (t.length + distance)]);
    }
  }
  if (expansions.size >= EXPANSIONS_MAX) expansions.clear();
  expansions.set(key, out);
  return out;
}

/** What a query term expands to in these shards: itself, then its prefix matches, then its fuzzy matches. */
function expand(shards: Shard<object>[], term: string, o: QueryOptions): Expansion[] {
  const out: Expansion[] = [];
  const note = (t: string, weight: number) => {
    let no: number[] | undefined;
    for (let i = 0; i < shards.length; i++) {
      const n = shards[i]!.lookup.get(t);
      if (n === undefined) continue;
      no ??= new Array<number>(shards.length).fill(-1);
      no[i] = n;
    }
    if (no) out.push({ weight, no });
  };
  note(term, 1);
  const fuzzy = o.fuzzy(term);
  const maxDistance = fuzzy === false ? 0 : fuzzy < 1 ? Math.min(MAX_FUZZY, Math.round(term.length * fuzzy)) : fuzzy;
  for (const [t, weight] of expansionsOf(term, o.prefix(term), maxDistance)) note(t, weight);
  return out;
}

/** Better: a higher score, then a higher score before the lead-verb bonus, then found earlier. */
const better = (score: number, raw: number, seq: number, b: ShardHit) => score > b.score || (score === b.score && (raw > b.raw || (raw === b.raw && seq < b.seq)));

/** Add one (term, field) posting list's BM25+ contributions to the shard's accumulator. */
function scoreRange(s: Shard<object>, x: Scratch, at: number, F: number, f: number, qi: number, weight: number, norm: number, perLength: number): void {
  const { postDoc, postTf, fieldLength, docBoost } = s;
  const { acc, last } = x;
  const end = s.start[at + 1]!;
  for (let p = s.start[at]!; p < end; p++) {
    const d = postDoc[p]!;
    const tf = postTf[p]!;
    acc[d]! += weight * docBoost[d]! * (D + (tf * (K + 1)) / (tf + norm + perLength * fieldLength[d * F + f]!));
    const seen = last[d]!;
    if (seen !== qi) {
      if (seen === -1) x.touched[x.touchedCount++] = d;
      last[d] = qi;
      x.count[d]!++;
      pushEvent(x, d, qi);
    }
  }
}

/**
 * The best `limit` documents of these shards for the processed query terms (duplicates count twice, as in
 * minisearch), scored as one index over all of them would score them.
 */
export function searchShards(shards: Shard<object>[], queryTerms: string[], o: QueryOptions): ShardHit[] {
  const F = shards[0]?.fields.length ?? 0;
  let N = 0;
  const total = new Float64Array(F);
  for (const s of shards) {
    N += s.docs.length;
    for (let f = 0; f < F; f++) total[f]! += s.totalLength[f]!;
  }
  const avg = Array.from(total, (t) => (N ? t / N : 0));
  const unique: string[] = [];
  const times = new Map<string, number>();
  for (const t of queryTerms) {
    const n = times.get(t);
    if (n === undefined) unique.push(t);
    times.set(t, (n ?? 0) + 1);
  }
  if (o.limit <= 0 || !unique.length) return [];
  const scratch = shards.map(scratchOf);
  try {
    const norm = K * (1 - B);
    for (let qi = 0; qi < unique.length; qi++) {
      const qt = unique[qi]!;
      const mult = times.get(qt)! * (o.termWeight?.(qt) ?? 1);
      for (const e of expand(shards, qt, o)) {
        for (let f = 0; f < F; f++) {
          // Document frequency in this field, over every shard of the call.
          let df = 0;
          for (let i = 0; i < shards.length; i++) {
            const no = e.no[i]!;
            if (no >= 0) df += shards[i]!.start[no * F + f + 1]! - shards[i]!.start[no * F + f]!;
          }
          if (!df) continue;
          const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
          const weight = e.weight * mult * o.boosts[f]! * idf;
          const perLength = avg[f]! > 0 ? (K * B) / avg[f]! : 0;
          for (let i = 0; i < shards.length; i++) {
            const no = e.no[i]!;
            if (no >= 0) scoreRange(shards[i]!, scratch[i]!, no * F + f, F, f, qi, weight, norm, perLength);
          }
        }
      }
    }
    // The best `limit`, best first.
    const best: ShardHit[] = [];
    let seq = 0;
    shards.forEach((s, i) => {
      const x = scratch[i]!;
      const leadNo = o.lead === null ? undefined : s.lookup.get(o.lead);
      for (let k = 0; k < x.touchedCount; k++) {
        const d = x.touched[k]!;
        const raw = x.acc[d]! * x.count[d]!;
        const score = leadNo !== undefined && s.verb[d] === leadNo ? raw * (1 + o.leadBonus) : raw;
        const at0 = seq++;
        if (best.length >= o.limit && !better(score, raw, at0, best[best.length - 1]!)) continue;
        if (o.accept && !o.accept(i, d)) continue;
        let at = best.length;
        while (at > 0 && better(score, raw, at0, best[at - 1]!)) at--;
        best.splice(at, 0, { shard: i, doc: d, score, raw, seq: at0, terms: [] });
        if (best.length > o.limit) best.pop();
      }
    });
    for (const h of best) {
      const x = scratch[h.shard]!;
      const matched: number[] = [];
      for (let e = x.head[h.doc]!; e >= 0; e = x.evNext[e]!) matched.push(x.evTerm[e]!);
      h.terms = matched.sort((a, b) => a - b).map((qi) => unique[qi]!);
    }
    return best;
  } finally {
    for (const x of scratch) reset(x);
  }
}
