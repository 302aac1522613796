// What provider_about and object_schema say: rendered from realm manifests, compact. Every realm the caller could
// be granted is named; what it may not use yet is marked needs_grant (calling it answers consent_required with a
// link), and what is turned off for it is left out.
import type { Executor } from "@/db/client";
import { MAX_FILE_BYTES } from "@/lib/delivery/files";
import { searchCapabilitiesByMode, type SearchMode } from "@/lib/catalog/semantic";
import { dbVectorStore } from "@/lib/catalog/vector-store";
import { AppError } from "@/lib/errors";
import { riskOf, type CatalogNode, type OperationKey, type Realm, type RealmManifest } from "@/lib/realms/contract";

type Allowed = Map<string, ReadonlySet<OperationKey>>;

const has = (m: Allowed, ns: string, op: string) => m.get(ns)?.has(op as OperationKey) ?? false;
/** Realms the caller could be granted something in (for a person: all). */
const grantableRealms = (realms: Realm[], grantable: Allowed) => realms.filter((r) => (grantable.get(r.manifest.namespace)?.size ?? 0) > 0);

const DENIAL_SHAPES =
  "Denials are answers: error.code says which wall (operation_disabled, consent_required, grant_expired, grant_revoked, needs_connected_account_consent, realm_denied); details name who can open it, a URL (connection_hub_url or url), retry_hint and instructions to relay to the user.";

/**
 * What every tool does alike, said once in provider_about() (the realm list) rather than in each tool's
 * description or each realm's about: the tool catalog is sent on every turn and kept small (catalog-size.test.ts).
 */
export const TOOL_RULES = [
  "Refs are opaque: pass them back exactly as returned.",
  "Every tool you could be granted is listed, whatever you hold now: without a grant a call is a denial (consent_required, a link for your user to approve), not a missing tool; object_schema marks such operations needs_grant.",
  "A selector (get_object, object_action, with the kind) names an object instead of its ref; several matches return ambiguous_selector with choices: pick one ref and call again.",
  "list_objects and search_objects page 20 items unless limit: pass next_cursor back as cursor, other inputs unchanged, until it is null; a cursor from another caller or listing is invalid_cursor.",
  "Files, attachments and exports come back as {encoding: \"url\", url, expires_at}: fetch the URL before it expires.",
  "idempotency_key (object_action, upsert_object, host_file; 8–128 printable ASCII): a retry with the same key and input replays the first result; with other input it is idempotency_conflict.",
  "Operations marked ask_each_time need a person's approval of each call: the call answers approval_required (nothing ran) with approval_url for your user; once approved, send the same call again with its approval_id added — it runs once, and repeating it returns the same result. A changed input is approval_mismatch.",
  "object_schema(namespace, operation, materialize: true) adds that action to your working set as an exact tool, listed after the nine tools (MCP clients are told the list changed) and run exactly as object_action: at most 3 read and 1 write tool within the catalog's byte budget; the answer's catalog proof says what was evicted or refused and what to do instead. materialize: false removes it; a set unused for idle_ttl_seconds lapses.",
  "object_schema(query) search_mode: auto (default) runs hybrid if the server has embeddings, else lexical; mode_ran says which ran, fallback why an asked mode could not.",
] as const;

/** Said where a realm is listed but its description needs a grant (the owner closed it). */
export const DESCRIPTION_NEEDS_GRANT =
  "Realms marked needs_grant describe themselves only with your user's approval: call provider_about(namespace) or object_schema(namespace) anyway — the answer is consent_required with a link.";

/** Said where describing a listed realm is turned off for the caller (by the owner's ceiling or its user's choice). */
export const DESCRIPTION_OFF = "Realms marked description_off are listed, but describing them is turned off for you (operation_disabled): ask your user if you need them.";

export function aboutRoot(realms: Realm[], allowed: Allowed, grantable: Allowed = allowed) {
  const listed = grantableRealms(realms, grantable).map((r) => {
    const ns = r.manifest.namespace;
    const mark = has(allowed, ns, "provider.about") ? {} : has(grantable, ns, "provider.about") ? { needs_grant: true } : { description_off: true };
    return { namespace: ns, title: r.manifest.service_card.title, purpose: r.manifest.service_card.purpose, ...mark };
  });
  return {
    realms: listed,
    rules: [...TOOL_RULES, DENIAL_SHAPES],
    ...(listed.some((r) => "needs_grant" in r) ? { note: DESCRIPTION_NEEDS_GRANT } : {}),
    ...(listed.some((r) => "description_off" in r) ? { description_off_note: DESCRIPTION_OFF } : {}),
    next: "provider_about(namespace) to learn a realm; object_schema(query) to find a capability across realms.",
  };
}

/** provider_about lists at most this many actions of a realm. */
export const ABOUT_ACTIONS_CAP = 30;

type ActionLine = { action: string; label: string; on: string; risk: string };

const NONE: ReadonlySet<OperationKey> = new Set();

/**
 * A kind's operations as the caller stands with them: usable now (`operations`), asking a person each call
 * (`ask_each_time`), or needing a grant first (`needs_grant`); what is turned off for the caller is left out.
 */
function kindOperations(ops: readonly OperationKey[], allowed: ReadonlySet<OperationKey>, grantable: ReadonlySet<OperationKey>, asking: ReadonlySet<OperationKey>) {
  const each = ops.filter((o) => !allowed.has(o) && asking.has(o));
  const ask = ops.filter((o) => !allowed.has(o) && !asking.has(o) && grantable.has(o));
  return { operations: ops.filter((o) => allowed.has(o)), ...(each.length ? { ask_each_time: each } : {}), ...(ask.length ? { needs_grant: ask } : {}) };
}

/** How an operation is marked for the caller: usable now (nothing), each call asks a person, or a grant is needed. */
export const markOf = (op: OperationKey, allowed: ReadonlySet<OperationKey>, asking: ReadonlySet<OperationKey>) =>
  allowed.has(op) ? {} : asking.has(op) ? { ask_each_time: true as const } : { needs_grant: true as const };

export function aboutRealm(m: RealmManifest, allowed: ReadonlySet<OperationKey>, grantable: ReadonlySet<OperationKey> = allowed, asking: ReadonlySet<OperationKey> = NONE) {
  // Actions grouped by what the caller may do with them; those turned off for it are left out.
  const line = (a: RealmManifest["actions"][number]): ActionLine => ({ action: a.name, label: a.label, on: a.target_kind ?? "namespace", risk: a.risk });
  const usable: ActionLine[] = [];
  const asked: ActionLine[] = [];
  const askable: ActionLine[] = [];
  let total = 0;
  for (const a of m.actions) {
    const key = `object.action.${a.name}` as OperationKey;
    const group = allowed.has(key) ? usable : asking.has(key) ? asked : grantable.has(key) ? askable : null;
    if (!group) continue;
    total++;
    if (usable.length + asked.length + askable.length < ABOUT_ACTIONS_CAP) group.push(line(a));
  }
  return {
    namespace: m.namespace,
    title: m.service_card.title,
    purpose: m.service_card.purpose,
    works_with: m.service_card.works_with,
    touches: m.service_card.touches,
    kinds: m.kinds.map((k) => ({ kind: k.name, about: k.one_liner, ref: k.ref_pattern, ...kindOperations(k.operations, allowed, grantable, asking) })),
    selectors: m.selectors.map((s) => ({ kind: s.kind, by: s.by })),
    actions: { allowed: usable, ...(asked.length ? { ask_each_time: asked } : {}), ...(askable.length ? { needs_grant: askable } : {}) },
    // Imported services can have a thousand operations: list a few, and say how to find the rest.
    ...(total > ABOUT_ACTIONS_CAP
      ? { actions_total: total, more_actions: `Only ${ABOUT_ACTIONS_CAP} of ${total} actions are listed: find one with object_schema(query=…), or browse object_schema(namespace, schema_path).` }
      : {}),
    ...(askable.length || m.kinds.some((k) => k.operations.some((o) => !allowed.has(o) && !asking.has(o) && grantable.has(o))) ? { note: NEEDS_GRANT_HINT } : {}),
    ...(asking.size ? { ask_note: ASK_EACH_TIME_HINT } : {}),
    rules: [
      m.delivery.files ? `host_file stores a file here (at most ${MAX_FILE_BYTES} bytes, sent as base64) and returns its ref.` : "This realm does not accept host_file.",
      ...m.rules,
      "The rules every tool follows (refs, selectors, paging, files, idempotency, denials) are in provider_about() without a namespace.",
    ],
  };
}

const nodeSummary = (n: CatalogNode) => ({ path: n.path, label: n.label, description: n.description });

export function findNode(root: CatalogNode, path: string): CatalogNode | null {
  const norm = path === "/" ? "/" : `/${path.replace(/^\/+|\/+$/g, "")}`;
  if (root.path === norm) return root;
  for (const c of root.children) {
    const hit = findNode(c, norm);
    if (hit) return hit;
  }
  return null;
}

/** Said of an operation in ask mode. */
export const ASK_EACH_TIME_HINT =
  "Operations marked ask_each_time need your user's approval of each call: call them — the answer is approval_required with a link; once approved, retry the same call with approval_id added.";

/** Said of an operation the caller could be granted but holds no grant for. */
export const NEEDS_GRANT_HINT =
  "Operations marked needs_grant exist and may be granted to you: call them anyway — the answer is consent_required with a link where your user approves exactly that, then retry.";

export function schemaNode(m: RealmManifest, path: string, allowed: ReadonlySet<OperationKey>, grantable: ReadonlySet<OperationKey> = allowed, asking: ReadonlySet<OperationKey> = NONE) {
  const node = findNode(m.catalog, path);
  if (!node) {
    throw new AppError("not_found", `No catalog node ${path} in ${m.namespace}.`, {
      details: { namespace: m.namespace, schema_path: path, children_of_root: m.catalog.children.map((c) => c.path) },
    });
  }
  return {
    namespace: m.namespace,
    ...nodeSummary(node),
    kinds: node.kinds,
    operations: node.operations
      .filter((o) => grantable.has(o as OperationKey))
      .map((o) => ({
        operation: o,
        label: m.service_card.operation_labels[o] ?? o,
        risk: riskOf(m, o as OperationKey),
        ...markOf(o as OperationKey, allowed, asking),
      })),
    children: node.children.map(nodeSummary),
    ...(node.operations.some((o) => grantable.has(o as OperationKey) && !allowed.has(o as OperationKey) && !asking.has(o as OperationKey)) ? { note: NEEDS_GRANT_HINT } : {}),
    ...(node.operations.some((o) => asking.has(o as OperationKey)) ? { ask_note: ASK_EACH_TIME_HINT } : {}),
  };
}

export function schemaRoot(realms: Realm[], allowed: Allowed, grantable: Allowed = allowed) {
  const listed = grantableRealms(realms, grantable).map((r) => {
    const ns = r.manifest.namespace;
    if (has(allowed, ns, "object.schema")) return { namespace: ns, title: r.manifest.service_card.title, catalog: r.manifest.catalog.children.map((c) => ({ path: c.path, label: c.label })) };
    return { namespace: ns, title: r.manifest.service_card.title, ...(has(grantable, ns, "object.schema") ? { needs_grant: true } : { description_off: true }) };
  });
  return {
    realms: listed,
    ...(listed.some((r) => "needs_grant" in r) ? { note: DESCRIPTION_NEEDS_GRANT } : {}),
    ...(listed.some((r) => "description_off" in r) ? { description_off_note: DESCRIPTION_OFF } : {}),
    next: "object_schema(namespace, schema_path) to browse; object_schema(query) to search; object_schema(namespace, operation) for an exact contract.",
  };
}

/** The tool that runs each base operation. */
export const TOOL_OF: Record<string, string> = {
  "provider.about": "provider_about",
  "object.schema": "object_schema",
  "object.list": "list_objects",
  "object.search": "search_objects",
  "object.get": "get_object",
  "object.upsert": "upsert_object",
  "object.delete": "delete_object",
  "file.host": "host_file",
};

/**
 * How to call a capability, compactly, so an agent can act on the top match without reading its contract first:
 * the tool, what it runs on (a kind and the selectors that name one), and the payload's or fields' example. The
 * exact contract is still object_schema(namespace, operation).
 */
export function howToCall(m: RealmManifest, kind: string | null, op: string): Record<string, unknown> | undefined {
  const selectors = (k: string) => m.selectors.filter((s) => s.kind === k).map((s) => s.by);
  // What names the object it runs on: its ref, or one of the kind's selectors (none: only the ref an earlier answer gave).
  const target = (k: string) => (selectors(k).length ? { ref_or_selector: selectors(k) } : { ref: `the ${k} ref an earlier answer gave` });
  if (op.startsWith("object.action.")) {
    const a = m.actions.find((x) => x.name === op.slice("object.action.".length));
    if (!a) return undefined;
    const on = a.target_kind ? { kind: a.target_kind, ...target(a.target_kind) } : { namespace: m.namespace };
    return { tool: "object_action", action: a.name, ...on, payload: a.example, ...(a.claims.length ? { claims: a.claims } : {}) };
  }
  const tool = TOOL_OF[op];
  if (!tool) return undefined;
  const k = kind ? m.kinds.find((x) => x.name === kind) : undefined;
  if (!k) return { tool, namespace: m.namespace };
  switch (op) {
    case "object.upsert": {
      const writable = k.fields.filter((f) => f.writable);
      return { tool, kind: k.name, fields: Object.fromEntries(writable.map((f) => [f.name, `${f.type}${f.required ? ", required" : ""}`])) };
    }
    case "object.search":
    case "object.list":
      return { tool, kind: k.name, ...(k.filters.length ? { filters: k.filters } : {}) };
    case "object.get":
    case "object.delete":
      return { tool, kind: k.name, ...target(k.name) };
    default:
      return { tool, namespace: m.namespace };
  }
}

/**
 * Capability search across the given realms, in the asked mode (lexical, semantic, hybrid or auto). The answer
 * always says the mode that ran, and with `fallback` why the asked one could not. `db` lets the embeddings
 * cache read join the caller's transaction.
 */
export async function schemaQuery(
  realms: Realm[],
  allowed: Allowed,
  query: string,
  opts: { limit?: number; asked?: SearchMode; db?: Executor; grantable?: Allowed; asking?: Allowed },
) {
  // Realms the caller may search (object.schema is open to it there, or granted); within them, every operation it
  // could be granted, the ungranted ones marked, so the right operation is never silently missing. Realms it could
  // be granted but whose description needs a grant first are named, not searched.
  const grantable = opts.grantable ?? allowed;
  const candidates = grantableRealms(realms, grantable);
  const searchable = candidates.filter((r) => has(allowed, r.manifest.namespace, "object.schema"));
  const notSearched = candidates
    .filter((r) => !has(allowed, r.manifest.namespace, "object.schema"))
    .map((r) => ({ namespace: r.manifest.namespace, title: r.manifest.service_card.title, ...(has(grantable, r.manifest.namespace, "object.schema") ? { needs_grant: true } : { description_off: true }) }));
  const answer = await searchCapabilitiesByMode(searchable, query, {
    mode: opts.asked,
    limit: opts.limit ?? 8,
    filter: (mt) => grantable.get(mt.namespace)?.has(mt.operation as OperationKey) ?? false,
    store: dbVectorStore(opts.db),
  });
  const matches: Record<string, unknown>[] = answer.matches.map((mt) => ({
    ...mt,
    ...markOf(mt.operation as OperationKey, allowed.get(mt.namespace) ?? NONE, opts.asking?.get(mt.namespace) ?? NONE),
  }));
  // The top match says how to call it.
  const top = answer.matches[0];
  const topRealm = top ? searchable.find((r) => r.manifest.namespace === top.namespace) : undefined;
  const how = top && topRealm ? howToCall(topRealm.manifest, top.kind ?? null, top.operation) : undefined;
  if (how) matches[0] = { ...matches[0], how };
  return {
    query,
    mode_ran: answer.mode_ran,
    ...(answer.fallback ? { fallback: answer.fallback } : {}),
    matches,
    ...(matches.some((mt) => "needs_grant" in mt) ? { note: NEEDS_GRANT_HINT } : {}),
    ...(matches.some((mt) => "ask_each_time" in mt) ? { ask_note: ASK_EACH_TIME_HINT } : {}),
    confidence: answer.confidence,
    ...(answer.reason ? { confidence_reason: answer.reason } : {}),
    ...(answer.alternatives ? { alternatives: answer.alternatives } : {}),
    ...(notSearched.length ? { not_searched: notSearched, not_searched_note: DESCRIPTION_NEEDS_GRANT } : {}),
    next: "object_schema(namespace, operation) for the exact contract of a match.",
  };
}

export function schemaKind(m: RealmManifest, kindName: string, allowed: ReadonlySet<OperationKey>, grantable: ReadonlySet<OperationKey> = allowed, asking: ReadonlySet<OperationKey> = NONE) {
  const kind = m.kinds.find((k) => k.name === kindName);
  if (!kind) throw new AppError("not_found", `No kind ${kindName} in ${m.namespace}.`, { details: { known_kinds: m.kinds.map((k) => k.name) } });
  const ops = kindOperations(kind.operations, allowed, grantable, asking);
  const actions = m.actions
    .filter((a) => a.target_kind === kind.name && grantable.has(`object.action.${a.name}` as OperationKey))
    .map((a) => ({ action: a.name, label: a.label, risk: a.risk, ...markOf(`object.action.${a.name}` as OperationKey, allowed, asking) }));
  const marked = [ops, ...actions];
  return {
    kind: kind.name,
    label: kind.label,
    about: kind.one_liner,
    ref: kind.ref_pattern,
    fields: kind.fields,
    filters: kind.filters,
    ...ops,
    selectors: m.selectors.filter((s) => s.kind === kind.name).map((s) => ({ by: s.by, description: s.description })),
    actions,
    ...(marked.some((x) => "needs_grant" in x) ? { note: NEEDS_GRANT_HINT } : {}),
    ...(marked.some((x) => "ask_each_time" in x) ? { ask_note: ASK_EACH_TIME_HINT } : {}),
  };
}

/** One operation's contract; `tool`: the tool of a base operation, with its input's JSON Schema. */
export function schemaOperation(m: RealmManifest, op: string, tool: { name: string; inputSchema: Record<string, unknown> } | undefined) {
  if (op.startsWith("object.action.")) {
    const action = m.actions.find((a) => a.name === op.slice(14));
    if (!action) throw new AppError("not_found", `No operation ${op} in ${m.namespace}.`, { details: { known_actions: m.actions.slice(0, 50).map((a) => a.name), actions_total: m.actions.length } });
    return {
      operation: op,
      tool: "object_action",
      action: action.name,
      label: action.label,
      description: action.description,
      on: action.target_kind ?? "namespace",
      risk: action.risk,
      claims: action.claims,
      payload_schema: action.payload_schema,
      example: {
        action: action.name,
        ...(action.target_kind ? { ref: `<ref of a ${action.target_kind}>` } : { namespace: m.namespace }),
        payload: action.example,
      },
      returns: action.returns,
    };
  }
  const label = Object.hasOwn(m.service_card.operation_labels, op) ? m.service_card.operation_labels[op] : undefined;
  if (!tool || !label) {
    throw new AppError("not_found", `No operation ${op} in ${m.namespace}.`, { details: { namespace: m.namespace } });
  }
  return {
    operation: op,
    tool: tool.name,
    label,
    risk: riskOf(m, op as OperationKey),
    claims: [],
    input_schema: tool.inputSchema,
    kinds: m.kinds.filter((k) => (k.operations as string[]).includes(op)).map((k) => k.name),
  };
}
