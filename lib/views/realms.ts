// What the capability picker shows: each realm's service card with operation counts (the grid), and one
// realm's every operation in human words with its risk, claims, kind and the caller's ceiling/choice modes
// (off, ask, on; what the caller's agents get is the stricter of the two).
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { realmSettings, type Role } from "@/db/schema";
import { rankCapabilities } from "@/lib/catalog/search";
import { AppError } from "@/lib/errors";
import { defaultCeilingMode, effectiveMode, type OperationMode } from "@/lib/authz/modes";
import { closedDescriptions, operationStates, readCeiling, readChoices, readDestructiveDefault, readOpenDescription, readSelectedOnly, type OperationState } from "@/lib/authz/policy";
import { listAccounts, type AccountView } from "@/lib/connections/accounts";
import { operationKeysOf, riskOf, type CatalogNode, type OperationKey, type Realm, type RealmManifest, type Risk } from "@/lib/realms/contract";
import { listRealms, requireRealm } from "@/lib/realms/registry";

type Viewer = { tenantId: string; userId: string; role: Role };

export type RealmType = RealmManifest["realm_type"];

/**
 * Whether the realm needs a connected account and, if so, the state of the caller's accounts for it:
 * `connected` when one works, `needs_reconnect` when only broken ones exist, `not_connected` when none.
 * A connected realm that names no claims cannot be matched to accounts and answers `unknown`.
 */
export type ConnectionStatus =
  | { needed: false }
  | { needed: true; status: "unknown" | "connected" | "not_connected" | "needs_reconnect"; accounts: number };

export type RiskCounts = Record<Risk, number>;

export type RealmCardView = {
  namespace: string;
  realm_type: RealmType;
  title: string;
  purpose: string;
  works_with: string;
  touches: string[];
  kinds: { name: string; label: string; one_liner: string }[];
  connection: ConnectionStatus;
  operations: {
    /** Every operation the realm offers, the same number its operation list shows (the describing ones included). */
    total: number;
    /** Of those, the ones that let agents read what the realm is and offers (provider.about, object.schema). */
    describing: number;
    by_risk: RiskCounts;
    /** On for the caller's agents (the stricter of the ceiling and the caller's choice is on). */
    on_for_my_agents: number;
    /** In ask mode for the caller's agents: each call waits for a person's approval of that one call. */
    ask_for_my_agents: number;
    /** Turned off by the workspace owner. */
    off_by_owner: number;
    /** Turned off by the caller's own choice (while the ceiling allows them). */
    off_by_me: number;
    /** Labels of the first operations that ask (at most ASKING_NAMED, in operation order); the count is ask_for_my_agents. */
    asking: string[];
  };
  /** Human labels of every operation: the picker's search matches them. */
  operation_labels: string[];
  /** Why the realm cannot be used now (a remote provider whose manifest no longer validates), or null. */
  unavailable: string | null;
  /** Agents may read what the realm is and offers (provider.about, object.schema) without asking (owner's setting). */
  open_description: boolean;
  /** Agents act only on the actions they selected (added to their working set) in this realm (owner's setting, off by default). */
  selected_only: boolean;
};

export type OperationView = {
  key: OperationKey;
  label: string;
  description: string;
  risk: Risk;
  /** Connected-account claims the operation needs (gate two), with their labels. */
  claims: { name: string; label: string }[];
  /** Kinds the operation works on (labels); empty for realm-wide operations. */
  kinds: string[];
  /** Action name for `object.action.*`, else null. */
  action: string | null;
  /** The catalog area the operation belongs to (a top-level catalog group; for imported APIs their tag). */
  area: string;
} & Omit<OperationState, "operation">; // the owner's, the caller's and the effective mode (and "not off" for each)

/** A catalog area of the realm, in catalog order, with how many operations it holds. */
export type AreaView = { id: string; label: string; count: number };

export type RealmDetailView = {
  card: RealmCardView;
  operations: OperationView[];
  /** The operations' areas, in catalog order; every operation's `area` is one of these ids. */
  areas: AreaView[];
  /** What the viewer may change here: owners the ceiling and their own choices, members their choices. */
  can_change: { ceiling: boolean; choice: boolean };
};

const BASE_DESCRIPTIONS: Record<string, string> = {
  "provider.about": "Learn what this realm is, its kinds and how to use it.",
  "object.schema": "Look up capabilities, kinds and the exact contract of an operation.",
  "object.list": "Browse items in collections, page by page.",
  "object.search": "Find items by words and filters.",
  "object.get": "Read one item.",
  "object.upsert": "Create new items or change existing ones.",
  "object.delete": "Destroy one item.",
  "file.host": "Upload a file into the realm.",
};

/** A connected realm's accounts are those of the connection API its manifest names (`connection.api`). */
function connectionOf(m: RealmManifest, accounts: AccountView[]): ConnectionStatus {
  if (m.realm_type !== "connected") return { needed: false };
  const api = m.connection?.api;
  if (!api) return { needed: true, status: "unknown", accounts: 0 };
  const mine = accounts.filter((a) => a.api === api);
  const status = mine.some((a) => a.status === "active") ? "connected" : mine.some((a) => a.status === "needs_reconnect") ? "needs_reconnect" : "not_connected";
  return { needed: true, status, accounts: mine.length };
}

/** The caller's live accounts, read only when some realm needs them. */
const accountsFor = (db: Executor, who: Viewer, realms: Realm[]) =>
  realms.some((r) => r.manifest.realm_type === "connected") ? listAccounts(db, who) : Promise.resolve([]);

/** The operations that describe the realm rather than act in it. */
export const DESCRIBING: readonly OperationKey[] = ["provider.about", "object.schema"];

const emptyRisk = (): RiskCounts => ({ read: 0, write: 0, destructive: 0 });

/** How many asking operations a card names before "and N more". */
export const ASKING_NAMED = 3;

/** One operation's modes for the caller: the owner's (default included), the caller's own, and the stricter. */
type Modes = { ceiling: OperationMode; choice: OperationMode; mode: OperationMode };

/**
 * The card's counts: each operation counted once, by what decides it — off by the owner, else off by the caller,
 * else on or ask for the caller's agents. The realm page recounts the same way as switches change
 * (components/realms/operation-changes.ts countsOf).
 */
function countModes(ops: { label: string; modes: Modes }[]) {
  const c = { on_for_my_agents: 0, ask_for_my_agents: 0, off_by_owner: 0, off_by_me: 0, asking: [] as string[] };
  for (const { label, modes } of ops) {
    if (modes.ceiling === "off") c.off_by_owner++;
    else if (modes.mode === "off") c.off_by_me++;
    else if (modes.mode === "ask") {
      c.ask_for_my_agents++;
      if (c.asking.length < ASKING_NAMED) c.asking.push(label);
    } else c.on_for_my_agents++;
  }
  return c;
}

function cardOf(realm: Realm, modesOf: (op: OperationKey) => Modes, accounts: AccountView[], openDescription: boolean, selectedOnly: boolean): RealmCardView {
  const m = realm.manifest;
  const ops = operationKeysOf(m);
  const by_risk = emptyRisk();
  for (const op of ops) by_risk[riskOf(m, op)]++;
  const counts = {
    total: ops.length,
    describing: ops.filter((o) => DESCRIBING.includes(o)).length,
    by_risk,
    ...countModes(ops.map((op) => ({ label: m.service_card.operation_labels[op] ?? op, modes: modesOf(op) }))),
  };
  return {
    namespace: m.namespace,
    realm_type: m.realm_type,
    title: m.service_card.title,
    purpose: m.service_card.purpose,
    works_with: m.service_card.works_with,
    touches: m.service_card.touches,
    kinds: m.kinds.map((k) => ({ name: k.name, label: k.label, one_liner: k.one_liner })),
    connection: connectionOf(m, accounts),
    operations: counts,
    operation_labels: ops.map((op) => m.service_card.operation_labels[op] ?? op),
    unavailable: realm.unavailable?.reason ?? null,
    open_description: openDescription,
    selected_only: selectedOnly,
  };
}

/** The realms of the caller's workspace, as service cards, sorted by title. */
export async function realmCards(db: Executor, who: Viewer): Promise<RealmCardView[]> {
  const [realms, ceiling, choices, closed, destructiveDefault, selected] = await Promise.all([
    listRealms(db, who.tenantId),
    readCeiling(db, who.tenantId),
    readChoices(db, who.tenantId, who.userId),
    closedDescriptions(db, who.tenantId),
    readDestructiveDefault(db, who.tenantId),
    db.select({ namespace: realmSettings.namespace }).from(realmSettings).where(and(eq(realmSettings.tenantId, who.tenantId), eq(realmSettings.selectedOnly, true))),
  ]);
  const selectedOnly = new Set(selected.map((r) => r.namespace));
  const ceilingOf = new Map(ceiling.map((r) => [`${r.namespace} ${r.operation}`, r.mode]));
  const choiceOf = new Map(choices.map((r) => [`${r.namespace} ${r.operation}`, r.mode]));
  const accounts = await accountsFor(db, who, realms);
  return realms
    .map((r) => {
      const m = r.manifest;
      // No owner row: the tenant's default (a destructive operation of a new tenant asks); no choice row: no narrowing.
      const modesOf = (op: OperationKey): Modes => {
        const risk = riskOf(m, op);
        const c = ceilingOf.get(`${m.namespace} ${op}`) ?? null;
        const u = choiceOf.get(`${m.namespace} ${op}`) ?? null;
        return { ceiling: c ?? defaultCeilingMode(risk, destructiveDefault), choice: u ?? "on", mode: effectiveMode(c, u, risk, destructiveDefault) };
      };
      return cardOf(r, modesOf, accounts, !closed.has(m.namespace), selectedOnly.has(m.namespace));
    })
    .sort((a, b) => a.title.localeCompare(b.title));
}

const ABOUT_AREA: AreaView = { id: "about", label: "About this realm", count: 0 };
const OTHER_AREA: AreaView = { id: "other", label: "Other", count: 0 };

/**
 * Each operation's area: the top-level catalog groups (children of the manifest's catalog; an imported API's
 * tags), in catalog order. The describing operations form "About this realm"; what no group names is "Other".
 * A realm whose catalog has no groups is one area, named after it.
 */
export function areasOf(m: RealmManifest): { areas: AreaView[]; areaOf: (op: OperationKey) => string } {
  const ops = operationKeysOf(m);
  const byOp = new Map<string, string>();
  const groups: AreaView[] = [];
  const collect = (n: CatalogNode, acc: Set<string>) => {
    for (const o of n.operations) acc.add(o);
    n.children.forEach((c) => collect(c, acc));
  };
  for (const child of m.catalog.children) {
    const id = child.path.replace(/^\//, "").replace(/\//g, "-") || "root";
    const acc = new Set<string>();
    collect(child, acc);
    for (const o of acc) if (!byOp.has(o) && !DESCRIBING.includes(o as OperationKey)) byOp.set(o, id);
    groups.push({ id, label: child.label, count: 0 });
  }
  const single: AreaView = { id: "all", label: m.service_card.title, count: 0 };
  const areaOf = (op: OperationKey) => (DESCRIBING.includes(op) ? ABOUT_AREA.id : (byOp.get(op) ?? (groups.length ? OTHER_AREA.id : single.id)));
  const all = [{ ...ABOUT_AREA }, ...groups, groups.length ? { ...OTHER_AREA } : single];
  const count = new Map(all.map((a) => [a.id, a]));
  for (const op of ops) count.get(areaOf(op))!.count++;
  return { areas: all.filter((a) => a.count > 0), areaOf };
}

/** One operation of a manifest in human words (no toggle state, no area). */
export function describeOperation(m: RealmManifest, op: OperationKey): Omit<OperationView, "ceiling" | "choice" | "effective" | "ceiling_mode" | "choice_mode" | "mode" | "area"> {
  const claimLabel = new Map(m.claims.map((c) => [c.name, c.label]));
  const kindLabel = new Map(m.kinds.map((k) => [k.name, k.label]));
  const label = m.service_card.operation_labels[op] ?? op;
  if (op.startsWith("object.action.")) {
    const name = op.slice("object.action.".length);
    const action = m.actions.find((a) => a.name === name);
    return {
      key: op,
      label,
      description: action?.description ?? label,
      risk: riskOf(m, op),
      claims: (action?.claims ?? []).map((c) => ({ name: c, label: claimLabel.get(c) ?? c })),
      kinds: action?.target_kind ? [kindLabel.get(action.target_kind) ?? action.target_kind] : [],
      action: name,
    };
  }
  return {
    key: op,
    label,
    description: BASE_DESCRIPTIONS[op] ?? label,
    risk: riskOf(m, op),
    claims: [],
    kinds: m.kinds.filter((k) => (k.operations as string[]).includes(op)).map((k) => k.label),
    action: null,
  };
}

/** One realm: its card and every operation with the caller's ceiling, choice and effective mode. */
export async function realmDetail(db: Executor, who: Viewer, namespace: string): Promise<RealmDetailView> {
  const realm = await requireRealm(db, who.tenantId, namespace);
  const states = await operationStates(db, who.tenantId, who.userId, namespace);
  const byOp = new Map(states.map((s) => [s.operation as string, { ceiling: s.ceiling_mode, choice: s.choice_mode, mode: s.mode }]));
  const modesOf = (op: OperationKey): Modes => byOp.get(op) ?? { ceiling: "on", choice: "on", mode: "on" };
  const { areas, areaOf } = areasOf(realm.manifest);
  return {
    card: cardOf(realm, modesOf, await accountsFor(db, who, [realm]), await readOpenDescription(db, who.tenantId, namespace), await readSelectedOnly(db, who.tenantId, namespace)),
    operations: states.map((s) => ({
      ...describeOperation(realm.manifest, s.operation),
      area: areaOf(s.operation),
      ceiling: s.ceiling,
      choice: s.choice,
      effective: s.effective,
      ceiling_mode: s.ceiling_mode,
      choice_mode: s.choice_mode,
      mode: s.mode,
    })),
    areas,
    can_change: { ceiling: who.role === "owner", choice: who.role !== "support" },
  };
}

export type OperationWords = { title: string; operations: Record<string, { label: string; risk: Risk }> };

/** Human words for the operations of some realms, or all of them; unknown namespaces are skipped. */
export async function operationWords(db: Executor, tenantId: string, namespaces: Iterable<string> | "all"): Promise<Record<string, OperationWords>> {
  const wanted = namespaces === "all" ? null : new Set(namespaces);
  const out: Record<string, OperationWords> = {};
  if (wanted?.size === 0) return out;
  for (const realm of await listRealms(db, tenantId)) {
    const m = realm.manifest;
    if (wanted && !wanted.has(m.namespace)) continue;
    const operations: OperationWords["operations"] = {};
    for (const op of operationKeysOf(m)) operations[op] = { label: m.service_card.operation_labels[op] ?? op, risk: riskOf(m, op) };
    out[m.namespace] = { title: m.service_card.title, operations };
  }
  return out;
}

/** A ranked search's answer: operation keys, best first, and whether the ranker was sure. */
export type RankedOperationsView = { namespace: string; query: string; operations: OperationKey[]; confidence: "high" | "low" };

/** Longest query a person may rank by. */
export const MAX_RANK_QUERY = 200;

/**
 * One realm's operations ranked for what a person typed: the capability ranker object_schema(query) uses
 * (lexical: lemmas, everyday verbs, entity words), over this realm alone. Every operation of the realm may be
 * ranked (the picker shows them all, ceiling-blocked ones marked), so no grant filter applies.
 */
export async function rankRealmOperations(db: Executor, who: Viewer, namespace: string, query: string, limit = 50): Promise<RankedOperationsView> {
  const q = query.trim();
  if (q.length > MAX_RANK_QUERY) throw new AppError("invalid_input", `A search is at most ${MAX_RANK_QUERY} characters.`);
  const realm = await requireRealm(db, who.tenantId, namespace);
  if (!q) return { namespace, query: q, operations: [], confidence: "low" };
  const known = new Set<string>(operationKeysOf(realm.manifest));
  const answer = rankCapabilities([realm], q, { limit });
  const seen = new Set<string>();
  const operations: OperationKey[] = [];
  for (const m of answer.matches) {
    if (!known.has(m.operation) || seen.has(m.operation)) continue;
    seen.add(m.operation);
    operations.push(m.operation as OperationKey);
  }
  return { namespace, query: q, operations, confidence: answer.confidence };
}
