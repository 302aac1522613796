// Test fixtures for realm adapters: a RealmContext for one call in its own transaction, as the dispatcher
// builds it, and a DeliveryPort for realms that must never touch files.
import { getDb } from "@/db/client";
import type { DeliveryPort, Principal, RealmContext } from "@/lib/realms/contract";
import type { TestTenant } from "./test-fixtures";

export const refusingDelivery = (realm: string): DeliveryPort => ({
  storeFile: () => Promise.reject(new Error(`${realm} never stores files`)),
  fileUrl: () => Promise.reject(new Error(`${realm} never signs file URLs`)),
  deleteFile: () => Promise.reject(new Error(`${realm} never deletes files`)),
});

export const userPrincipal = (t: TestTenant, name: string): Principal => ({ type: "user", userId: t.users[name]!.userId });

/** Run one adapter call in its own transaction, as the dispatcher does. */
export async function inCall<T>(t: TestTenant, principal: Principal, delivery: DeliveryPort, fn: (ctx: RealmContext) => Promise<T>): Promise<T> {
  const db = await getDb();
  return db.transaction((tx) => fn({ tx, tenantId: t.tenantId, principal, requestId: "req_test", now: new Date(), delivery, appUrl: "http://x" }));
}
