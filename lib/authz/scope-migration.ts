// A start-up data step: grants scoped by a ref *prefix* (string matching, which let a half-typed ref like
// `docs:d` reach every document) become exact-ref scopes where the prefix is a complete ref the realm parses;
// anything else is revoked with reason `scope_migrated`. Each grant changes in its own transaction, with its
// audit record. Idempotent: only rows still holding `ref_prefix` are touched.
import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { grants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { findRealm } from "@/lib/realms/registry";

export async function migratePrefixScopes(db: Db, now = new Date()): Promise<string> {
  const rows = await db
    .select({ id: grants.id, tenantId: grants.tenantId, namespace: grants.namespace, scope: grants.resourceScope, revokedAt: grants.revokedAt, actorId: grants.actorId, grantorId: grants.grantorId })
    .from(grants)
    .where(sql`${grants.resourceScope} ? 'ref_prefix'`);
  let converted = 0;
  let revoked = 0;
  for (const row of rows) {
    const prefix = (row.scope as unknown as { ref_prefix?: unknown }).ref_prefix;
    const realm = await findRealm(db, row.tenantId, row.namespace);
    const complete = typeof prefix === "string" && realm !== null && prefix.startsWith(`${row.namespace}:`) && parses(realm.adapter.parseRef, prefix);
    await db.transaction(async (tx) => {
      if (complete) {
        await tx.update(grants).set({ resourceScope: { refs: [prefix] } }).where(eq(grants.id, row.id));
      } else {
        // Nothing is reachable through an empty scope; the grant is revoked as well, so it shows why.
        await tx
          .update(grants)
          .set({ resourceScope: { refs: [] }, ...(row.revokedAt ? {} : { revokedAt: now, revokedBy: "system", revokeReason: "scope_migrated" }) })
          .where(eq(grants.id, row.id));
      }
      await recordAudit(tx, {
        tenantId: row.tenantId,
        event: complete ? "grant.migrated" : "grant.revoked",
        principal: { type: "system" },
        namespace: row.namespace,
        subjectId: row.id,
        outcome: "ok",
        reason: "scope_migrated",
        details: { actor_id: row.actorId, old_scope: { ref_prefix: typeof prefix === "string" ? prefix.slice(0, 512) : null }, new_scope: complete ? { refs: [prefix] } : null },
      });
    });
    if (complete) converted++;
    else revoked++;
  }
  return `prefix scopes: ${converted} converted to exact refs, ${revoked} revoked`;
}

function parses(parseRef: (ref: string) => unknown, ref: string): boolean {
  try {
    parseRef(ref);
    return true;
  } catch {
    return false;
  }
}
