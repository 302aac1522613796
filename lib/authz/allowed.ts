// What a caller may use at all, per realm: for a person every operation; for a delegated actor
// ceiling ∩ grantor's choice ∩ its live grants. Feeds the realm list and capability answers — listing only;
// every call is still decided by gate one in its own transaction.
import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { ceilingSettings, grants, userChoices } from "@/db/schema";
import { operationKeysOf, type OperationKey, type Realm } from "@/lib/realms/contract";
import type { AuthContext } from "./context";
import { coversOperation, isLive, isSuspended } from "./gate";

/** `namespace operation` pairs the owner's ceiling or the actor's grantor turned off. */
async function turnedOff(db: Executor, auth: Extract<AuthContext, { kind: "actor" }>): Promise<Set<string>> {
  const off = new Set<string>();
  const ceiling = await db.select().from(ceilingSettings).where(and(eq(ceilingSettings.tenantId, auth.tenantId), eq(ceilingSettings.enabled, false)));
  for (const c of ceiling) off.add(`${c.namespace} ${c.operation}`);
  const choices = await db
    .select()
    .from(userChoices)
    .where(and(eq(userChoices.tenantId, auth.tenantId), eq(userChoices.userId, auth.grantorId), eq(userChoices.enabled, false)));
  for (const c of choices) off.add(`${c.namespace} ${c.operation}`);
  return off;
}

/**
 * What could be granted to the caller: for an actor, every operation the ceiling and its grantor's choices leave
 * on (a grant is still needed). Capability answers show these, marking the ungranted ones, so an agent learns
 * that an operation exists and that asking for it (consent_required) is the way in.
 */
export async function grantableOperations(db: Executor, auth: AuthContext, realms: Realm[]): Promise<Map<string, ReadonlySet<OperationKey>>> {
  return grantableGiven(realms, auth.kind === "actor" ? await turnedOff(db, auth) : new Set<string>());
}

/**
 * Both answers for one call, the ceiling and the choices read once: what the caller may use now and what it
 * could be granted (object_schema shows the one and marks the rest of the other needs_grant).
 */
export async function callerOperations(db: Executor, auth: AuthContext, realms: Realm[], now = new Date()) {
  const off = auth.kind === "actor" ? await turnedOff(db, auth) : new Set<string>();
  return { allowed: await allowedGiven(db, auth, realms, off, now), grantable: grantableGiven(realms, off) };
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
  return allowedGiven(db, auth, realms, auth.kind === "actor" ? await turnedOff(db, auth) : new Set<string>(), now);
}

async function allowedGiven(db: Executor, auth: AuthContext, realms: Realm[], off: Set<string>, now: Date): Promise<Map<string, Set<OperationKey>>> {
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
    if (nsGrants.length === 0) continue;
    const exact = new Set(r.manifest.actions.filter((a) => a.approval_required).map((a) => `object.action.${a.name}`));
    const ops = operationKeysOf(r.manifest).filter((op) => !off.has(`${ns} ${op}`) && nsGrants.some((g) => coversOperation(g, op, exact.has(op)) && !isSuspended(g, op)));
    if (ops.length) out.set(ns, new Set(ops));
  }
  return out;
}
