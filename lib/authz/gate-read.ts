// The read that feeds gate one, in the call's own transaction, with no cache, in one statement. Grant rows are read FOR SHARE:
// a revoke (UPDATE) waits for in-flight calls that rely on the grant, and every call that starts after the
// revoke commits sees it. So no allow is ever recorded after a revoke has committed.
import { getTableColumns, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { grants } from "@/db/schema";
import type { OperationKey, ParsedRef, Principal } from "@/lib/realms/contract";
import { DESCRIBING_OPERATIONS, gateOne, type GateOneDecision, type GrantFacts } from "./gate";

export type GateOneRead = {
  tenantId: string;
  principal: Principal;
  namespace: string;
  operation: OperationKey;
  /** Every ref the call names, already parsed by the realm: the target first. */
  refs: string[];
  parsed?: Record<string, ParsedRef>;
  now: Date;
  exactOnly?: boolean;
  /** What contains the given refs (asked only when a ref-scoped grant does not name a ref itself). */
  lineage?: (refs: string[]) => Promise<Record<string, string[]>>;
  /** Only this grant may let the call in (redeeming a link minted under it). */
  grantId?: string;
};

export const grantFacts = (g: typeof grants.$inferSelect): GrantFacts => ({
  id: g.id,
  actorId: g.actorId,
  operations: g.operations,
  allActions: g.allActions,
  resourceScope: g.resourceScope ?? null,
  suspensions: g.suspensions ?? {},
  expiresAt: g.expiresAt,
  revokedAt: g.revokedAt,
  createdAt: g.createdAt,
});

/** A decision as read: on a denial, also the grantor's name (the refusal names them), read in the same statement. */
export type GateOneReadDecision = GateOneDecision & { grantorName?: string };

type SwitchesRow = { ceiling_enabled: boolean | null; choice_enabled: boolean | null; open_description: boolean | null; grantor_name: string | null } & Record<string, unknown>;

/**
 * Gate one's read, in one statement: the owner's ceiling row and the grantor's choice row for this operation
 * (null: never set, which means on), for a describing operation the realm's open-description setting, the
 * grantor's name, and the actor's grants in the namespace, locked FOR SHARE (a lateral subquery, so the switches
 * come back even when the actor holds no grant).
 */
export async function readAndDecideGateOne(tx: Executor, input: GateOneRead): Promise<GateOneReadDecision> {
  const { principal } = input;
  if (principal.type === "user") return gateOne({ ...input, lineage: {}, ceilingEnabled: null, choiceEnabled: null, grants: [] });
  const { tenantId, namespace, operation } = input;
  const result = await tx.execute(sql`
    select
      (select c.enabled from ceiling_settings c where c.tenant_id = ${tenantId} and c.namespace = ${namespace} and c.operation = ${operation}) as ceiling_enabled,
      (select u.enabled from user_choices u where u.tenant_id = ${tenantId} and u.user_id = ${principal.grantorId} and u.namespace = ${namespace} and u.operation = ${operation}) as choice_enabled,
      ${DESCRIBING_OPERATIONS.has(operation) ? sql`(select s.open_description from realm_settings s where s.tenant_id = ${tenantId} and s.namespace = ${namespace})` : sql`null::boolean`} as open_description,
      (select p.name from users p where p.id = ${principal.grantorId}) as grantor_name,
      g.*
    from (select 1) as one
    left join lateral (
      select * from grants
      where grants.tenant_id = ${tenantId} and grants.actor_id = ${principal.actorId} and grants.namespace = ${namespace}${input.grantId ? sql` and grants.id = ${input.grantId}` : sql``}
      for share
    ) g on true`);
  const rows = (result as unknown as { rows: SwitchesRow[] }).rows;
  const first = rows[0]!;
  const facts = rows.filter((r) => r.id !== null && r.id !== undefined).map((r) => grantFacts(grantRow(r)));
  const decision = gateOne({
    ...input,
    lineage: await lineageNeeded(facts, input.refs, input.lineage),
    ceilingEnabled: first.ceiling_enabled ?? null,
    choiceEnabled: first.choice_enabled ?? null,
    openDescription: first.open_description ?? null,
    grants: facts,
  });
  return decision.allow ? decision : { ...decision, grantorName: first.grantor_name ?? "your user" };
}

const grantColumns = Object.entries(getTableColumns(grants));

/** A grants row of a raw statement, as drizzle's select would map it. */
function grantRow(r: Record<string, unknown>): typeof grants.$inferSelect {
  const out: Record<string, unknown> = {};
  for (const [key, col] of grantColumns) {
    const v = r[col.name];
    out[key] = v === null || v === undefined ? null : col.mapFromDriverValue(v);
  }
  return out as typeof grants.$inferSelect;
}

/** What contains a ref matters only to a ref-scoped grant that does not name the ref itself: ask the realm then, once. */
export async function lineageNeeded(
  facts: Pick<GrantFacts, "resourceScope">[],
  refs: string[],
  lineage?: (refs: string[]) => Promise<Record<string, string[]>>,
): Promise<Record<string, string[]>> {
  const scopes = facts.map((g) => g.resourceScope?.refs).filter((r): r is string[] => Array.isArray(r));
  const outside = refs.filter((ref) => scopes.some((s) => !s.includes(ref)));
  return outside.length && lineage ? lineage(outside) : {};
}
