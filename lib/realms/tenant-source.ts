// Where per-tenant realms come from (e.g. imported OpenAPI services): the registry consults each source after the
// built-in realms. A type of its own so a source (lib/realms/openapi/source.ts) and the registry that lists it do
// not import each other.
import type { Executor } from "@/db/client";
import type { Realm } from "./contract";

/** Sources of per-tenant realms (e.g. imported OpenAPI services), consulted after the built-in ones. */
export type TenantRealmSource = {
  list(db: Executor, tenantId: string): Promise<Realm[]>;
  get(db: Executor, tenantId: string, namespace: string): Promise<Realm | null>;
};
