// One agent's working set as the person it acts for sees it on the Agents page: the catalog proof computed as
// that agent (the same numbers object_schema(materialize) answers it with), each exact tool by its title and
// realm, its size and when it was last used, when the set lapses, the tools it holds that are not listed and why,
// and the budget. The agent's grantor reads it (as the Agents page lists only one's own agents) and may remove a
// tool from it; support staff never change it.
import type { Db, Executor } from "@/db/client";
import type { Actor, WorkingSetSlot, WorkingSetTool } from "@/db/schema";
import { recordChange } from "@/lib/audit/record";
import { actorForGrantor } from "@/lib/authz/actors";
import type { ActorContext, UserContext } from "@/lib/authz/context";
import { AppError } from "@/lib/errors";
import { actionOperationKey, type Realm, type Risk } from "@/lib/realms/contract";
import { catalogOf, type Unlisted } from "@/lib/tools/working-set";
import { DEFAULT_CATALOG_BUDGET_BYTES, MAX_CATALOG_BUDGET_BYTES, MIN_CATALOG_BUDGET_BYTES, type CatalogProof } from "@/lib/working-set/budget";
import { EXACT_TOOL_NAME } from "@/lib/working-set/names";
import { lockWorkingSet, readWorkingSet, removeTools, workingSetTtlMs } from "@/lib/working-set/store";

type Viewer = Pick<UserContext, "tenantId" | "userId" | "role" | "requestId">;

export type WorkingSetToolView = {
  /** The exact tool's name, as the agent calls it. */
  name: string;
  /** The action's label. */
  title: string;
  namespace: string;
  realm_title: string;
  operation: string;
  slot: WorkingSetSlot;
  risk: Risk;
  bytes: number;
  added_at: string;
  last_used_at: string;
};

export type UnlistedToolView = {
  name: string;
  /** The action's label, or its operation key when the action is gone. */
  title: string;
  namespace: string;
  realm_title: string;
  operation: string;
  reason: Unlisted["reason"];
  /** The reason in one sentence. */
  why: string;
  last_used_at: string | null;
};

export type WorkingSetView = {
  actor: { id: string; name: string; revoked: boolean };
  /** The catalog as the agent's tools/list shows it, in numbers (lib/working-set/budget.ts). */
  proof: CatalogProof;
  /** The exact tools listed, in listing order. */
  tools: WorkingSetToolView[];
  /** The catalog's largest tools (generic ones included), by title where they are exact tools. */
  largest: { name: string; title: string; bytes: number; exact: boolean }[];
  /** Rows of the set that tools/list leaves out, and why. */
  unlisted: UnlistedToolView[];
  idle_ttl_seconds: number;
  /** When the set empties unless the agent uses one of its tools first (null: empty). */
  lapses_at: string | null;
  budget: { bytes: number; min: number; max: number; default: number };
  /** The viewer may remove tools from it (the grantor; never support staff). */
  can_remove: boolean;
};

const WHY: Record<Unlisted["reason"], string> = {
  gone: "Its realm or action no longer exists.",
  turned_off: "The operation is turned off for this agent, by the workspace owner or by the person it acts for.",
  over_budget: "It no longer fits: its slot is full or the catalog budget was lowered since it was added.",
};

/** The agent as its own calls are seen (the same catalog its tools/list shows), for a person looking at it. */
export function actorContextOf(actor: Actor, requestId: string): ActorContext {
  return {
    kind: "actor",
    tenantId: actor.tenantId,
    actorId: actor.id,
    actorKind: actor.kind,
    actorName: actor.name,
    grantorId: actor.grantorId,
    via: "actor_token",
    credentialId: "view",
    requestId,
  };
}

/** The view of `actor`'s set from its rows (read live at `now`). */
async function viewOf(db: Executor, who: Viewer, actor: Actor, rows: WorkingSetTool[], now: Date): Promise<WorkingSetView> {
  // The realms the catalog was read with name the tools (no second read of them).
  const catalog = await catalogOf(db, actorContextOf(actor, who.requestId), now, rows);
  const byNs = new Map<string, Realm>(catalog.realms.map((r) => [r.manifest.namespace, r]));
  const rowOf = new Map(rows.map((r) => [r.name, r]));
  const realmTitle = (ns: string) => byNs.get(ns)?.manifest.service_card.title ?? ns;
  const actionLabel = (ns: string, op: string) => byNs.get(ns)?.manifest.actions.find((a) => actionOperationKey(a.name) === op)?.label ?? op;
  const tools: WorkingSetToolView[] = catalog.exact.map((t) => {
    const row = rowOf.get(t.entry.name)!;
    return {
      name: t.entry.name,
      title: t.entry.title,
      namespace: t.namespace,
      realm_title: realmTitle(t.namespace),
      operation: t.operation,
      slot: t.slot,
      risk: t.action.risk,
      bytes: t.bytes,
      added_at: row.createdAt.toISOString(),
      last_used_at: row.lastUsedAt.toISOString(),
    };
  });
  const titleOf = new Map(tools.map((t) => [t.name, t.title]));
  const lastUsed = rows.reduce<number | null>((m, r) => (m === null || r.lastUsedAt.getTime() > m ? r.lastUsedAt.getTime() : m), null);
  const ttl = workingSetTtlMs();
  return {
    actor: { id: actor.id, name: actor.name, revoked: actor.revokedAt !== null },
    proof: catalog.proof,
    tools,
    largest: catalog.proof.largest.map((l) => ({ name: l.name, title: titleOf.get(l.name) ?? l.name, bytes: l.bytes, exact: titleOf.has(l.name) })),
    unlisted: catalog.unlisted.map((u) => ({
      name: u.name,
      title: actionLabel(u.namespace, u.operation),
      namespace: u.namespace,
      realm_title: realmTitle(u.namespace),
      operation: u.operation,
      reason: u.reason,
      why: WHY[u.reason],
      last_used_at: rowOf.get(u.name)?.lastUsedAt.toISOString() ?? null,
    })),
    idle_ttl_seconds: Math.round(ttl / 1000),
    lapses_at: lastUsed === null ? null : new Date(lastUsed + ttl).toISOString(),
    budget: { bytes: catalog.budget, min: MIN_CATALOG_BUDGET_BYTES, max: MAX_CATALOG_BUDGET_BYTES, default: DEFAULT_CATALOG_BUDGET_BYTES },
    can_remove: who.role !== "support" && actor.grantorId === who.userId,
  };
}

/** One agent's working set, for the person it acts for (anyone else: not_found, as for the agent itself). */
export async function workingSetView(db: Executor, who: Viewer, actorId: string, now = new Date()): Promise<WorkingSetView> {
  const actor = await actorForGrantor(db, who, actorId);
  const rows = await readWorkingSet(db, { tenantId: who.tenantId, actorId: actor.id }, now);
  return viewOf(db, who, actor, rows, now);
}

/**
 * A person takes one tool out of their agent's working set: the agent's next tools/list no longer shows it and a
 * call of it is not_found (it can materialize it again). In one transaction with its audit record; the answer is
 * the set as it is now.
 */
export async function removeWorkingSetTool(db: Db, who: Viewer, actorId: string, name: string, now = new Date()): Promise<WorkingSetView & { removed: string }> {
  if (who.role === "support") throw new AppError("forbidden", "Support staff review agents' working sets; they do not change them.");
  return db.transaction(async (tx) => {
    const actor = await actorForGrantor(tx, who, actorId);
    const owner = { tenantId: who.tenantId, actorId: actor.id };
    // Locked as a materialization locks it (the two take turns); a set that went idle is emptied here.
    const rows = await lockWorkingSet(tx, owner, now);
    const row = EXACT_TOOL_NAME.test(name) ? rows.find((r) => r.name === name) : undefined;
    if (!row) {
      throw new AppError("not_found", `“${actor.name}” has no tool ${name.slice(0, 60)} in its working set: it was removed already, or the set lapsed.`, {
        details: { actor_id: actor.id, tool: name.slice(0, 60) },
      });
    }
    await removeTools(tx, owner, [row.name]);
    await recordChange(tx, who, "working_set.changed", {
      namespace: row.namespace,
      operation: row.operation,
      subjectId: actor.id,
      details: { actor_id: actor.id, removed: row.name, slot: row.slot },
    });
    const view = await viewOf(tx, who, actor, rows.filter((r) => r !== row), now);
    return { ...view, removed: row.name };
  });
}
