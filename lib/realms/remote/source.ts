// Remote realms as a TenantRealmSource: each tenant's registered providers, built from their stored manifests.
// Built realms are cached by (registration id, version) — a manifest change or a status change bumps the version,
// so every app node sees it on its next call.
import type { Executor } from "@/db/client";
import type { Realm } from "@/lib/realms/contract";
import type { TenantRealmSource } from "@/lib/realms/tenant-source";
import { providerByNamespace, providerRows, type RemoteProvider } from "@/lib/remote/store";
import { remoteRealm } from "./adapter";

const CACHE_MAX = 64;
const cache = new Map<string, Realm>();

function realmOf(row: RemoteProvider): Realm {
  const key = `${row.id}:${row.version}`;
  let r = cache.get(key);
  if (!r) {
    r = remoteRealm(row);
    cache.set(key, r);
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  }
  return r;
}

export const remoteRealmSource: TenantRealmSource = {
  async list(db, tenantId) {
    return (await providerRows(db, tenantId)).map(realmOf);
  },
  async get(db: Executor, tenantId, namespace) {
    const row = await providerByNamespace(db, tenantId, namespace);
    return row ? realmOf(row) : null;
  },
};
