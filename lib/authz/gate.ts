// Gate one, as small pure functions over plain data: owner ceiling ∩ user choice ∩ the actor's live grant.
// The database read that feeds it (lib/authz/gate-read.ts) sits beside it, in the call's transaction.
import type { ApprovalStatus, GrantSuspension, OperationMode, ResourceScope } from "@/db/schema";
import type { OperationKey, ParsedRef, Principal, Risk } from "@/lib/realms/contract";
import { defaultCeilingMode, effectiveMode } from "./modes";

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
  /** The owner ceiling's mode for this operation (null: never set — on, or the tenant's default for a destructive one). */
  ceilingMode: OperationMode | null;
  /** The grantor's own mode for this operation (null: never set, which means no narrowing). */
  choiceMode: OperationMode | null;
  /** The operation's risk (default read): a read is never asked; a destructive one starts at the tenant's default. */
  risk?: Risk;
  /** The ceiling mode of a destructive operation the owner never set (default on). */
  destructiveDefault?: "ask" | "on";
  /** The call named an approval (`approval_id`): the approval as read, locked, in the call's transaction. */
  approval?: ApprovalAsk;
  /** The actor's grants in this namespace, in any state. */
  grants: GrantFacts[];
  now: Date;
  /** The owner marked this operation "only an exact grant covers it": "all actions" does not cover it. */
  exactOnly?: boolean;
  /**
   * The owner's "agents may read this realm's description without asking" (null: never set, which means yes).
   * Read only for the describing operations; ignored for every other.
   */
  openDescription?: boolean | null;
  /**
   * The owner's "agents act only on operations they selected" holds for this realm, and this action is not in the
   * actor's live working set. Read only for actions.
   */
  notSelected?: boolean;
};

export type GateOneDenialCode = "operation_disabled" | "operation_not_selected" | "consent_required" | "grant_expired" | "grant_revoked";
export type ApprovalDenialCode = "approval_required" | "approval_denied" | "approval_expired" | "approval_mismatch" | "approval_unknown";

/** An approval as gate one reads it. */
export type ApprovalFacts = {
  id: string;
  actorId: string;
  tool: string;
  namespace: string;
  operation: string;
  /** The object the person approved the call for (a selector resolved when it was asked), or null. */
  ref: string | null;
  status: ApprovalStatus;
  payloadDigest: string;
  expiresAt: Date;
  note: string | null;
  result: unknown;
  voidReason: string | null;
};

/**
 * What the call brought: the approval it names, the digest of its own input, its tool; and the approval as read
 * (null: none by that id for this tenant). `link`: not a call but a signed link the approved call minted — it
 * stays good while its approval is the one that ran (consumed), for this actor and operation.
 */
export type ApprovalAsk = { id: string; digest: string; tool: string; row: ApprovalFacts | null; link?: true };

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
      /** Let in by a person's approval of this exact call: consumed with the effect, in its transaction. */
      approvalId?: string;
      /** The object that approval was given for: a selector the call names must still resolve to it. */
      approvalRef?: string | null;
      /** The approval was consumed by an earlier call: answer with its result, run nothing. */
      replay?: { approvalId: string; result: unknown };
    }
  | {
      allow: false;
      code: ApprovalDenialCode;
      wall: "approval";
      grantId: null;
      /** The approval the call named, as read (approval_required with one: still waiting for the person). */
      approval?: ApprovalFacts;
    }
  | {
      allow: false;
      code: GateOneDenialCode;
      wall: "owner_ceiling" | "user_choice" | "working_set" | "grant";
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

/** Whether an approval still counts at `now`: pending or approved and not past its expiry. */
export const approvalLive = (a: Pick<ApprovalFacts, "status" | "expiresAt">, now: Date) =>
  (a.status === "pending" || a.status === "approved") && now.getTime() < a.expiresAt.getTime();

/**
 * A call naming an approval: the approval must be this actor's, for this very call (tool, realm, operation and the
 * digest of the input); then it runs once if approved and live, replays if consumed, and otherwise says why not.
 */
function byApproval(a: ApprovalAsk, actorId: string, namespace: string, operation: OperationKey, now: Date): GateOneDecision {
  const row = a.row;
  const no = (code: ApprovalDenialCode): GateOneDecision => ({ allow: false, code, wall: "approval", grantId: null, ...(row ? { approval: row } : {}) });
  // Another actor's approval is as unknown as one that does not exist.
  if (!row || row.actorId !== actorId) return { allow: false, code: "approval_unknown", wall: "approval", grantId: null };
  if (a.link) {
    const ran = row.status === "consumed" && row.namespace === namespace && row.operation === operation;
    return ran ? { allow: true, grantId: row.id, scope: null, candidates: [] } : no("approval_expired");
  }
  if (row.tool !== a.tool || row.namespace !== namespace || row.operation !== operation || row.payloadDigest !== a.digest) return no("approval_mismatch");
  if (row.status === "consumed") return { allow: true, grantId: null, scope: null, candidates: [], replay: { approvalId: row.id, result: row.result } };
  if (row.status === "denied") return no("approval_denied");
  if (!approvalLive(row, now)) return no("approval_expired");
  if (row.status === "pending") return no("approval_required");
  // Refs the adapter reaches by name are the approved call's own (its input is bound by the digest): the realm's
  // gate two, with the grantor's authority, still decides each of them.
  return { allow: true, grantId: null, scope: null, candidates: [{ grantId: row.id, scope: null }], approvalId: row.id, approvalRef: row.ref };
}

export function gateOne(input: GateOneInput): GateOneDecision {
  const { principal, operation, refs, now } = input;
  // People act as themselves: the ceiling and choices bound their agents, and gate two their own reach.
  if (principal.type === "user") return { allow: true, grantId: null, scope: null, candidates: [] };

  const risk = input.risk ?? "read";
  const destructiveDefault = input.destructiveDefault ?? "on";
  const ceiling = input.ceilingMode ?? defaultCeilingMode(risk, destructiveDefault);
  if (ceiling === "off") return { allow: false, code: "operation_disabled", wall: "owner_ceiling", grantId: null };
  if (input.choiceMode === "off") return { allow: false, code: "operation_disabled", wall: "user_choice", grantId: null };
  // The owner made the working set the authority: an action the agent did not select is not called.
  if (input.notSelected) return { allow: false, code: "operation_not_selected", wall: "working_set", grantId: null };
  const asks = effectiveMode(ceiling, input.choiceMode, risk, destructiveDefault) === "ask";
  // In ask mode a call that names an approval is decided by it alone: a person approved exactly this call. Once the
  // operation no longer asks, an approval counts only to replay a call that already ran (a link it minted too);
  // anything else goes through the grants, as any call.
  if (input.approval && (asks || input.approval.row?.status === "consumed")) return byApproval(input.approval, principal.actorId, input.namespace, operation, now);
  // Ask each time: no grant covers it, whatever it says.
  if (asks) return { allow: false, code: "approval_required", wall: "approval", grantId: null };

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

/** A refusal by one of the walls of gate one before approvals (ceiling, choice, working set, grant). */
export type GrantDenial = Extract<GateOneDecision, { allow: false; wall: "owner_ceiling" | "user_choice" | "working_set" | "grant" }>;
/** A refusal about the single-call approval an operation in ask mode needs. */
export type ApprovalDenial = Extract<GateOneDecision, { allow: false; wall: "approval" }>;
export const isApprovalDenial = (d: Extract<GateOneDecision, { allow: false }>): d is ApprovalDenial => d.wall === "approval";
