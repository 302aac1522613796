// Capability search: ranked matches of an intent ("reply to a comment") against the capability catalogs of
// the realms a caller may use. Ranking is minisearch's BM25 over label, description, keywords, kinds and
// tokenized operation ids, with field weights, stemming and prefix/fuzzy matching.
import MiniSearch from "minisearch";
import { stemmer } from "stemmer";
import type { CatalogNode, RealmManifest } from "@/lib/realms/contract";

export type CapabilityDoc = {
  id: string;
  namespace: string;
  catalog_path: string;
  kind: string | null;
  operation: string;
  label: string;
  description: string;
  keywords: string;
  ids: string;
  endpoint?: string;
};

export type CapabilityMatch = {
  namespace: string;
  catalog_path: string;
  kind: string | null;
  operation: string;
  label: string;
  score: number;
  endpoint?: string;
};

const STOP = new Set(["a", "an", "the", "to", "of", "on", "in", "for", "and", "or", "my", "me", "i", "it", "is", "be", "with", "this", "that", "please", "can", "you"]);

/** Split identifiers too: `issues/create-comment` → issues create comment; `replyComment` → reply comment. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}

export function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (STOP.has(t)) return null;
  return stemmer(t);
}

/** One document per (catalog node, operation) pair, with the node's ancestry folded into its keywords. */
export function capabilityDocs(m: RealmManifest): CapabilityDoc[] {
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
        label: labels[op] ?? action?.label ?? op,
        description: [n.label, n.description, action?.description ?? ""].join(" "),
        keywords: [...n.keywords, ...trail, ...n.kinds.map((k) => k.replace(/[._]/g, " "))].join(" "),
        ids: [op, action?.name ?? "", kind ?? ""].join(" "),
      });
    }
    for (const c of n.children) walk(c, [...trail, n.label]);
  };
  walk(m.catalog, [m.service_card.title]);
  return docs;
}

const fields = ["label", "description", "keywords", "ids"] as const;
const boost = { label: 3, keywords: 2, ids: 1.5, description: 1 };

function build(docs: CapabilityDoc[]): MiniSearch<CapabilityDoc> {
  const ms = new MiniSearch<CapabilityDoc>({
    fields: [...fields],
    storeFields: ["namespace", "catalog_path", "kind", "operation", "label", "endpoint"],
    tokenize,
    processTerm,
    searchOptions: { boost, prefix: (t) => t.length >= 4, fuzzy: (t) => (t.length >= 6 ? 0.15 : false), combineWith: "OR" },
  });
  ms.addAll(docs);
  return ms;
}

// Indexes are pure functions of the manifests; keep a few built ones (keyed by realm identity).
const cache = new Map<string, MiniSearch<CapabilityDoc>>();
const CACHE_MAX = 32;
const identity = new WeakMap<RealmManifest, string>();
let counter = 0;
const idOf = (m: RealmManifest) => {
  let id = identity.get(m);
  if (!id) identity.set(m, (id = `${m.namespace}#${++counter}`));
  return id;
};

export function searchCapabilities(
  manifests: RealmManifest[],
  query: string,
  opts: { limit?: number; extraDocs?: (m: RealmManifest) => CapabilityDoc[] } = {},
): CapabilityMatch[] {
  const key = manifests.map(idOf).sort().join("|");
  let index = cache.get(key);
  if (!index) {
    index = build(manifests.flatMap((m) => (opts.extraDocs ? opts.extraDocs(m) : capabilityDocs(m))));
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(key, index);
  }
  const hits = index.search(query);
  const top = hits[0]?.score ?? 1;
  return hits.slice(0, opts.limit ?? 10).map((h) => ({
    namespace: h.namespace as string,
    catalog_path: h.catalog_path as string,
    kind: (h.kind as string | null) ?? null,
    operation: h.operation as string,
    label: h.label as string,
    // Scores are relative to the best match (1.0), so confidence reads the same for every query.
    score: Math.round((h.score / top) * 1000) / 1000,
    ...(h.endpoint ? { endpoint: h.endpoint as string } : {}),
  }));
}
