// An agent's tool catalog as it is listed (tools/list, GET /api/v1/tools): the nine generic tools it could be
// granted, then its working set of exact tools, in a stable order (materialized first, first), within the slots
// and the tenant's byte budget; and materializing: object_schema(namespace, operation, materialize) adds one
// action's exact tool or removes it, and answers with the catalog proof. Calling an exact tool runs object_action
// (dispatch.ts, `exactToolCall`).
import { eq } from "drizzle-orm";
import type { Executor, Tx } from "@/db/client";
import { tenants, type WorkingSetTool } from "@/db/schema";
import { grantableOperations } from "@/lib/authz/allowed";
import type { ActorContext, AuthContext } from "@/lib/authz/context";
import { AppError } from "@/lib/errors";
import { actionOperationKey, type OperationKey, type Realm } from "@/lib/realms/contract";
import { findRealm, listRealms } from "@/lib/realms/registry";
import { catalogProof, DEFAULT_CATALOG_BUDGET_BYTES, fitting, planMaterialize, type CatalogProof, type Eviction, type HeldTool } from "@/lib/working-set/budget";
import { exactTool, objectActionInput, type ExactTool, type ExactToolEntry } from "@/lib/working-set/exact-tool";
import { EXACT_TOOL_NAME, exactToolName, GENERIC_TOOL_NAMES, hashedToolName } from "@/lib/working-set/names";
import { addTool, lockWorkingSet, readWorkingSet, removeTools, touchTool, takeExactTool, workingSetTtlMs } from "@/lib/working-set/store";
import type { ToolAnnotations } from "./define";
import { jsonBytes, toolsFrom, type ToolEntry } from "./catalog";
import { schemaOperation, TOOL_OF } from "./describe";

export type GenericListed = { entry: ToolEntry; annotations: ToolAnnotations };
type Held = HeldTool & { tool: ExactTool; createdAt: Date };
/** A row of the set that is not listed, and why: its realm or action is gone, the operation is turned off, or it no longer fits. */
export type Unlisted = { name: string; namespace: string; operation: string; reason: "gone" | "turned_off" | "over_budget" };

export type Catalog = {
  /** The tenant's realms and what the caller could be granted in each, as read for this catalog. */
  realms: Realm[];
  grantable: Map<string, ReadonlySet<OperationKey>>;
  generic: GenericListed[];
  /** The working set as listed, in listing order. */
  exact: ExactTool[];
  unlisted: Unlisted[];
  budget: number;
  proof: CatalogProof;
};

/** Bytes of a generic tool as MCP lists it (name, description, input schema, hints). */
const genericBytesOf = (g: GenericListed) => jsonBytes({ ...g.entry, annotations: g.annotations });

export async function catalogBudget(db: Executor, tenantId: string): Promise<number> {
  const [row] = await db.select({ b: tenants.catalogBudgetBytes }).from(tenants).where(eq(tenants.id, tenantId));
  return row?.b ?? DEFAULT_CATALOG_BUDGET_BYTES;
}

/** What the set's rows stand for now: their exact tools, or why a row is not listed. */
function heldOf(rows: WorkingSetTool[], realms: Realm[], grantable: Map<string, ReadonlySet<OperationKey>>) {
  const byNs = new Map(realms.map((r) => [r.manifest.namespace, r]));
  const held: Held[] = [];
  const unlisted: Unlisted[] = [];
  for (const row of rows) {
    const realm = byNs.get(row.namespace);
    const action = realm?.manifest.actions.find((a) => actionOperationKey(a.name) === row.operation);
    const base = { name: row.name, namespace: row.namespace, operation: row.operation };
    if (!realm || !action) unlisted.push({ ...base, reason: "gone" });
    else if (!grantable.get(row.namespace)?.has(row.operation as OperationKey)) unlisted.push({ ...base, reason: "turned_off" });
    else {
      const tool = exactTool(realm, action, row.name);
      held.push({ ...base, slot: tool.slot, bytes: tool.bytes, lastUsedAt: row.lastUsedAt, createdAt: row.createdAt, tool });
    }
  }
  return { held, unlisted };
}

const inListingOrder = (held: Held[]) => [...held].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.name.localeCompare(b.name));

function assemble(read: Pick<Catalog, "realms" | "grantable" | "generic">, held: Held[], unlisted: Unlisted[], budget: number): Catalog {
  const { generic } = read;
  const genericBytes = generic.reduce((n, g) => n + genericBytesOf(g), 0);
  const { fits, left } = fitting(held, genericBytes, budget);
  const exact = inListingOrder(fits);
  return {
    ...read,
    exact: exact.map((h) => h.tool),
    unlisted: [...unlisted, ...left.map((l) => ({ name: l.name, namespace: l.namespace, operation: l.operation, reason: "over_budget" as const }))],
    budget,
    proof: catalogProof(
      generic.map((g) => ({ name: g.entry.name, bytes: genericBytesOf(g) })),
      exact,
      budget,
    ),
  };
}

/** The caller's catalog as listed. A person has no working set: the generic tools only. */
export async function catalogOf(db: Executor, auth: AuthContext, now: Date, rows?: WorkingSetTool[]): Promise<Catalog> {
  const realms = await listRealms(db, auth.tenantId);
  const grantable = await grantableOperations(db, auth, realms);
  const read = { realms, grantable, generic: toolsFrom(realms, grantable) };
  if (auth.kind !== "actor") return assemble(read, [], [], await catalogBudget(db, auth.tenantId));
  const [set, budget] = await Promise.all([rows ?? readWorkingSet(db, { tenantId: auth.tenantId, actorId: auth.actorId }, now), catalogBudget(db, auth.tenantId)]);
  const { held, unlisted } = heldOf(set, realms, grantable);
  return assemble(read, held, unlisted, budget);
}

/** The listed tools, as GET /api/v1/tools answers: the generic entries, then the exact ones (with title and hints). */
export const listedTools = (c: Catalog): ((ToolEntry & { annotations: ToolAnnotations }) | ExactToolEntry)[] => [
  ...c.generic.map((g) => ({ ...g.entry, annotations: g.annotations })),
  ...c.exact.map((t) => t.entry),
];

/** How a REST client calls what `GET /api/v1/tools` lists (MCP clients use tools/call). */
export const REST_CALL =
  "POST /api/v1/tools/<name> with the tool's input as the JSON body and this request's Authorization header; the answer is the tool's result, or {error: {code, message, details}}.";

/** `GET /api/v1/tools`: how to call, then the tools as MCP's tools/list has them (hints included). */
export const restToolList = (c: Catalog) => ({ call: REST_CALL, tools: listedTools(c) });

const slotWord = { read: "read", write: "write-or-destructive" } as const;

/**
 * object_schema(namespace, operation, materialize): add the action's exact tool to the calling agent's working set
 * (true) or remove it (false), within the slots and the budget; the answer is the catalog proof. The operation is
 * one the caller could be granted (object_schema checked it); this runs in the call's transaction.
 */
export async function materialize(tx: Tx, auth: AuthContext, realm: Realm, operation: string, on: boolean, now: Date, note: (d: Record<string, unknown>) => void = () => {}) {
  if (auth.kind !== "actor") {
    throw new AppError("invalid_input", "Working sets belong to agents (an actor token or an MCP connection): as a person, call object_action with the exact contract.", {
      details: { field: "materialize" },
    });
  }
  const m = realm.manifest;
  if (!operation.startsWith("object.action.")) {
    throw new AppError("invalid_input", `Only actions (object.action.*) become exact tools; ${operation} is what ${toolNameOf(operation)} already does.`, {
      details: { field: "operation", operation },
    });
  }
  const action = m.actions.find((a) => actionOperationKey(a.name) === operation)!;
  const owner = { tenantId: auth.tenantId, actorId: auth.actorId };
  const rows = await lockWorkingSet(tx, owner, now);
  const before = await catalogOf(tx, auth, now, rows);
  const ttl = Math.round(workingSetTtlMs() / 1000);
  const existing = rows.find((r) => r.namespace === m.namespace && r.operation === operation);
  const answer = (extra: Record<string, unknown>, proof: CatalogProof) => ({ namespace: m.namespace, operation, ...extra, catalog: proof, idle_ttl_seconds: ttl });

  if (!on) {
    if (!existing) return answer({ removed: null, list_changed: false, note: `${operation} is not in your working set.` }, before.proof);
    await removeTools(tx, owner, [existing.name]);
    note({ working_set: { removed: existing.name } });
    const after = await catalogOf(tx, auth, now, rows.filter((r) => r !== existing));
    return answer({ removed: existing.name, list_changed: before.exact.some((t) => t.entry.name === existing.name) }, after.proof);
  }

  // Already there and listed: marked used, nothing else changes.
  if (existing && before.exact.some((t) => t.entry.name === existing.name)) {
    await touchTool(tx, owner, existing.name, now);
    const tool = before.exact.find((t) => t.entry.name === existing.name)!;
    return answer({ materialized: summary(tool), unchanged: true, evicted: [], list_changed: false, next: nextFor(tool) }, before.proof);
  }

  // The name: the realm's own for the action, hashed when another realm's tool in this set already has it.
  let name = existing?.name ?? exactToolName(m, action.name);
  if (rows.some((r) => r.name === name && !(r.namespace === m.namespace && r.operation === operation))) name = hashedToolName(m.namespace, action.name);
  const tool = exactTool(realm, action, name);
  const { held, unlisted } = heldOf(rows.filter((r) => r !== existing), before.realms, before.grantable);
  const genericBytes = before.proof.generic_bytes;
  const plan = planMaterialize(held, { name, namespace: m.namespace, operation, slot: tool.slot, bytes: tool.bytes }, genericBytes, before.budget);
  if (plan.outcome === "refused") {
    note({ working_set: { refused: name, bytes: tool.bytes } });
    return answer(
      {
        materialized: null,
        refused: {
          name,
          bytes: tool.bytes,
          reason: plan.reason,
          catalog_bytes_with_it: plan.catalogBytesWithIt,
          budget_bytes: before.budget,
          why: `${name} alone (${tool.bytes} bytes) with the generic tools (${genericBytes} bytes) would exceed the catalog budget of ${before.budget} bytes.`,
        },
        evicted: [],
        list_changed: false,
        instead: { how: "Call object_action with this contract; it runs the same operation through the same gates.", contract: schemaOperation(m, operation, undefined) },
      },
      before.proof,
    );
  }
  // What goes: evicted by the plan, and rows no longer listed (gone, turned off, over budget).
  const stale: Eviction[] = unlisted.map((u) => ({ name: u.name, namespace: u.namespace, operation: u.operation, reason: "over_budget" as const }));
  await removeTools(tx, owner, [...plan.evicted.map((e) => e.name), ...unlisted.map((u) => u.name), ...(existing ? [existing.name] : [])]);
  await addTool(tx, owner, { name, namespace: m.namespace, operation, slot: tool.slot }, now);
  const after = assemble(before, [...plan.kept, { name, namespace: m.namespace, operation, slot: tool.slot, bytes: tool.bytes, lastUsedAt: now, createdAt: now, tool }] as Held[], [], before.budget);
  const evicted = [...plan.evicted, ...stale.filter((s) => !plan.evicted.some((e) => e.name === s.name))].map((e) => ({
    ...e,
    ...(e.reason === "slot_full" ? { why: `a working set holds ${tool.slot === "read" ? "3 read tools" : "1 write-or-destructive tool"}; ${e.name} was the least recently used ${slotWord[tool.slot]} tool` } : {}),
  }));
  note({ working_set: { materialized: name, evicted: evicted.map((e) => e.name), catalog_bytes: after.proof.catalog_bytes } });
  return answer({ materialized: summary(tool), evicted, list_changed: true, next: nextFor(tool) }, after.proof);
}

const summary = (t: ExactTool) => ({ name: t.entry.name, title: t.entry.title, bytes: t.bytes, slot: t.slot, input_schema: t.entry.inputSchema });

const nextFor = (t: ExactTool) =>
  `Call ${t.entry.name} (MCP tools/call, or POST /api/v1/tools/${t.entry.name}) with ${t.action.target_kind ? "ref and " : ""}${t.nested ? "payload" : "the payload's fields"}; tools/list now lists it after the nine tools.`;

const toolNameOf = (op: string) => (Object.hasOwn(TOOL_OF, op) ? TOOL_OF[op]! : "one of the nine tools");

/**
 * A call of an exact tool: the object_action input it stands for, if the calling agent's live working set holds it
 * (marked used now). Otherwise not_found, saying whether it lapsed and how to get it back.
 */
export async function exactToolCall(db: Executor, auth: ActorContext, name: string, args: unknown, now: Date): Promise<{ input: Record<string, unknown>; tool: ExactTool }> {
  if (!EXACT_TOOL_NAME.test(name)) throw unknownTool(name, false, await actionsNamed(db, auth, name));
  if (GENERIC_TOOL_NAMES.has(name)) throw new Error(`${name} is a generic tool`);
  const hit = await takeExactTool(db, { tenantId: auth.tenantId, actorId: auth.actorId }, name, now);
  if ("missing" in hit) throw unknownTool(name, hit.expired, hit.expired ? [] : await actionsNamed(db, auth, name));
  const realm = await findRealm(db, auth.tenantId, hit.namespace);
  const action = realm?.manifest.actions.find((a) => actionOperationKey(a.name) === hit.operation);
  if (!realm || !action) {
    throw new AppError("not_found", `${name} stood for ${hit.operation} in ${hit.namespace}, which no longer exists.`, { details: { tool: name, namespace: hit.namespace, operation: hit.operation } });
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) throw new AppError("invalid_input", `${name} input must be a JSON object.`);
  const tool = exactTool(realm, action, name);
  return { input: objectActionInput(tool, args as Record<string, unknown>), tool };
}

/** The realms (among those the caller could be granted it in) with an action called exactly `name`: an agent that called an action as a tool. */
type ActionNamed = { namespace: string; action: string; target_kind: string | null; example: Record<string, unknown> };

async function actionsNamed(db: Executor, auth: ActorContext, name: string): Promise<ActionNamed[]> {
  const realms = (await listRealms(db, auth.tenantId)).filter((r) => r.manifest.actions.some((a) => a.name === name));
  if (!realms.length) return [];
  const grantable = await grantableOperations(db, auth, realms);
  const key = actionOperationKey(name);
  return realms
    .filter((r) => grantable.get(r.manifest.namespace)?.has(key))
    .slice(0, 5)
    .map((r) => {
      const a = r.manifest.actions.find((x) => x.name === name)!;
      // The call that works instead, ready to fill in: its payload as the realm's own example has it.
      return { namespace: r.manifest.namespace, action: name, target_kind: a.target_kind ?? null, example: { action: name, ...(a.target_kind ? { ref: `<ref of a ${a.target_kind}>` } : { namespace: r.manifest.namespace }), payload: a.example } };
    });
}

function unknownTool(name: string, expired: boolean, actions: ActionNamed[] = []) {
  const ttl = Math.round(workingSetTtlMs() / 60_000);
  const shown = name.slice(0, 60);
  const first = actions[0];
  // Called an action by its name: the one call that works is object_action with it.
  const asAction = first
    ? ` ${shown} is an action of ${actions.map((a) => a.namespace).join(", ")}: call object_action with action "${first.action}"${first.target_kind ? ` and the ${first.target_kind}'s ref` : ` and namespace "${first.namespace}"`}, or make it a tool with object_schema(namespace: "${first.namespace}", operation: "${actionOperationKey(first.action)}", materialize: true). details.use_object_action has the call, with an example payload.`
    : " Find an operation with object_schema(query), then object_schema(namespace, operation, materialize: true).";
  return new AppError(
    "not_found",
    expired
      ? `${shown} was in your working set, which lapsed after ${ttl} min unused. Materialize it again: object_schema(namespace, operation, materialize: true).`
      : `No tool "${shown}": it is not one of the nine tools nor in your working set.${asAction}`,
    {
      details: {
        tool: shown,
        unknown_tool: true,
        ...(expired ? { expired: true } : {}),
        ...(actions.length ? { use_object_action: actions } : {}),
        instructions: "object_schema(namespace, operation, materialize: true) adds an action's exact tool.",
      },
    },
  );
}
