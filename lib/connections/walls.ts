// The connected-account walls ahead of a call, read before the call runs: gate two's decision over the
// grantor's stored accounts and the claims the operation declares, without asking the provider anything. A
// consent request lists them, so one visit to its page opens gate one and gate two together. Only the grantor's
// own accounts are read; an account a ref names that is not theirs yields no wall (nothing about it is told).
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { connectedAccounts } from "@/db/schema";
import type { ParsedRef, RealmManifest } from "@/lib/realms/contract";
import { connectedOrder } from "./accounts";
import { fixLink } from "./demand";
import { accountName, gateTwo, type AccountFacts, type DemandReason } from "./gate-two";
import { apiFamilies, claimLabel, findProvider, type ApiFamily } from "./providers";

/** One wall of gate two ahead of a call, as `details.also_needed` of a `consent_required` answer lists it. */
export type WallAhead = {
  wall: "connected_account";
  reason: DemandReason;
  namespace: string;
  operation: string;
  api: string;
  missing_claims: string[];
  /** The grantor's account the wall is about (upgrade, reconnect), or null when an account must be connected. */
  account_id: string | null;
  account_label: string | null;
  /** The fix in the Connection Hub, coming back to the consent page. */
  connection_hub_url: string;
};

/** What a person reads of a wall on the consent page. */
export type WallView = WallAhead & {
  api_label: string;
  missing: { name: string; label: string }[];
  account: { id: string; label: string; email: string | null; provider_label: string } | null;
  /** Upgrade and reconnect start the provider round trip straight from the consent page; connecting goes by the fix page. */
  start: { intent: "upgrade" | "reconnect"; account_id: string; claims: string[] } | null;
};

const READS = new Set(["object.list", "object.search", "object.get"]);

/**
 * The claims an operation of a connected realm needs at gate two, or null when it reaches no account: an
 * action's declared `claims`; for reads of the realm's kinds, its connection API's first claim (reading).
 */
export function claimsNeeded(m: Pick<RealmManifest, "connection" | "actions">, operation: string): string[] | null {
  const api = m.connection ? apiOf(m.connection.api) : null;
  if (!api) return null;
  if (operation.startsWith("object.action.")) return m.actions.find((a) => a.name === operation.slice(14))?.claims ?? null;
  return READS.has(operation) && api.claims[0] ? [api.claims[0].name] : null;
}

const apiOf = (id: string): ApiFamily | null => (Object.hasOwn(apiFamilies, id) ? apiFamilies[id]! : null);

/** The account a call names by `account` (its payload, filter or selector), as the connected realms' rules say. */
export function accountSelectorOf(input: Record<string, unknown> | null | undefined): string | null {
  for (const key of ["payload", "filter", "selector"]) {
    const v = input?.[key];
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const account = (v as Record<string, unknown>).account;
      if (typeof account === "string" && account.trim()) return account.trim().slice(0, 200);
    }
  }
  return null;
}

export type WallsAsk = {
  tenantId: string;
  /** Whose accounts: the grantor's (the authority the call projects), never anyone else's. */
  userId: string;
  manifest: Pick<RealmManifest, "namespace" | "connection" | "actions">;
  operations: readonly string[];
  /** The refs the call names, parsed by the realm: one that carries an account pins the call to it. */
  parsed: readonly ParsedRef[];
  selector: string | null;
  actor: { id: string; name: string } | null;
  appUrl: string;
  /** Where the fix comes back to (the consent page); kept same-origin by fixLink. */
  returnTo: string;
};

/** The walls ahead (none, or the one account's), read in one statement; an empty list when nothing is connected-realm. */
export async function wallsAhead(db: Executor, ask: WallsAsk): Promise<WallView[]> {
  const m = ask.manifest;
  const needs = ask.operations.map((op) => ({ op, claims: claimsNeeded(m, op) })).filter((x): x is { op: string; claims: string[] } => x.claims !== null);
  if (!m.connection || needs.length === 0) return [];
  const api = apiOf(m.connection.api)!;
  const rows = await db
    .select()
    .from(connectedAccounts)
    .where(and(eq(connectedAccounts.tenantId, ask.tenantId), eq(connectedAccounts.userId, ask.userId), eq(connectedAccounts.api, api.id)))
    .orderBy(...connectedOrder);
  const accounts: AccountFacts[] = rows.map((r) => ({ id: r.id, label: r.label, email: r.email, status: r.status, claims: r.claims, provider: r.provider }));
  const needClaims = [...new Set(needs.flatMap((n) => n.claims))];
  const pinned = ask.parsed.find((p) => p.account_id)?.account_id ?? null;
  const decision = gateTwo({ accounts, needClaims, pinnedAccountId: pinned, selector: ask.selector });
  // Let in, several to choose from (the agent names one), or a ref to an account that is not the grantor's: no wall to open.
  if (decision.allow || decision.kind !== "demand") return [];
  const operation = needs[0]!.op;
  const account = decision.account;
  const url = fixLink(
    { reason: decision.reason, api, namespace: m.namespace, operation, missingClaims: decision.missingClaims, account, actor: ask.actor, selector: ask.selector, appUrl: ask.appUrl },
    ask.returnTo,
  );
  const start =
    account && (decision.reason === "claim_upgrade_required" || decision.reason === "reconnect_required")
      ? { intent: decision.reason === "claim_upgrade_required" ? ("upgrade" as const) : ("reconnect" as const), account_id: account.id, claims: decision.missingClaims }
      : null;
  return [
    {
      wall: "connected_account",
      reason: decision.reason,
      namespace: m.namespace,
      operation,
      api: api.id,
      missing_claims: decision.missingClaims,
      account_id: account?.id ?? null,
      account_label: account ? accountName(account) : null,
      connection_hub_url: url,
      api_label: api.label,
      missing: decision.missingClaims.map((c) => ({ name: c, label: claimLabel(api, c) })),
      account: account ? { id: account.id, label: account.label, email: account.email, provider_label: findProvider(account.provider)?.label ?? account.provider } : null,
      start,
    },
  ];
}

/** The wire shape of a wall (what an agent is told): the page's words left out. */
export const wallAhead = (w: WallView): WallAhead => ({
  wall: w.wall,
  reason: w.reason,
  namespace: w.namespace,
  operation: w.operation,
  api: w.api,
  missing_claims: w.missing_claims,
  account_id: w.account_id,
  account_label: w.account_label,
  connection_hub_url: w.connection_hub_url,
});

/** What opening a wall does, in a few words: "allow "Send mail as you" for dana@mail.test". */
export function wallPhrase(w: WallView): string {
  const wants = w.missing.map((c) => `"${c.label}"`).join(" and ");
  const kind = `${w.api_label.toLowerCase()} account`;
  switch (w.reason) {
    case "claim_upgrade_required":
      return `allow ${wants} for ${w.account_label}`;
    case "reconnect_required":
      return `reconnect ${w.account_label}`;
    case "connect_required":
    case "account_required":
      return `connect a ${kind}${wants ? ` allowing ${wants}` : ""}`;
  }
}
