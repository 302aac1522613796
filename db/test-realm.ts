// Test fixtures for realm adapters: a RealmContext for one call in its own transaction, as the dispatcher
// builds it, and a DeliveryPort for realms that must never touch files.
import { getDb } from "@/db/client";
import { AppError } from "@/lib/errors";
import type { DeliveryPort, Principal, Realm, RealmContext } from "@/lib/realms/contract";
import { tenantRealmSources, type TenantRealmSource } from "@/lib/realms/registry";
import { settledWrites } from "@/lib/realms/settled";
import type { TestTenant } from "./test-fixtures";

export const refusingDelivery = (realm: string): DeliveryPort => ({
  storeFile: () => Promise.reject(new Error(`${realm} never stores files`)),
  fileUrl: () => Promise.reject(new Error(`${realm} never signs file URLs`)),
  deleteFile: () => Promise.reject(new Error(`${realm} never deletes files`)),
});

export const userPrincipal = (t: TestTenant, name: string): Principal => ({ type: "user", userId: t.users[name]!.userId });

/**
 * Run one adapter call in its own transaction, as the dispatcher does. `gateRef` records every ref the adapter
 * gates (in `gated`, when given) and refuses those listed in `refuse`, as a scoped grant would.
 */
export async function inCall<T>(
  t: TestTenant,
  principal: Principal,
  delivery: DeliveryPort,
  fn: (ctx: RealmContext) => Promise<T>,
  opts: { gated?: string[]; refuse?: string[] } = {},
): Promise<T> {
  const db = await getDb();
  const gateRef = async (ref: string, where?: string) => {
    opts.gated?.push(ref);
    if (opts.refuse?.includes(ref)) throw new AppError("consent_required", `${ref} is outside the grant's scope.`, { details: { ref, where: where ?? null } });
  };
  // As the dispatcher: the effect in a savepoint; ctx.settled writes after it, on the call's transaction, kept even when it fails.
  const settled = settledWrites();
  const outcome = await db.transaction(async (tx) => {
    try {
      return { value: await tx.transaction((sp) => fn({ tx: sp, tenantId: t.tenantId, principal, requestId: "req_test", now: new Date(), delivery, appUrl: "http://x", gateRef, settled: settled.add })) };
    } catch (error) {
      return { error };
    } finally {
      await settled.run(tx);
    }
  });
  if ("error" in outcome) throw outcome.error;
  return outcome.value;
}


/** The code a synchronous call throws with (or "returned"). */
export function thrownCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "returned";
}

/** A context whose transaction counts the statements the adapter runs (to prove a batch is bounded). */
export function countingQueries(ctx: RealmContext): { ctx: RealmContext; queries: () => number } {
  let n = 0;
  const tx = new Proxy(ctx.tx, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        if (typeof prop === "string" && /^(select|selectDistinct|selectDistinctOn|insert|update|delete|execute)$/.test(prop)) n++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ctx: { ...ctx, tx }, queries: () => n };
}

/** A test's own realm, found (as an imported realm is) only by the tenants it is shown to, until `remove()`. */
export function tenantRealm(realm: Realm) {
  const tenants = new Set<string>();
  const source: TenantRealmSource = {
    list: async (_db, tenantId) => (tenants.has(tenantId) ? [realm] : []),
    get: async (_db, tenantId, ns) => (tenants.has(tenantId) && ns === realm.manifest.namespace ? realm : null),
  };
  tenantRealmSources.push(source);
  return { showTo: (tenantId: string) => void tenants.add(tenantId), remove: () => void tenantRealmSources.splice(tenantRealmSources.indexOf(source), 1) };
}
