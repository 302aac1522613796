// The consent demand of gate two (`needs_connected_account_consent`): which wall (no account, a missing
// claim, a broken connection, an unknown account), who can open it, a deep link straight to the fix in the
// Connection Hub, and whether retrying the same call will then succeed.
import { AppError } from "@/lib/errors";
import { safeReturnPath } from "@/lib/input/return-to";
import { accountName, type AccountFacts, type DemandReason } from "./gate-two";
import { claimLabel, type ApiFamily } from "./providers";

export const FIX_PATH = "/connections/fix";

export type DemandFacts = {
  reason: DemandReason;
  api: ApiFamily;
  namespace: string;
  operation: string;
  missingClaims: string[];
  candidates: AccountFacts[];
  /** The account the demand is about (upgrade, reconnect), if one. */
  account: AccountFacts | null;
  /** What the caller named in `account`, when nothing matched. */
  selector: string | null;
  appUrl: string;
  /** The delegated actor that asked, or null when a person called for themselves. */
  actor: { id: string; name: string } | null;
  /** The person who can open the wall: the user, or the actor's grantor. */
  grantorName: string;
  /** Extra context (e.g. the provider refused the token). */
  note?: string;
};

const RETRY: Record<DemandReason, string> = {
  connect_required: "retry_after_connect",
  claim_upgrade_required: "retry_after_upgrade",
  reconnect_required: "retry_after_reconnect",
  account_required: "retry_with_a_listed_account_or_after_connect",
};

export const candidateView = (a: AccountFacts) => ({ account_id: a.id, label: a.label, email: a.email, status: a.status, claims: a.claims, provider: a.provider });

/** The same-origin deep link to the fix: reason, what is missing, who asked, and where to go afterwards. */
export function fixLink(f: Pick<DemandFacts, "reason" | "api" | "namespace" | "operation" | "missingClaims" | "account" | "actor" | "selector" | "appUrl">, returnTo = "/connections"): string {
  const q = new URLSearchParams({ reason: f.reason, api: f.api.id, namespace: f.namespace, operation: f.operation });
  if (f.missingClaims.length) q.set("claims", f.missingClaims.join(","));
  if (f.account) q.set("account", f.account.id);
  if (f.actor) q.set("actor", f.actor.id);
  if (f.selector) q.set("selector", f.selector.slice(0, 200));
  q.set("return_to", safeReturnPath(returnTo, "/connections"));
  return `${f.appUrl}${FIX_PATH}?${q.toString()}`;
}

export function consentDemand(f: DemandFacts): AppError {
  const url = fixLink(f);
  const who = f.actor ? f.grantorName : "you";
  const ask = f.actor ? `Ask ${f.grantorName} to` : "Please";
  const wants = f.missingClaims.map((c) => `"${claimLabel(f.api, c)}"`).join(" and ");
  const acct = f.account ? accountName(f.account) : null;
  const mailAccount = `${f.api.label.toLowerCase()} account`;
  let message: string;
  let instructions: string;
  switch (f.reason) {
    case "connect_required":
      message = acct
        ? `The ${mailAccount} ${acct} was disconnected; ${f.namespace} needs it connected again for ${f.operation}.`
        : `${f.namespace} needs a connected ${mailAccount} for ${f.operation}, and ${who === "you" ? "you have" : `${who} has`} none.`;
      instructions = `${ask} connect a ${mailAccount}${wants ? ` allowing ${wants}` : ""} at ${url}, then retry the same call.`;
      break;
    case "claim_upgrade_required":
      message = `The ${mailAccount} ${acct} is connected without ${wants}, which ${f.operation} needs.`;
      instructions = `${ask} allow ${wants} for ${acct} at ${url} (only the missing permission is asked for), then retry the same call.`;
      break;
    case "reconnect_required":
      message = `The ${mailAccount} ${acct} must be reconnected${f.note ? `: ${f.note}` : ""}.`;
      instructions = `${ask} reconnect ${acct} at ${url}, then retry the same call.`;
      break;
    case "account_required":
      message = f.selector
        ? `No connected ${mailAccount} matches "${f.selector.slice(0, 80)}".`
        : `This call must name one of the connected ${mailAccount}s.`;
      instructions = f.candidates.length
        ? `Retry with account set to one of: ${f.candidates.map((c) => c.label).join(", ")}; or ${f.actor ? `ask ${f.grantorName} to ` : ""}connect that account at ${url}.`
        : `${ask} connect that account at ${url}, then retry the same call.`;
      break;
  }
  return new AppError("needs_connected_account_consent", message, {
    details: {
      gate: "two",
      wall: "connected_account",
      reason: f.reason,
      namespace: f.namespace,
      operation: f.operation,
      missing_claims: f.missingClaims,
      account_id: f.account?.id ?? null,
      candidates: f.candidates.map(candidateView),
      who_can_open: f.grantorName,
      connection_hub_url: url,
      retry_hint: RETRY[f.reason],
      instructions,
    },
  });
}
