// What the Connection Hub pages show: the providers one can connect, and the fix page's view of a consent
// demand — who asked, for what, what is missing — recomputed from the live accounts, so the page says
// "fixed" as soon as it is, whatever the link said.
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "@/db/client";
import { actors, connectedAccounts } from "@/db/schema";
import type { UserContext } from "@/lib/authz/context";
import { safeReturnPath } from "@/lib/input/return-to";
import { accountView, type AccountView } from "@/lib/connections/accounts";
import { gateTwo, type DemandReason } from "@/lib/connections/gate-two";
import { apiFamilies, claimLabel, configuredProviders } from "@/lib/connections/providers";

export type ClaimView = { name: string; label: string };
export type ProviderChoice = { id: string; label: string; api: string; api_label: string; claims: ClaimView[] };

export function providerChoices(): ProviderChoice[] {
  return configuredProviders().flatMap((p) => {
    const api = apiFamilies[p.api];
    return api ? [{ id: p.id, label: p.label, api: api.id, api_label: api.label, claims: api.claims.map((c) => ({ name: c.name, label: c.label })) }] : [];
  });
}

const reasons = ["connect_required", "claim_upgrade_required", "reconnect_required", "account_required"] as const satisfies readonly DemandReason[];

/** The deep link's parameters (everything is a hint to display; nothing here grants anything). */
export const fixQuery = z.object({
  reason: z.enum(reasons),
  /** Optional while there is one API family: an old link without it means that one. */
  api: z.string().max(40).optional(),
  namespace: z.string().max(40).default("mail"),
  operation: z.string().max(250).default("object.search"),
  claims: z.string().max(500).default(""),
  account: z.string().max(64).optional(),
  actor: z.string().max(64).optional(),
  selector: z.string().max(200).optional(),
  return_to: z.string().max(2000).optional(),
});

export type FixView = {
  /** The wall the link was made for. */
  asked: DemandReason;
  /** The wall as it stands now: null once nothing is missing. */
  live: { reason: DemandReason; missing: ClaimView[]; account: AccountView | null } | null;
  /** Fixed, but the caller has several accounts and must name one. */
  choose: AccountView[] | null;
  api: { id: string; label: string };
  realm: { namespace: string; title: string };
  operation: { key: string; label: string };
  actor: { id: string; name: string } | null;
  needed: ClaimView[];
  accounts: AccountView[];
  providers: ProviderChoice[];
  selector: string | null;
  returnTo: string;
};

/** Human words for a realm and one of its operations (the caller looks them up; connections know no realms). */
export type DescribeOperation = (namespace: string, operation: string) => Promise<{ title: string; operationLabel: string } | null>;

export async function fixView(
  db: Executor,
  who: Pick<UserContext, "tenantId" | "userId">,
  raw: Record<string, string | string[] | undefined>,
  describe: DescribeOperation,
): Promise<FixView | null> {
  const flat = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const parsed = fixQuery.safeParse(flat);
  if (!parsed.success) return null;
  const q = parsed.data;
  const families = Object.keys(apiFamilies);
  const apiId = q.api ?? (families.length === 1 ? families[0]! : null);
  const api = apiId !== null && Object.hasOwn(apiFamilies, apiId) ? apiFamilies[apiId] : undefined;
  if (!api) return null;
  const needNames = q.claims.split(",").map((c) => c.trim()).filter((c) => api.claims.some((x) => x.name === c));
  const named = (c: string): ClaimView => ({ name: c, label: claimLabel(api, c) });

  const rows = await db
    .select()
    .from(connectedAccounts)
    .where(and(eq(connectedAccounts.tenantId, who.tenantId), eq(connectedAccounts.userId, who.userId), eq(connectedAccounts.api, api.id)))
    .orderBy(asc(connectedAccounts.createdAt), asc(connectedAccounts.id)); // choices in the order they were connected
  const views = new Map(rows.map((r) => [r.id, accountView(r)]));
  const pinned = q.account && views.has(q.account) ? q.account : null;
  const decision = gateTwo({
    accounts: rows.map((r) => ({ id: r.id, label: r.label, email: r.email, status: r.status, claims: r.claims, provider: r.provider })),
    needClaims: needNames,
    pinnedAccountId: pinned,
    selector: q.selector ?? null,
  });

  let actor: FixView["actor"] = null;
  if (q.actor) {
    // Only the person's own actors are named; anyone else's id in a link shows as "an agent".
    const [a] = await db.select({ id: actors.id, name: actors.name }).from(actors).where(and(eq(actors.id, q.actor), eq(actors.tenantId, who.tenantId), eq(actors.grantorId, who.userId)));
    actor = a ?? null;
  }
  const words = await describe(q.namespace, q.operation);
  return {
    asked: q.reason,
    live: decision.allow
      ? null
      : decision.kind === "demand"
        ? { reason: decision.reason, missing: decision.missingClaims.map(named), account: decision.account ? (views.get(decision.account.id) ?? null) : null }
        : decision.kind === "not_found"
          ? { reason: "connect_required", missing: needNames.map(named), account: null }
          : null,
    choose: !decision.allow && decision.kind === "ambiguous" ? decision.choices.map((c) => views.get(c.id)!) : null,
    api: { id: api.id, label: api.label },
    realm: { namespace: q.namespace, title: words?.title ?? q.namespace },
    operation: { key: q.operation, label: words?.operationLabel ?? q.operation },
    actor,
    needed: needNames.map(named),
    accounts: [...views.values()].filter((a) => a.status !== "revoked"),
    providers: providerChoices().filter((p) => p.api === api.id),
    selector: q.selector ?? null,
    returnTo: safeReturnPath(q.return_to, "/connections"),
  };
}
