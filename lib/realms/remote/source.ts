// Remote realms as a table source: each tenant's registered providers, built from their stored manifests. Built
// realms are cached by (registration id, version) — a manifest change or a status change bumps the version — so
// every app node sees a change on its next call, and a cached realm costs no query beyond the registry's heads.
import { sql } from "drizzle-orm";
import { remoteProviders } from "@/db/schema";
import type { Realm } from "@/lib/realms/contract";
import type { TableRealmSource } from "@/lib/realms/tenant-source";
import { providerById } from "@/lib/remote/store";
import { AppError } from "@/lib/errors";
import { remoteRealm } from "./adapter";

const CACHE_MAX = 64;
const cache = new Map<string, Realm>();

export const remoteRealmSource: TableRealmSource = {
  heads: (tenantId, namespace) =>
    sql`select id, namespace, version from ${remoteProviders} where tenant_id = ${tenantId}${namespace === undefined ? sql`` : sql` and namespace = ${namespace}`}`,
  async realmOf(db, tenantId, head) {
    const key = `${head.id}:${head.version}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const row = await providerById(db, tenantId, head.id);
    // Removed between the two reads: as if it was never there.
    if (!row) throw new AppError("not_found", `No realm "${head.namespace}".`, { details: { namespace: head.namespace } });
    const realm = remoteRealm(row);
    cache.set(`${row.id}:${row.version}`, realm);
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
    return realm;
  },
};
