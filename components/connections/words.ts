// The Connection Hub's words: account states and the outcome of a round trip to a provider.
import type { BadgeTone } from "@/components/ui/badge";

export const statusWords: Record<string, { label: string; tone: BadgeTone }> = {
  active: { label: "Connected", tone: "green" },
  needs_reconnect: { label: "Needs reconnecting", tone: "amber" },
  revoked: { label: "Disconnected", tone: "slate" },
};

export const resultWords: Record<string, string> = {
  connect: "Account connected.",
  upgrade: "Permission added.",
  reconnect: "Account reconnected.",
  narrow: "Permission removed.",
};

/** A narrowing the provider did not honour: it handed back a permission asked to be removed. */
export const NARROW_KEPT = "narrow_kept";

/** Why a connection attempt ended without a change (the callback's `connection_error`). */
export const errorWords: Record<string, string> = {
  state_missing: "The provider's answer was incomplete. Nothing changed; please start again.",
  state_invalid: "That answer does not belong to a connection you started here. Nothing changed; please start again.",
  state_reused: "That sign-in answer was already used. Nothing changed; please start again.",
  state_expired: "The connection attempt took too long and expired. Nothing changed; please start again.",
  provider_denied: "Access was not granted at the provider. Nothing changed.",
  provider_error: "The provider refused the request. Nothing changed; please try again.",
  issuer_mismatch: "The answer did not come from the provider it should have. Nothing changed.",
  code_rejected: "The provider did not accept the sign-in code. Nothing changed; please start again.",
  id_token_invalid: "The provider's identity answer could not be verified. Nothing changed.",
  account_mismatch: "You signed in as a different account than the one being fixed. Nothing changed; sign in with that account.",
  provider_unavailable: "The provider could not be reached. Nothing changed; please try again in a moment.",
};

export const errorText = (code: string) => errorWords[code] ?? "The connection did not complete. Nothing changed; please try again.";
