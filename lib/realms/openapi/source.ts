// Imported realms as a TenantRealmSource: each tenant's imported services, loaded from the database and
// built into ordinary realms. Built realms are cached by (realm id, version) — never by tenant alone — so a
// re-import or a curation change (which bump the version) is seen by every app instance on its next call.
import type { Executor } from "@/db/client";
import type { Realm } from "@/lib/realms/contract";
import { sql } from "drizzle-orm";
import { openapiRealms } from "@/db/schema";
import type { TableRealmSource } from "@/lib/realms/tenant-source";
import { openApiAdapter } from "./adapter";
import { buildRealm, type BuiltRealm } from "./manifest";
import { curations, operationRecords, realmRecord, type RealmHead } from "./store";

const CACHE_MAX = 64;
const cache = new Map<string, Promise<Realm & { built: BuiltRealm }>>();

async function load(db: Executor, h: RealmHead): Promise<Realm & { built: BuiltRealm }> {
  const record = await realmRecord(db, h.tenantId, h.id);
  if (!record) throw new Error(`imported realm ${h.id} vanished while loading`);
  const built = buildRealm(record, await operationRecords(db, h.tenantId, h.id), await curations(db, h.tenantId, h.id));
  return { manifest: built.manifest, adapter: openApiAdapter(record, built), capabilityDocs: built.capabilityDocs, built };
}

/** The built realm for a realm row (its version names the exact content). */
export async function realmOf(db: Executor, h: RealmHead): Promise<Realm & { built: BuiltRealm }> {
  const key = `${h.id}:${h.version}`;
  let p = cache.get(key);
  if (p) {
    cache.delete(key);
    cache.set(key, p);
    return p;
  }
  p = load(db, h);
  cache.set(key, p);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  // A failed load is not remembered.
  p.catch(() => cache.delete(key));
  return p;
}

export const openApiRealmSource: TableRealmSource = {
  heads: (tenantId, namespace) =>
    sql`select id, namespace, version from ${openapiRealms} where tenant_id = ${tenantId}${namespace === undefined ? sql`` : sql` and namespace = ${namespace}`}`,
  realmOf: (db, tenantId, head) => realmOf(db, { ...head, tenantId }),
};
