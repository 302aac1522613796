// What a person approved for an imported operation is its meaning: the endpoint it calls and how risky it is.
// A re-import that moves an operation to another method or path, or a re-import or curation that raises its
// effective risk (the owner's override if set, else the card's), changes that meaning — lib/authz/suspensions
// then suspends the operation on every grant covering it until the person approves again. Input schema,
// summary, scopes or a lower risk do not change what was approved.
import type { AffectedGrant, MeaningChange } from "@/lib/authz/suspensions";
import { actionOperationKey, type Risk } from "@/lib/realms/contract";
import type { OperationCard } from "./compile";
import type { Curation } from "./manifest";

const RANK: Record<Risk, number> = { read: 0, write: 1, destructive: 2 };
export const riskRises = (from: Risk, to: Risk): boolean => RANK[to] > RANK[from];

/** At most this many (grant, operation) entries are listed in an answer. */
export const AFFECTED_LIST_CAP = 200;

/** How many distinct grants a list of (grant, operation) entries touches. */
export const grantCount = (list: AffectedGrant[]): number => new Set(list.map((a) => a.grant_id)).size;

type Card = Pick<OperationCard, "action" | "method" | "path" | "risk">;

/**
 * The meaning changes between the stored operations and a re-import's, by action name. Curation is kept across
 * a re-import, so the same override applies on both sides; operations added or removed are not changes of meaning.
 */
export function meaningChanges(before: Card[], after: Card[], curations: Map<string, Pick<Curation, "risk">>): MeaningChange[] {
  const old = new Map(before.map((c) => [c.action, c]));
  const out: MeaningChange[] = [];
  for (const c of after) {
    const o = old.get(c.action);
    if (!o) continue;
    const override = curations.get(c.action)?.risk ?? null;
    const parts: string[] = [];
    if (o.method !== c.method || o.path !== c.path) parts.push(`endpoint ${o.method} ${o.path} → ${c.method} ${c.path}`);
    const from = override ?? o.risk;
    const to = override ?? c.risk;
    if (riskRises(from, to)) parts.push(`risk ${from} → ${to}`);
    if (parts.length) out.push({ operation: actionOperationKey(c.action), change: parts.join("; ") });
  }
  return out;
}

/** The change a curation makes to one operation's meaning: its effective risk rising, or nothing. */
export function curationMeaningChange(card: Card, was: Risk | null, now: Risk | null): MeaningChange | null {
  const from = was ?? card.risk;
  const to = now ?? card.risk;
  return riskRises(from, to) ? { operation: actionOperationKey(card.action), change: `risk ${from} → ${to} (set by the owner)` } : null;
}
