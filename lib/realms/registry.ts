// The explicit list of realms. Folder name = namespace = registry key (checked by registry.test.ts).
// Imported (OpenAPI) and remote realms are per tenant and come from the database through `tenantRealmSources`.
import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { AppError } from "@/lib/errors";
import { board } from "./board";
import type { Realm, RealmModule } from "./contract";
import { docs } from "./docs";
import { adapter as mailAdapter } from "./mail/adapter";
import { manifest as mailManifest } from "./mail/manifest";
import { presentRequest as presentMailRequest } from "./mail/presenter";
import { memory } from "./memory";
import { openApiRealmSource } from "./openapi/source";
import { remoteRealmSource } from "./remote/source";
import { slack } from "./slack";
import { isTableSource, type TableRealmSource, type TenantRealmSource } from "./tenant-source";

/**
 * The built-in realms, each its folder's `index.ts` (`{ realm, demo? }`), in the order the demo seeds them. Adding
 * a realm is one line here: its key, its tables and its demo data all follow from the module.
 */
export const builtInRealmModules: readonly RealmModule[] = [memory, docs, board, { realm: { manifest: mailManifest, adapter: mailAdapter, presentRequest: presentMailRequest } }, slack];

/** Namespace → realm (the key is the manifest's namespace, and the folder's name: registry.test.ts). */
export const builtInRealms: Record<string, Realm> = Object.fromEntries(builtInRealmModules.map((m) => [m.realm.manifest.namespace, m.realm]));

export type { TenantRealmSource };
export const tenantRealmSources: TenantRealmSource[] = [openApiRealmSource, remoteRealmSource];

type HeadRow = { src: number; id: string; namespace: string; version: number };

/** Every table source's heads for the tenant (and namespace), in one statement; sources in their order, then by namespace. */
async function tableHeads(db: Executor, tenantId: string, namespace?: string): Promise<{ source: TableRealmSource; head: HeadRow }[]> {
  const tables = tenantRealmSources.filter(isTableSource);
  if (!tables.length) return [];
  const parts = tables.map((s, i) => sql`select ${i}::int as src, h.id, h.namespace, h.version from (${s.heads(tenantId, namespace)}) as h`);
  const result = await db.execute(sql`select * from (${sql.join(parts, sql` union all `)}) as heads order by src, namespace`);
  return (result as unknown as { rows: HeadRow[] }).rows.map((head) => ({ source: tables[head.src]!, head: { ...head, version: Number(head.version) } }));
}

export async function listRealms(db: Executor, tenantId: string): Promise<Realm[]> {
  const extra: Realm[] = [];
  // Sequential: a transaction runs one query at a time (a cached realm needs none).
  for (const { source, head } of await tableHeads(db, tenantId)) extra.push(await source.realmOf(db, tenantId, head));
  for (const s of tenantRealmSources) if (!isTableSource(s)) extra.push(...(await s.list(db, tenantId)));
  return [...Object.values(builtInRealms), ...extra.filter((r) => !Object.hasOwn(builtInRealms, r.manifest.namespace))];
}

export async function findRealm(db: Executor, tenantId: string, namespace: string): Promise<Realm | null> {
  // Own keys only: a namespace such as `constructor` must not find Object.prototype's.
  if (Object.hasOwn(builtInRealms, namespace)) return builtInRealms[namespace]!;
  for (const s of tenantRealmSources) {
    if (isTableSource(s)) continue;
    const r = await s.get(db, tenantId, namespace);
    if (r) return r;
  }
  const [hit] = await tableHeads(db, tenantId, namespace);
  return hit ? hit.source.realmOf(db, tenantId, hit.head) : null;
}

/** A realm by namespace, or `not_found` naming the namespaces that exist. */
export async function requireRealm(db: Executor, tenantId: string, namespace: string): Promise<Realm> {
  const realm = await findRealm(db, tenantId, namespace);
  if (realm) return realm;
  const known = (await listRealms(db, tenantId)).map((r) => r.manifest.namespace);
  throw new AppError("not_found", `No realm "${namespace}".`, { details: { namespace, known_namespaces: known } });
}
