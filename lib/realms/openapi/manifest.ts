// An imported service's realm manifest, built from its stored operation cards and the owner's curation:
// actions = operations (name = operationId, payload = the operation's real input schema, risk, claims =
// auth scopes), the capability catalog from the operations' groups, service card labels from summaries or
// curated labels. Also the capability-search documents, built from the cards rather than the catalog.
import { actionOperationKey, manifestSchema, type ActionDef, type CapabilityDoc, type CatalogNode, type RealmManifest, type Risk } from "@/lib/realms/contract";
import { distinctLabels } from "./labels";
import { openApiCapabilityDocs } from "./capability-docs";
import type { OperationCard, OperationContract } from "./operation-types";

export type RealmRecord = {
  id: string;
  tenantId: string;
  namespace: string;
  title: string;
  description: string;
  keywords: string[];
  baseUrl: string;
  version: number;
  /** The credential calls carry, as people may see it (kind only): `none`, `bearer`, `header`, `query`, `basic`. Absent means none. */
  credential?: { type: string; configured: boolean };
};
export type OperationRecord = { action: string; card: OperationCard; contract: OperationContract };
export type Curation = { action: string; hidden: boolean; label: string | null; keywords: string[]; risk: Risk | null; exactGrantOnly: boolean };

/** The effective view of one operation: its card with the owner's curation applied. */
export type CuratedOperation = OperationRecord & { label: string; risk: Risk; hidden: boolean; exactGrantOnly: boolean; keywords: string[] };

export const EXACT_GRANT_NOTE = "only an exact grant covers it";

export function curate(ops: OperationRecord[], curations: Map<string, Curation>): CuratedOperation[] {
  // Summaries several operations share get their path's resource ("Get movie details"), over every operation
  // (hidden ones too), so hiding one never renames another. An owner's label is kept as written.
  const labels = distinctLabels(ops.map((o) => ({ action: o.action, label: o.card.summary, method: o.card.method, path: o.card.path })));
  return ops.map((o) => {
    const c = curations.get(o.action);
    return {
      ...o,
      label: c?.label ?? labels.get(o.action) ?? o.card.summary,
      risk: c?.risk ?? o.card.risk,
      hidden: c?.hidden ?? false,
      exactGrantOnly: c?.exactGrantOnly ?? false,
      keywords: c?.keywords ?? [],
    };
  });
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60) || "other";

const human = (s: string) => {
  const words = s.replace(/[-_/]+/g, " ").trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : "Other";
};

/** The catalog group of a card: vendor category (and subcategory) first, else the first tag. */
export function groupOf(card: OperationCard): { path: string; trail: string[] } {
  if (card.category) {
    const sub = card.subcategory && card.subcategory !== card.category ? card.subcategory : null;
    return { path: sub ? `/${slug(card.category)}/${slug(sub)}` : `/${slug(card.category)}`, trail: sub ? [card.category, sub] : [card.category] };
  }
  if (card.tag) return { path: `/${slug(card.tag)}`, trail: [card.tag] };
  return { path: "/other", trail: ["other"] };
}

const resultKind = (ns: string) => `${ns}.operation_result`;

export { METHOD_VERBS } from "./capability-docs";

/** The realm's manifest, its capability docs (capability search ranks imported operations by their cards, not by walking the catalog) and its contracts. */
export type BuiltRealm = { manifest: RealmManifest; capabilityDocs: CapabilityDoc[]; contracts: Map<string, OperationContract> };

export function buildRealm(realm: RealmRecord, ops: OperationRecord[], curations: Map<string, Curation>): BuiltRealm {
  const visible = curate(ops, curations).filter((o) => !o.hidden);
  const ns = realm.namespace;
  const host = safeHost(realm.baseUrl);
  const kind = resultKind(ns);

  const labels: Record<string, string> = {
    "provider.about": `About ${realm.title}`,
    "object.schema": `Browse ${realm.title}'s operations`,
  };
  const actions: ActionDef[] = [];
  const contracts = new Map<string, OperationContract>();
  for (const o of visible) {
    const key = actionOperationKey(o.action);
    labels[key] = o.exactGrantOnly ? `${o.label} (${EXACT_GRANT_NOTE})` : o.label;
    contracts.set(o.action, o.contract);
    const about = [o.card.description && o.card.description !== o.card.summary ? o.card.description : o.label, `(${o.card.method} ${o.card.path})`];
    if (o.exactGrantOnly) about.push(`Agents need an explicit grant of exactly this operation.`);
    for (const note of o.contract.request_notes ?? []) about.push(`Note: ${note}`);
    if (o.card.deprecated) about.push("Deprecated by the service.");
    actions.push({
      name: o.action,
      label: o.label,
      description: about.join(" "),
      target_kind: null,
      payload_schema: withFieldNotes(o.contract.input_schema, o.contract.field_notes),
      example: o.contract.example,
      risk: o.risk,
      claims: o.card.scopes,
      returns: returnsText(o.contract),
      // The service's objects are not Realmgate refs: no payload field holds one.
      ref_paths: [],
      ...(o.exactGrantOnly ? { exact_grant_only: true } : {}),
    });
  }

  // Groups in the order the document first mentions them.
  const root: CatalogNode = {
    path: "/",
    label: realm.title,
    description: realm.description || `Operations of ${realm.title}, imported from its OpenAPI document.`,
    keywords: [...realm.keywords, ...realm.title.toLowerCase().split(/\s+/)],
    kinds: [kind],
    operations: ["provider.about", "object.schema"],
    children: [],
  };
  const nodes = new Map<string, CatalogNode>([["/", root]]);
  const nodeFor = (path: string, trail: string[], about: string): CatalogNode => {
    let n = nodes.get(path);
    if (n) return n;
    const parentPath = path.slice(0, path.lastIndexOf("/")) || "/";
    const parent = parentPath === "/" ? root : nodeFor(parentPath, trail.slice(0, -1), about);
    const word = trail[trail.length - 1] ?? "other";
    // A tag's description fits its group; a subgroup gets its own plain line.
    const described = parentPath === "/" ? about : "";
    n = {
      path,
      label: human(word),
      description: described || `${human(word)}: operations of ${realm.title}.`,
      keywords: [...new Set(trail.map((t) => t.replace(/[-_]+/g, " ")))],
      kinds: [],
      operations: [],
      children: [],
    };
    nodes.set(path, n);
    parent.children.push(n);
    return n;
  };
  const groupPath = new Map<string, string>();
  for (const o of visible) {
    const g = groupOf(o.card);
    nodeFor(g.path, g.trail, o.card.group_description).operations.push(actionOperationKey(o.action));
    groupPath.set(o.action, g.path);
  }

  const counts = { read: 0, write: 0, destructive: 0 };
  for (const o of visible) counts[o.risk]++;
  const claims = [...new Set(visible.flatMap((o) => o.card.scopes))].map((s) => ({ name: s, label: `Service scope ${s}` }));

  const manifest = manifestSchema.parse({
    namespace: ns,
    realm_type: "openapi",
    service_card: {
      title: realm.title,
      purpose: realm.description || `${realm.title}'s REST API, imported from its OpenAPI document: ${visible.length} operations.`,
      works_with: worksWith(host, realm.credential, visible.some((o) => o.card.auth_declared === true)),
      touches: [
        `Whatever ${realm.title}'s operations reach on ${host}: ${visible.length} operations (${counts.read} read, ${counts.write} write, ${counts.destructive} destructive).`,
      ],
      operation_labels: labels,
    },
    kinds: [
      {
        name: kind,
        label: "Operation result",
        one_liner: `What one call to ${realm.title} returned: its HTTP status and body (results are not stored).`,
        ref_pattern: "(results carry no ref)",
        fields: [
          { name: "status", type: "integer", description: "The service's HTTP status." },
          { name: "content_type", type: "string", description: "Media type of the body." },
          { name: "body", type: "object", description: "The JSON (or text) body, when small." },
          { name: "file", type: "file", description: "Large or binary bodies: a signed, short-lived download URL." },
        ],
        operations: [],
        filters: [],
      },
    ],
    selectors: [],
    actions,
    catalog: root,
    claims,
    rules: [
      `Each action is one ${realm.title} operation, named by its operationId exactly as written (or \`METHOD/path\` with the path's braces dropped — GET /items/{id} is \`GET/items/id\` — where it has none or an unusable one). There are ${visible.length}: find the right one with object_schema(query=…), read its contract with object_schema(namespace, operation="object.action.<name>"), then run object_action(namespace, action, payload).`,
      "The payload holds the operation's path, query and header parameters by name and its body fields (or `body` when the body is not a plain object); Realmgate builds the URL (percent-encoding every value: pass values plain), method and headers (Accept, Content-Type, the credential) itself.",
      "Small JSON or text results come back inline; large or binary ones as {file: {encoding: \"url\", url, expires_at}} — fetch it before it expires.",
      "A service that fails or times out answers provider_unavailable; nothing is retried for you.",
    ],
    delivery: { cursors: false, files: false },
  });

  const capabilityDocs = openApiCapabilityDocs(realm, visible, groupPath);
  return { manifest, capabilityDocs, contracts };
}

/** What the calls carry, in words: only what is configured, never a secret. */
export function credentialWords(credential: RealmRecord["credential"]): string | null {
  if (!credential?.configured) return null;
  switch (credential.type) {
    case "bearer":
      return "the owner's bearer token";
    case "header":
      return "the owner's API key, sent in a header";
    case "query":
      return "the owner's API key, sent in the query string";
    case "basic":
      return "the owner's user name and password (HTTP Basic)";
    default:
      return "the credential the owner configured";
  }
}

/** Where calls go and with what credential, truthfully; warns when the document asks for one and none is set. */
export function worksWith(host: string, credential: RealmRecord["credential"], authDeclared: boolean): string {
  const words = credentialWords(credential);
  if (words) return `${host}, called by Realmgate with ${words}.`;
  return authDeclared
    ? `${host}, called by Realmgate with no credential: none is configured, while the service's document declares security, so calls will likely be refused by the service until an owner adds a credential.`
    : `${host}, called by Realmgate with no credential (none is configured).`;
}

/** The most text an action's `returns` line spends on the response's shape. */
const MAX_RETURNS_CHARS = 2048;

/** What an action returns: the wire envelope, and the success response's status, media type and top-level shape when the document gives them. */
export function returnsText(contract: OperationContract): string {
  const envelope = "{status, content_type, body} from the service; large or binary bodies as {file: {encoding: \"url\", url, expires_at}}.";
  const r = contract.returns;
  if (!r) return envelope;
  let shape = r.shape ? JSON.stringify(r.shape) : "";
  if (shape.length > MAX_RETURNS_CHARS) shape = JSON.stringify({ type: r.shape!.type });
  const media = r.content_type ? ` ${r.content_type}` : "";
  const success = r.shape ? `On success: HTTP ${r.status}${media}, body of shape ${shape} (top level only).` : `On success: HTTP ${r.status}${media}${r.content_type ? "" : " with no body"}.`;
  return `${envelope} ${success}`;
}

/** The payload schema with each field's note (notes.ts) put first in its description; the stored contract is not changed. */
export function withFieldNotes(schema: OperationContract["input_schema"], notes: Record<string, string> | undefined): OperationContract["input_schema"] {
  if (!notes || !Object.keys(notes).length || typeof schema.properties !== "object" || schema.properties === null) return schema;
  const props = { ...(schema.properties as Record<string, Record<string, unknown>>) };
  for (const [field, note] of Object.entries(notes)) {
    const p = props[field];
    if (!p || typeof p !== "object") continue;
    const desc = typeof p.description === "string" ? p.description : "";
    props[field] = { ...p, description: desc ? `${note} (${desc})` : note };
  }
  return { ...schema, properties: props };
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the service";
  }
}
