// What a caller may use at all, per realm: for a person every operation; for a delegated actor
// ceiling ∩ grantor's choice ∩ its live grants. Feeds the realm list and capability answers — listing only;
// every call is still decided by gate one in its own transaction.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { grants } from "@/db/schema";
import { operationKeysOf, riskOf, type OperationKey, type Realm } from "@/lib/realms/contract";
import type { AuthContext } from "./context";
import { coversOperation, DESCRIBING_OPERATIONS, isLive, isSuspended } from "./gate";

/**
 * `namespace operation` pairs the owner's ceiling or the actor's grantor turned off or set to ask, those the owner
 * set on outright, the tenant's default for destructive operations, and the realms whose description the owner closed.
 */
type Switches = { off: Set<string>; ask: Set<string>; setOn: Set<string>; destructiveDefault: "ask" | "on"; closed: Set<string> };

const NOTHING_OFF: Switches = { off: new Set(), ask: new Set(), setOn: new Set(), destructiveDefault: "on", closed: new Set() };

/** Whether each call of this operation waits for a person's approval (never a read; a grant does not change it). */
function asksEachTime(s: Switches, m: Realm["manifest"], op: OperationKey): boolean {
  const key = `${m.namespace} ${op}`;
  if (s.off.has(key)) return false;
  const risk = riskOf(m, op);
  if (risk === "read") return false;
  return s.ask.has(key) || (risk === "destructive" && s.destructiveDefault === "ask" && !s.setOn.has(key));
}

/** The switches an actor's listing depends on, in one statement. */
async function switchesOf(db: Executor, auth: Extract<AuthContext, { kind: "actor" }>): Promise<Switches> {
  const result = await db.execute(sql`
    select 'off' as what, namespace, operation from ceiling_settings where tenant_id = ${auth.tenantId} and mode = 'off'
    union all
    select 'off', namespace, operation from user_choices where tenant_id = ${auth.tenantId} and user_id = ${auth.grantorId} and mode = 'off'
    union all
    select 'ask', namespace, operation from ceiling_settings where tenant_id = ${auth.tenantId} and mode = 'ask'
    union all
    select 'ask', namespace, operation from user_choices where tenant_id = ${auth.tenantId} and user_id = ${auth.grantorId} and mode = 'ask'
    union all
    select 'set', namespace, operation from ceiling_settings where tenant_id = ${auth.tenantId} and mode = 'on'
    union all
    select 'default', destructive_default, '' from tenants where id = ${auth.tenantId}
    union all
    select 'closed', namespace, '' from realm_settings where tenant_id = ${auth.tenantId} and open_description = false`);
  const out: Switches = { off: new Set(), ask: new Set(), setOn: new Set(), destructiveDefault: "on", closed: new Set() };
  for (const r of (result as unknown as { rows: { what: string; namespace: string; operation: string }[] }).rows) {
    if (r.what === "closed") out.closed.add(r.namespace);
    else if (r.what === "default") out.destructiveDefault = r.namespace === "ask" ? "ask" : "on";
    else (r.what === "off" ? out.off : r.what === "ask" ? out.ask : out.setOn).add(`${r.namespace} ${r.operation}`);
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
  return {
    allowed: await allowedGiven(db, auth, realms, switches, now),
    grantable: grantableGiven(realms, switches.off),
    asking: auth.kind === "actor" ? askingGiven(realms, switches) : new Map<string, ReadonlySet<OperationKey>>(),
    closed: switches.closed,
  };
}

/** Per realm, the operations whose every call waits for a person's approval (an agent may call them; none is covered by a grant). */
function askingGiven(realms: Realm[], s: Switches): Map<string, ReadonlySet<OperationKey>> {
  const out = new Map<string, ReadonlySet<OperationKey>>();
  const askIn = new Set([...s.ask].map((k) => k.slice(0, k.indexOf(" "))));
  for (const r of realms) {
    const m = r.manifest;
    const candidates = s.destructiveDefault === "ask" ? destructiveOf(m) : askIn.has(m.namespace) ? operationKeysOf(m) : [];
    const set = new Set(candidates.filter((op) => asksEachTime(s, m, op)));
    if (askIn.has(m.namespace)) for (const k of s.ask) if (k.startsWith(`${m.namespace} `) && asksEachTime(s, m, k.slice(m.namespace.length + 1) as OperationKey)) set.add(k.slice(m.namespace.length + 1) as OperationKey);
    if (set.size) out.set(m.namespace, set);
  }
  return out;
}

/** A manifest's destructive operations, listed once per manifest object. */
const destructiveOps = new WeakMap<Realm["manifest"], OperationKey[]>();
function destructiveOf(m: Realm["manifest"]): OperationKey[] {
  let list = destructiveOps.get(m);
  if (!list) destructiveOps.set(m, (list = operationKeysOf(m).filter((op) => riskOf(m, op) === "destructive")));
  return list;
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
 * For an actor: per realm, the operations its live grants cover that nothing turned off or set to ask, plus the
 * describing operations of every realm whose description is open (gate one lets those in without a grant).
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
    const exact = new Set(r.manifest.actions.filter((a) => a.exact_grant_only).map((a) => `object.action.${a.name}`));
    const ops = operationKeysOf(r.manifest).filter(
      (op) =>
        !off.has(`${ns} ${op}`) &&
        ((open && DESCRIBING_OPERATIONS.has(op)) || (nsGrants.some((g) => coversOperation(g, op, exact.has(op)) && !isSuspended(g, op)) && !asksEachTime(switches, r.manifest, op))),
    );
    if (ops.length) out.set(ns, new Set(ops));
  }
  return out;
}
