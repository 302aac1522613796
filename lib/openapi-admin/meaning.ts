// What a person approved for an imported operation is its meaning: the endpoint it calls and how risky it is.
// A re-import that moves an operation to another method or path, or a re-import or curation that raises its
// effective risk (the owner's override if set, else the card's), changes that meaning — lib/authz/suspensions
// then suspends the operation on every grant covering it until the person approves again. Input schema,
// summary, scopes or a lower risk do not change what was approved.
import type { AffectedGrant, MeaningChange } from "@/lib/authz/suspensions";
import { actionOperationKey, type Risk } from "@/lib/realms/contract";
import { riskRises } from "@/lib/realms/risk-rises";
import type { OperationCard } from "@/lib/realms/openapi/compile";
import type { Curation } from "@/lib/realms/openapi/manifest";


/** At most this many (grant, operation) entries are listed in an answer. */
export const AFFECTED_LIST_CAP = 200;

/** How many distinct grants a list of (grant, operation) entries touches. */
export const grantCount = (list: AffectedGrant[]): number => new Set(list.map((a) => a.grant_id)).size;

type Card = Pick<OperationCard, "action" | "method" | "path" | "risk">;

/**
 * The meaning changes between the stored operations and a re-import's, by action name. Curation is kept across
 * a re-import, so the same override applies on both sides. An operation that leaves the service is suspended too
 * (so adding its name back later, perhaps as something else, never inherits the old approval), as is one that
 * appears (an "every action" grant was approved before it existed). A new service address changes every
 * operation: the same request now goes to another host.
 */
export function meaningChanges(
  before: Card[],
  after: Card[],
  curations: Map<string, Pick<Curation, "risk">>,
  address: { from: string | null; to: string } = { from: null, to: "" },
): MeaningChange[] {
  const old = new Map(before.map((c) => [c.action, c]));
  const now = new Set(after.map((c) => c.action));
  const moved = address.from !== null && address.from !== address.to;
  const out: MeaningChange[] = [];
  for (const c of after) {
    const o = old.get(c.action);
    if (!o) {
      out.push({ operation: actionOperationKey(c.action), change: `new operation ${c.method} ${c.path} (${c.risk})` });
      continue;
    }
    const override = curations.get(c.action)?.risk ?? null;
    const parts: string[] = [];
    if (moved) parts.push(`service address ${address.from} → ${address.to}`);
    if (o.method !== c.method || o.path !== c.path) parts.push(`endpoint ${o.method} ${o.path} → ${c.method} ${c.path}`);
    const from = override ?? o.risk;
    const to = override ?? c.risk;
    if (riskRises(from, to)) parts.push(`risk ${from} → ${to}`);
    if (parts.length) out.push({ operation: actionOperationKey(c.action), change: parts.join("; ") });
  }
  for (const o of before) if (!now.has(o.action)) out.push({ operation: actionOperationKey(o.action), change: `removed from the service (was ${o.method} ${o.path})` });
  return out;
}

/** The change a curation makes to one operation's meaning: its effective risk rising, or nothing. */
export function curationMeaningChange(card: Card, was: Risk | null, now: Risk | null): MeaningChange | null {
  const from = was ?? card.risk;
  const to = now ?? card.risk;
  return riskRises(from, to) ? { operation: actionOperationKey(card.action), change: `risk ${from} → ${to} (set by the owner)` } : null;
}
