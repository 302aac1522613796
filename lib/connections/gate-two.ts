// Gate two of connected realms, as a pure function over plain facts: which of the authority's connected
// accounts a call may use, or why none. It can only narrow what gate one allowed; it never widens.
import type { AccountStatus } from "@/db/schema";

export type AccountFacts = { id: string; label: string; email: string | null; status: AccountStatus; claims: string[]; provider: string };

/**
 * How a message names an account: its email, unless its label already says it (an account per workspace is
 * labelled by its workspace and email, "Acme (alice@acme.test)": the email alone would not tell two apart).
 */
export const accountName = (a: Pick<AccountFacts, "label" | "email">): string => (a.email && !a.label.toLowerCase().includes(a.email.toLowerCase()) ? a.email : a.label);

export type DemandReason = "connect_required" | "claim_upgrade_required" | "reconnect_required" | "account_required";

export type GateTwoInput = {
  /** The authority's accounts for this API, in any state. */
  accounts: AccountFacts[];
  /** Claims the operation needs (from the manifest). */
  needClaims: string[];
  /** The account a ref names: only that one may be used. */
  pinnedAccountId: string | null;
  /** The caller's `account` field: a label, an email or an account id. */
  selector: string | null;
};

export type GateTwoDecision =
  | { allow: true; account: AccountFacts }
  | { allow: false; kind: "demand"; reason: DemandReason; missingClaims: string[]; candidates: AccountFacts[]; account: AccountFacts | null }
  | { allow: false; kind: "ambiguous"; choices: AccountFacts[] }
  | { allow: false; kind: "not_found" };

const same = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase();

export function gateTwo(input: GateTwoInput): GateTwoDecision {
  const live = input.accounts.filter((a) => a.status !== "revoked");
  const missingOf = (a: AccountFacts | null) => input.needClaims.filter((c) => !a?.claims.includes(c));
  // A disconnected account holds nothing: connecting it again must bring every claim the call needs.
  const demand = (reason: DemandReason, account: AccountFacts | null): GateTwoDecision => ({
    allow: false,
    kind: "demand",
    reason,
    missingClaims: reason === "connect_required" ? [...input.needClaims] : missingOf(account),
    candidates: live,
    account,
  });

  const evaluate = (a: AccountFacts): GateTwoDecision => {
    if (a.status === "needs_reconnect") return demand("reconnect_required", a);
    if (missingOf(a).length) return demand("claim_upgrade_required", a);
    return { allow: true, account: a };
  };

  if (input.pinnedAccountId !== null) {
    const a = input.accounts.find((x) => x.id === input.pinnedAccountId);
    // Another user's account (or none): the ref names nothing this authority may know about.
    if (!a) return { allow: false, kind: "not_found" };
    if (a.status === "revoked") return demand("connect_required", a);
    if (input.selector !== null && !(same(a.label, input.selector) || same(a.email, input.selector) || a.id === input.selector)) {
      return demand("account_required", null);
    }
    return evaluate(a);
  }
  if (input.selector !== null) {
    const sel = input.selector.trim();
    const matches = live.filter((a) => same(a.label, sel) || same(a.email, sel) || a.id === sel);
    if (matches.length === 0) return demand(live.length ? "account_required" : "connect_required", null);
    if (matches.length > 1) return { allow: false, kind: "ambiguous", choices: matches };
    return evaluate(matches[0]!);
  }
  if (live.length === 0) return demand("connect_required", null);
  if (live.length > 1) return { allow: false, kind: "ambiguous", choices: live };
  return evaluate(live[0]!);
}
