// What a caller may use at all, per realm: for a person every operation; for a delegated actor
// ceiling ∩ grantor's choice ∩ its live grants. Feeds the realm list and capability answers — listing only;
// every call is still decided by gate one in its own transaction.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { grants } from "@/db/schema";
import { operationKeysOf, type OperationKey, type Realm } from "@/lib/realms/contract";
import type { AuthContext } from "./context";
import { coversOperation, DESCRIBING_OPERATIONS, isLive, isSuspended } from "./gate";

/** `namespace operation` pairs the owner's ceiling or the actor's grantor turned off, and the realms whose description the owner closed. */
type Switches = { off: Set<string>; closed: Set<string> };

const NOTHING_OFF: Switches = { off: new Set(), closed: new Set() };

/** The switches an actor's listing depends on, in one statement. */
async function switchesOf(db: Executor, auth: Extract<AuthContext, { kind: "actor" }>): Promise<Switches> {
  const result = await db.execute(sql`
    select 'off' as what, namespace, operation from ceiling_settings where tenant_id = ${auth.tenantId} and enabled = false
    union all
    select 'off', namespace, operation from user_choices where tenant_id = ${auth.tenantId} and user_id = ${auth.grantorId} and enabled = false
    union all
    select 'closed', namespace, '' from realm_settings where tenant_id = ${auth.tenantId} and open_description = false`);
  const out: Switches = { off: new Set(), closed: new Set() };
  for (const r of (result as unknown as { rows: { what: string; namespace: string; operation: string }[] }).rows) {
    if (r.what === "closed") out.closed.add(r.namespace);
    else out.off.add(`${r.namespace} ${r.operation}`);
  }
  return out;
}

/**
 * What could be granted to the caller: for an actor, every operation the ceiling and its grantor's choices leave
 * on (a grant is still needed). Capability answers show these, marking the ungranted ones, so an agent learns
 * that an operation exists and that asking for it (consent_required) is the way in.
 */
export async function grantableOperations(db: Executor, auth: AuthContext, realms: Realm[]): Promise<Map<string, ReadonlySet<OperationKey>>> {
  return grantableGiven(realms, auth.kind === "actor" ? (await switchesOf(db, auth)).off : new Set<string>());
}

/**
 * Both answers for one call, the ceiling and the choices read once: what the caller may use now and what it
 * could be granted (object_schema shows the one and marks the rest of the other needs_grant).
 */
export async function callerOperations(db: Executor, auth: AuthContext, realms: Realm[], now = new Date()) {
  const switches = auth.kind === "actor" ? await switchesOf(db, auth) : NOTHING_OFF;
  return { allowed: await allowedGiven(db, auth, realms, switches, now), grantable: grantableGiven(realms, switches.off), closed: switches.closed };
}

function grantableGiven(realms: Realm[], off: Set<string>): Map<string, ReadonlySet<OperationKey>> {
  const out = new Map<string, ReadonlySet<OperationKey>>();
  const offIn = new Set([...off].map((k) => k.slice(0, k.indexOf(" "))));
  for (const r of realms) {
    const ns = r.manifest.namespace;
    // Nothing turned off in this realm (the common case): its operations as they are, built once per manifest.
    const all = operationSetOf(r.manifest);
    out.set(ns, offIn.has(ns) ? new Set([...all].filter((op) => !off.has(`${ns} ${op}`))) : all);
  }
  return out;
}

/** A manifest's operation keys as a set, built once per manifest object (an imported realm's new version is a new object). */
const operationSets = new WeakMap<Realm["manifest"], ReadonlySet<OperationKey>>();
function operationSetOf(m: Realm["manifest"]): ReadonlySet<OperationKey> {
  let set = operationSets.get(m);
  if (!set) operationSets.set(m, (set = new Set(operationKeysOf(m))));
  return set;
}

export async function allowedOperations(db: Executor, auth: AuthContext, realms: Realm[], now = new Date()): Promise<Map<string, Set<OperationKey>>> {
  return allowedGiven(db, auth, realms, auth.kind === "actor" ? await switchesOf(db, auth) : NOTHING_OFF, now);
}

/**
 * For an actor: per realm, the operations its live grants cover that nothing turned off, plus the describing
 * operations of every realm whose description is open (gate one lets those in without a grant).
 */
async function allowedGiven(db: Executor, auth: AuthContext, realms: Realm[], switches: Switches, now: Date): Promise<Map<string, Set<OperationKey>>> {
  const { off, closed } = switches;
  const out = new Map<string, Set<OperationKey>>();
  if (auth.kind === "user") {
    for (const r of realms) out.set(r.manifest.namespace, new Set(operationKeysOf(r.manifest)));
    return out;
  }
  const live = (
    await db.select().from(grants).where(and(eq(grants.tenantId, auth.tenantId), eq(grants.actorId, auth.actorId), isNull(grants.revokedAt)))
  ).filter((g) => isLive(g, now));
  for (const r of realms) {
    const ns = r.manifest.namespace;
    const nsGrants = live.filter((g) => g.namespace === ns);
    const open = !closed.has(ns);
    if (nsGrants.length === 0) {
      // No grant here: at most the describing operations (a realm's thousand imported actions are not walked).
      const describing = open ? [...DESCRIBING_OPERATIONS].filter((op) => !off.has(`${ns} ${op}`)) : [];
      if (describing.length) out.set(ns, new Set(describing as OperationKey[]));
      continue;
    }
    const exact = new Set(r.manifest.actions.filter((a) => a.approval_required).map((a) => `object.action.${a.name}`));
    const ops = operationKeysOf(r.manifest).filter(
      (op) =>
        !off.has(`${ns} ${op}`) &&
        ((open && DESCRIBING_OPERATIONS.has(op)) || nsGrants.some((g) => coversOperation(g, op, exact.has(op)) && !isSuspended(g, op))),
    );
    if (ops.length) out.set(ns, new Set(ops));
  }
  return out;
}
