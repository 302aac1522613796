// Where per-tenant realms come from (imported OpenAPI services, remote providers): the registry consults each
// source after the built-in realms. A type of its own so a source (lib/realms/openapi/source.ts) and the registry
// that lists it do not import each other.
//
// A source backed by a table gives the registry the SQL of its heads (id, namespace, version) and builds a realm
// from a head (cached by id and version, so usually without a query): the registry reads every source's heads in
// ONE statement, so another kind of tenant realm adds no round trip to a call. A source kept in memory (a test's
// own realm) answers `list` and `get` itself.
import type { SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { Realm } from "./contract";

export type TenantRealmHead = { id: string; namespace: string; version: number };

export type TableRealmSource = {
  /** `select id, namespace, version from …` of the tenant's realms (only `namespace`'s when given). */
  heads(tenantId: string, namespace?: string): SQL;
  realmOf(db: Executor, tenantId: string, head: TenantRealmHead): Promise<Realm>;
};

export type MemoryRealmSource = {
  list(db: Executor, tenantId: string): Promise<Realm[]>;
  get(db: Executor, tenantId: string, namespace: string): Promise<Realm | null>;
};

export type TenantRealmSource = TableRealmSource | MemoryRealmSource;
export const isTableSource = (s: TenantRealmSource): s is TableRealmSource => "heads" in s;
