// The read that feeds gate one, in the call's own transaction, with no cache. Grant rows are read FOR SHARE:
// a revoke (UPDATE) waits for in-flight calls that rely on the grant, and every call that starts after the
// revoke commits sees it. So no allow is ever recorded after a revoke has committed.
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { ceilingSettings, grants, userChoices } from "@/db/schema";
import type { OperationKey, Principal } from "@/lib/realms/contract";
import { gateOne, type GateOneDecision } from "./gate";

export async function readAndDecideGateOne(
  tx: Executor,
  input: { tenantId: string; principal: Principal; namespace: string; operation: OperationKey; ref: string | null; now: Date; exactOnly?: boolean; lineage?: () => Promise<string[]> },
): Promise<GateOneDecision> {
  const { principal } = input;
  if (principal.type === "user") return gateOne({ ...input, lineage: [], ceilingEnabled: null, choiceEnabled: null, grants: [] });
  const [ceiling] = await tx
    .select({ enabled: ceilingSettings.enabled })
    .from(ceilingSettings)
    .where(and(eq(ceilingSettings.tenantId, input.tenantId), eq(ceilingSettings.namespace, input.namespace), eq(ceilingSettings.operation, input.operation)));
  const [choice] = await tx
    .select({ enabled: userChoices.enabled })
    .from(userChoices)
    .where(
      and(
        eq(userChoices.tenantId, input.tenantId),
        eq(userChoices.userId, principal.grantorId),
        eq(userChoices.namespace, input.namespace),
        eq(userChoices.operation, input.operation),
      ),
    );
  const rows = await tx
    .select()
    .from(grants)
    .where(and(eq(grants.tenantId, input.tenantId), eq(grants.actorId, principal.actorId), eq(grants.namespace, input.namespace)))
    .for("share");
  // What contains the ref matters only to a grant scoped to a prefix the ref itself is not under: ask the realm then.
  const ref = input.ref;
  const needsLineage = ref !== null && rows.some((g) => g.resourceScope?.ref_prefix && !ref.startsWith(g.resourceScope.ref_prefix));
  return gateOne({
    ...input,
    lineage: needsLineage && input.lineage ? await input.lineage() : [],
    ceilingEnabled: ceiling?.enabled ?? null,
    choiceEnabled: choice?.enabled ?? null,
    grants: rows.map((g) => ({ ...g, resourceScope: g.resourceScope ?? null })),
  });
}
