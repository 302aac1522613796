// A start-up data step: imports made before action names became names (no spaces, no `*`) stored fallbacks like
// `GET /search/person`. Those manifests would no longer load, so each such action is renamed as an import would
// name it today (`GET/search/person`), everywhere its key is stored: the operation and its card, its curation,
// grants, consent requests, the ceiling and people's choices. Idempotent: only names that break the rule change.
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { ceilingSettings, consentRequests, grants, openapiCurations, openapiOperations, openapiRealms, userChoices } from "@/db/schema";
import { ACTION_NAME_PATTERN, actionOperationKey } from "@/lib/realms/contract";
import { fallbackActionName } from "./naming";

export async function renameLegacyActions(db: Db): Promise<string> {
  const ops = await db
    .select({ realmId: openapiOperations.realmId, tenantId: openapiOperations.tenantId, action: openapiOperations.action, method: openapiOperations.method, path: openapiOperations.path, namespace: openapiRealms.namespace })
    .from(openapiOperations)
    .innerJoin(openapiRealms, eq(openapiRealms.id, openapiOperations.realmId));
  const byRealm = new Map<string, typeof ops>();
  for (const o of ops) byRealm.set(o.realmId, [...(byRealm.get(o.realmId) ?? []), o]);
  let renamed = 0;
  for (const list of byRealm.values()) {
    const bad = list.filter((o) => !ACTION_NAME_PATTERN.test(o.action));
    if (bad.length === 0) continue;
    const taken = new Set(list.filter((o) => ACTION_NAME_PATTERN.test(o.action)).map((o) => o.action));
    await db.transaction(async (tx) => {
      for (const o of bad) {
        const name = fallbackActionName(o.method, o.path, taken);
        taken.add(name);
        const [oldKey, newKey] = [actionOperationKey(o.action), actionOperationKey(name)];
        const realm = and(eq(openapiOperations.realmId, o.realmId), eq(openapiOperations.action, o.action));
        await tx.update(openapiOperations).set({ action: name, card: sql`jsonb_set(${openapiOperations.card}, '{action}', to_jsonb(${name}::text))` }).where(realm);
        await tx.update(openapiCurations).set({ action: name }).where(and(eq(openapiCurations.realmId, o.realmId), eq(openapiCurations.action, o.action)));
        const ns = and(eq(grants.tenantId, o.tenantId), eq(grants.namespace, o.namespace));
        await tx.update(grants).set({ operations: sql`array_replace(${grants.operations}, ${oldKey}, ${newKey})` }).where(and(ns, sql`${oldKey} = any(${grants.operations})`));
        await tx
          .update(consentRequests)
          .set({ operations: sql`array_replace(${consentRequests.operations}, ${oldKey}, ${newKey})` })
          .where(and(eq(consentRequests.tenantId, o.tenantId), eq(consentRequests.namespace, o.namespace), sql`${oldKey} = any(${consentRequests.operations})`));
        await tx.update(ceilingSettings).set({ operation: newKey }).where(and(eq(ceilingSettings.tenantId, o.tenantId), eq(ceilingSettings.namespace, o.namespace), eq(ceilingSettings.operation, oldKey)));
        await tx.update(userChoices).set({ operation: newKey }).where(and(eq(userChoices.tenantId, o.tenantId), eq(userChoices.namespace, o.namespace), eq(userChoices.operation, oldKey)));
        renamed++;
      }
    });
  }
  return `legacy action names: ${renamed} renamed`;
}
