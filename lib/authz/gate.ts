// Gate one, as small pure functions over plain data: owner ceiling ∩ user choice ∩ the actor's live grant.
// The database read that feeds it (lib/authz/gate-read.ts) sits beside it, in the call's transaction.
import type { ResourceScope } from "@/db/schema";
import type { OperationKey, Principal } from "@/lib/realms/contract";

export type GrantFacts = {
  id: string;
  actorId: string;
  operations: string[];
  resourceScope: ResourceScope | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
};

export type GateOneInput = {
  principal: Principal;
  namespace: string;
  operation: OperationKey;
  /** The ref the call names, if any. */
  ref: string | null;
  /** The refs containing `ref`, nearest first (from the realm): a scope on a container covers its contents. */
  lineage?: string[];
  /** The owner ceiling's setting for this operation (null: never set, which means allowed). */
  ceilingEnabled: boolean | null;
  /** The grantor's own choice for this operation (null: never set, which means allowed). */
  choiceEnabled: boolean | null;
  /** The actor's grants in this namespace, in any state. */
  grants: GrantFacts[];
  now: Date;
  /** The owner marked this operation "needs explicit approval": wildcards do not cover it. */
  exactOnly?: boolean;
};

export type GateOneDenialCode = "operation_disabled" | "consent_required" | "grant_expired" | "grant_revoked";

export type GateOneDecision =
  | { allow: true; grantId: string | null; scope: ResourceScope | null }
  | { allow: false; code: GateOneDenialCode; wall: "owner_ceiling" | "user_choice" | "grant"; grantId: string | null };

/** Reads without a ref are allowed under a ref-scoped grant (their results are narrowed to the scope). */
const REFLESS_READS = new Set<string>(["provider.about", "object.schema", "object.list", "object.search"]);

/** Exact keys; `object.action.*` only where written so (and never for an exact-only operation). No case folding, no trimming, no prefixes. */
export function coversOperation(granted: readonly string[], op: OperationKey, exactOnly = false): boolean {
  if (granted.includes(op)) return true;
  return !exactOnly && op.startsWith("object.action.") && granted.includes("object.action.*");
}

export function coversResource(scope: ResourceScope | null, op: OperationKey, ref: string | null, lineage: readonly string[] = []): boolean {
  if (!scope?.ref_prefix) return true;
  if (ref === null) return REFLESS_READS.has(op);
  const prefix = scope.ref_prefix;
  return ref.startsWith(prefix) || lineage.some((r) => r.startsWith(prefix));
}

export const isLive = (g: GrantFacts, now: Date) => g.revokedAt === null && (g.expiresAt === null || now.getTime() < g.expiresAt.getTime());

export function gateOne(input: GateOneInput): GateOneDecision {
  const { principal, operation, ref, now } = input;
  // People act as themselves: the ceiling and choices bound their agents, and gate two their own reach.
  if (principal.type === "user") return { allow: true, grantId: null, scope: null };

  if (input.ceilingEnabled === false) return { allow: false, code: "operation_disabled", wall: "owner_ceiling", grantId: null };
  if (input.choiceEnabled === false) return { allow: false, code: "operation_disabled", wall: "user_choice", grantId: null };

  const matching = input.grants.filter(
    (g) => g.actorId === principal.actorId && coversOperation(g.operations, operation, input.exactOnly) && coversResource(g.resourceScope, operation, ref, input.lineage),
  );
  const live = matching.find((g) => isLive(g, now));
  if (live) return { allow: true, grantId: live.id, scope: live.resourceScope };

  // No live grant: say why, naming the grant that ended most recently.
  const ended = matching
    .map((g) => ({ g, endedAt: g.revokedAt ?? g.expiresAt ?? g.createdAt }))
    .sort((a, b) => b.endedAt.getTime() - a.endedAt.getTime())[0];
  if (ended?.g.revokedAt) return { allow: false, code: "grant_revoked", wall: "grant", grantId: ended.g.id };
  if (ended) return { allow: false, code: "grant_expired", wall: "grant", grantId: ended.g.id };
  return { allow: false, code: "consent_required", wall: "grant", grantId: null };
}
