// Refs as a person reads them: a realm's describeRefs, run with one user's authority (the consent page runs it as
// the person deciding). Names never leave more than that person may see: an invisible ref is null.
import type { Executor, Tx } from "@/db/client";
import { isAppError } from "@/lib/errors";
import type { DeliveryPort, Realm, RealmContext, RefDescription } from "./contract";
import { settledWrites } from "./settled";

const noDelivery: DeliveryPort = {
  storeFile: () => Promise.reject(new Error("describing refs never stores files")),
  fileUrl: () => Promise.reject(new Error("describing refs never signs URLs")),
  deleteFile: () => Promise.reject(new Error("describing refs never deletes files")),
};

export async function describeRefsAs(
  db: Executor,
  input: { tenantId: string; userId: string; realm: Realm; refs: string[]; appUrl: string; requestId?: string; now?: Date },
): Promise<Record<string, RefDescription | null>> {
  const refs = [...new Set(input.refs)];
  const out: Record<string, RefDescription | null> = Object.fromEntries(refs.map((r) => [r, null]));
  if (refs.length === 0) return out;
  const settled = settledWrites();
  const ctx = (tx: Tx): RealmContext => ({
    tx,
    tenantId: input.tenantId,
    principal: { type: "user", userId: input.userId },
    requestId: input.requestId ?? "describe",
    now: input.now ?? new Date(),
    delivery: noDelivery,
    appUrl: input.appUrl,
    grantScope: null,
    gateRef: async () => {},
    settled: settled.add,
  });
  try {
    // In a savepoint of its own: a realm's failed query must not abort the caller's transaction.
    Object.assign(out, await db.transaction((tx) => input.realm.adapter.describeRefs(ctx(tx), refs)));
  } catch (err) {
    // A realm that cannot say (a provider down, a malformed ref it did not expect): the refs stay unnamed.
    if (!isAppError(err)) throw err;
  } finally {
    // What describing learned about an account (a refreshed token…) is kept on the caller's transaction.
    await settled.run(db);
  }
  return out;
}
