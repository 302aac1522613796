// The read that feeds gate one, in the call's own transaction, with no cache. Grant rows are read FOR SHARE:
// a revoke (UPDATE) waits for in-flight calls that rely on the grant, and every call that starts after the
// revoke commits sees it. So no allow is ever recorded after a revoke has committed.
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { ceilingSettings, grants, userChoices } from "@/db/schema";
import type { OperationKey, ParsedRef, Principal } from "@/lib/realms/contract";
import { gateOne, type GateOneDecision, type GrantFacts } from "./gate";

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

export async function readAndDecideGateOne(tx: Executor, input: GateOneRead): Promise<GateOneDecision> {
  const { principal } = input;
  if (principal.type === "user") return gateOne({ ...input, lineage: {}, ceilingEnabled: null, choiceEnabled: null, grants: [] });
  const { ceilingEnabled, choiceEnabled } = await readSwitches(tx, { tenantId: input.tenantId, grantorId: principal.grantorId, namespace: input.namespace, operation: input.operation });
  const rows = await tx
    .select()
    .from(grants)
    .where(and(eq(grants.tenantId, input.tenantId), eq(grants.actorId, principal.actorId), eq(grants.namespace, input.namespace), input.grantId ? eq(grants.id, input.grantId) : undefined))
    .for("share");
  const facts = rows.map(grantFacts);
  return gateOne({
    ...input,
    lineage: await lineageNeeded(facts, input.refs, input.lineage),
    ceilingEnabled,
    choiceEnabled,
    grants: facts,
  });
}

/** The owner's ceiling and the grantor's choice for one operation (null: never set, which means on). */
export async function readSwitches(tx: Executor, k: { tenantId: string; grantorId: string; namespace: string; operation: string }) {
  const [ceiling] = await tx
    .select({ enabled: ceilingSettings.enabled })
    .from(ceilingSettings)
    .where(and(eq(ceilingSettings.tenantId, k.tenantId), eq(ceilingSettings.namespace, k.namespace), eq(ceilingSettings.operation, k.operation)));
  const [choice] = await tx
    .select({ enabled: userChoices.enabled })
    .from(userChoices)
    .where(and(eq(userChoices.tenantId, k.tenantId), eq(userChoices.userId, k.grantorId), eq(userChoices.namespace, k.namespace), eq(userChoices.operation, k.operation)));
  return { ceilingEnabled: ceiling?.enabled ?? null, choiceEnabled: choice?.enabled ?? null };
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
