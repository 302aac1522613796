// Gate one, as small pure functions over plain data: owner ceiling ∩ user choice ∩ the actor's live grant.
// The database read that feeds it (lib/authz/gate-read.ts) sits beside it, in the call's transaction.
import type { GrantSuspension, ResourceScope } from "@/db/schema";
import type { OperationKey, ParsedRef, Principal } from "@/lib/realms/contract";

export type GrantFacts = {
  id: string;
  actorId: string;
  operations: string[];
  /** "Every action" (never an exact-grant-only one): a flag, never a string an action name could equal. */
  allActions: boolean;
  resourceScope: ResourceScope | null;
  /** Operations whose meaning changed since the grant was given: not covered until approved again. */
  suspensions: Record<string, GrantSuspension>;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
};

export type GateOneInput = {
  principal: Principal;
  namespace: string;
  operation: OperationKey;
  /**
   * Every ref the call names, parsed: the target first, then refs in fields or the payload. One grant must cover
   * them all. Empty: the call names none (a list, a search, a namespace-level action).
   */
  refs: string[];
  /** What each ref's syntax says (its kind; its account in connected realms). */
  parsed?: Record<string, ParsedRef>;
  /** The refs containing each ref, nearest first (from the realm): a scope on a container covers its contents. */
  lineage?: Record<string, string[]>;
  /** The owner ceiling's setting for this operation (null: never set, which means allowed). */
  ceilingEnabled: boolean | null;
  /** The grantor's own choice for this operation (null: never set, which means allowed). */
  choiceEnabled: boolean | null;
  /** The actor's grants in this namespace, in any state. */
  grants: GrantFacts[];
  now: Date;
  /** The owner marked this operation "needs explicit approval": "all actions" does not cover it. */
  exactOnly?: boolean;
  /**
   * The owner's "agents may read this realm's description without asking" (null: never set, which means yes).
   * Read only for the describing operations; ignored for every other.
   */
  openDescription?: boolean | null;
};

export type GateOneDenialCode = "operation_disabled" | "consent_required" | "grant_expired" | "grant_revoked";

export type GateOneDecision =
  | {
      allow: true;
      grantId: string | null;
      scope: ResourceScope | null;
      /**
       * Every live grant that covers the call, broadest first (the chosen one is the first). Refs an adapter reaches
       * by name later must be covered by one of these together with everything the call named.
       */
      candidates: { grantId: string; scope: ResourceScope | null }[];
      /** Let in with no grant: a describing operation of a realm whose description is open to agents. */
      open?: true;
    }
  | {
      allow: false;
      code: GateOneDenialCode;
      wall: "owner_ceiling" | "user_choice" | "grant";
      grantId: string | null;
      /** A live grant covers the operation but not these refs the call named (empty: the call names no item, and the grant reaches only some). */
      outsideScope?: string[];
      /** A live grant covered this operation until its meaning changed. */
      suspended?: { grantId: string; change: string };
    };

/**
 * The operations that describe a realm rather than touch its data: open to every agent, without a grant, where
 * the ceiling and its grantor's choices leave them on — unless the owner closed the realm's description.
 */
export const DESCRIBING_OPERATIONS: ReadonlySet<string> = new Set(["provider.about", "object.schema"]);

/** Reads without a ref are allowed under a ref-scoped grant (their results are narrowed to the scope). */
const REFLESS_READS = new Set<string>(["provider.about", "object.schema", "object.list", "object.search"]);

/** Exact keys; "all actions" only where the grant says so (and never for an exact-only operation). No case folding, no trimming, no prefixes. */
export function coversOperation(g: Pick<GrantFacts, "operations" | "allActions">, op: OperationKey, exactOnly = false): boolean {
  if (g.operations.includes(op)) return true;
  return !exactOnly && g.allActions && op.startsWith("object.action.");
}

/** Whether the grant's meaning for this operation still holds. */
export const isSuspended = (g: Pick<GrantFacts, "suspensions">, op: OperationKey): boolean => Object.hasOwn(g.suspensions ?? {}, op);

/**
 * Whether a scope covers one ref: exact membership of the ref or of a container the realm's lineage names. An
 * account scope covers refs whose syntax names that account. No string prefixes, ever.
 */
export function coversRef(scope: ResourceScope | null, ref: string, lineage: readonly string[] = [], parsed?: ParsedRef): boolean {
  if (!scope) return true;
  if (scope.refs) return scope.refs.includes(ref) || lineage.some((r) => scope.refs.includes(r));
  return parsed?.account_id !== undefined && parsed.account_id === scope.account_id;
}

/** Whether a scope covers a call naming these refs (none: only ref-less reads, narrowed by the scope; or account scopes). */
export function coversResource(
  scope: ResourceScope | null,
  op: OperationKey,
  refs: readonly string[],
  lineage: Record<string, readonly string[]> = {},
  parsed: Record<string, ParsedRef> = {},
): boolean {
  if (!scope) return true;
  if (refs.length === 0) return scope.account_id !== undefined || REFLESS_READS.has(op);
  return refs.every((r) => coversRef(scope, r, lineage[r] ?? [], parsed[r]));
}

export const isLive = (g: Pick<GrantFacts, "revokedAt" | "expiresAt">, now: Date) =>
  g.revokedAt === null && (g.expiresAt === null || now.getTime() < g.expiresAt.getTime());

export function gateOne(input: GateOneInput): GateOneDecision {
  const { principal, operation, refs, now } = input;
  // People act as themselves: the ceiling and choices bound their agents, and gate two their own reach.
  if (principal.type === "user") return { allow: true, grantId: null, scope: null, candidates: [] };

  if (input.ceilingEnabled === false) return { allow: false, code: "operation_disabled", wall: "owner_ceiling", grantId: null };
  if (input.choiceEnabled === false) return { allow: false, code: "operation_disabled", wall: "user_choice", grantId: null };

  const mine = input.grants.filter((g) => g.actorId === principal.actorId && coversOperation(g, operation, input.exactOnly));
  const covering = mine.filter((g) => coversResource(g.resourceScope, operation, refs, input.lineage, input.parsed));
  // Unscoped grants first: a call they cover needs no narrowing.
  const usable = covering.filter((g) => isLive(g, now) && !isSuspended(g, operation)).sort((a, b) => Number(a.resourceScope !== null) - Number(b.resourceScope !== null));
  const live = usable[0];
  if (live) return { allow: true, grantId: live.id, scope: live.resourceScope, candidates: usable.map((g) => ({ grantId: g.id, scope: g.resourceScope })) };
  // Reading what a realm is and what it offers needs no consent, unless the owner said otherwise.
  if (DESCRIBING_OPERATIONS.has(operation) && input.openDescription !== false) return { allow: true, grantId: null, scope: null, candidates: [], open: true };

  // A live grant that would cover it, but the operation's meaning changed since: approve the new meaning.
  const suspended = covering.find((g) => isLive(g, now) && isSuspended(g, operation));
  if (suspended) {
    return { allow: false, code: "consent_required", wall: "grant", grantId: suspended.id, suspended: { grantId: suspended.id, change: suspended.suspensions[operation]!.change } };
  }
  // A live grant for the operation, scoped to other objects: name the refs it does not reach.
  const partial = mine.find((g) => isLive(g, now) && !isSuspended(g, operation));
  if (partial && refs.length === 0) return { allow: false, code: "consent_required", wall: "grant", grantId: null, outsideScope: [] };
  if (partial) {
    const outside = refs.filter((r) => !coversRef(partial.resourceScope, r, input.lineage?.[r] ?? [], input.parsed?.[r]));
    return { allow: false, code: "consent_required", wall: "grant", grantId: null, outsideScope: outside };
  }

  // No live grant: say why, naming the grant that ended most recently.
  const ended = covering
    .map((g) => ({ g, endedAt: g.revokedAt ?? g.expiresAt ?? g.createdAt }))
    .sort((a, b) => b.endedAt.getTime() - a.endedAt.getTime())[0];
  if (ended?.g.revokedAt) return { allow: false, code: "grant_revoked", wall: "grant", grantId: ended.g.id };
  if (ended && !isLive(ended.g, now)) return { allow: false, code: "grant_expired", wall: "grant", grantId: ended.g.id };
  return { allow: false, code: "consent_required", wall: "grant", grantId: null };
}
