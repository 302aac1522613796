// The capability-search documents of an imported (OpenAPI) realm: one per visible operation, built from its card
// and the owner's curation rather than from the catalog, with what the document itself says about the operation
// in the fields capability search weighs (lib/catalog/search.ts: label 3, group 3, keywords 2, ids 1.5, verbs 0.7,
// description 0.3):
// - label: the curated label, else the summary;
// - group: the tag and vendor categories;
// - keywords: the owner's keywords, the realm's title and keywords;
// - ids: the operationId, the path's resources — its literal segments and the resource each path parameter
//   names (`/movie/{movie_id}/credits` → movie credits movie), so operations a document labels alike ("Get
//   Details") differ by what they are about — and the names of its other inputs (`query` says it searches);
// - description: the description's first paragraph (the card's);
// - text (weighted below description, never embedded): the start of the whole description when it says more
//   than the first paragraph, and the tag's description;
// - verbs: words for what the HTTP method does.
// Search by meaning embeds label, description, group, keywords and endpoint only (lib/catalog/semantic.ts), so
// indexing more words here re-embeds nothing.
import { actionOperationKey, type CapabilityDoc } from "@/lib/realms/contract";
import type { OperationCard } from "./operation-types";

/** A capability doc with more words search finds it by (`text`: weighted low, never embedded; lib/catalog reads it). */
export type OpenApiCapabilityDoc = CapabilityDoc & { text: string };

/** What the docs are built from: one visible operation, its card with the owner's curation (manifest.ts `curate`). */
export type DocSource = { action: string; card: OperationCard; label: string; risk: string; keywords: string[] };

/** Words for what each HTTP method does, so "remove" finds DELETE and "list" finds GET (capability search). */
export const METHOD_VERBS: Record<string, string> = {
  GET: "get list read view",
  HEAD: "check exists",
  POST: "create add send run",
  PUT: "set replace update",
  PATCH: "update edit modify",
  DELETE: "delete remove",
};

/** The literal segments of a path, and the resource each parameter names: `{movie_id}` → movie. */
export function pathResources(path: string): { literal: string[]; named: string[] } {
  const literal: string[] = [];
  const named: string[] = [];
  for (const seg of path.split("/")) {
    if (!seg) continue;
    const param = /^\{(.+)\}$/.exec(seg);
    if (!param) literal.push(seg);
    else {
      const resource = param[1]!.replace(/[_-]?(id|ids|key|name|number|uuid|slug)$/i, "");
      if (resource && resource !== param[1]) named.push(resource);
    }
  }
  return { literal, named };
}

/**
 * How much of the whole description is indexed: past its first few sentences a long description mostly repeats
 * common words, and every indexed word is postings a search walks (bench:search's latency at 10,000 operations).
 */
const TEXT_CHARS = 300;

export function openApiCapabilityDocs(realm: { namespace: string; keywords: string[]; title: string }, visible: DocSource[], groupPath: Map<string, string>): OpenApiCapabilityDoc[] {
  const ns = realm.namespace;
  const realmWords = [...realm.keywords, realm.title].join(" ");
  return visible.map((o) => {
    const { literal, named } = pathResources(o.card.path);
    // Inputs other than the path's own (those are its resources above): `query` says an operation searches.
    const inPath = new Set([...o.card.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!));
    const inputs = o.card.input_fields.filter((f) => !inPath.has(f));
    return {
      id: `${ns} ${o.action}`,
      namespace: ns,
      catalog_path: groupPath.get(o.action) ?? "/",
      kind: null,
      operation: actionOperationKey(o.action),
      label: o.label,
      description: o.card.description,
      keywords: [...o.keywords, realmWords].join(" "),
      ids: [o.card.operation_id ?? "", ...literal, ...named, ...inputs].join(" "),
      endpoint: `${o.card.method} ${o.card.path}`,
      group: [o.card.tag, o.card.category, o.card.subcategory].filter(Boolean).join(" "),
      verbs: METHOD_VERBS[o.card.method] ?? "",
      required: o.card.required_fields.join(" "),
      risk: o.risk,
      deprecated: o.card.deprecated,
      text: [(o.card.search_description ?? "").slice(0, TEXT_CHARS), o.card.group_description].filter(Boolean).join(" "),
    };
  });
}
