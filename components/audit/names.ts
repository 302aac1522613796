// The support console's words for the names the server sends with a page of the trail (lib/views/audit.ts):
// accounts, providers and permissions as the Connection Hub names them, a grant as "<agent>'s access to <realm>",
// a recorded search's filters by what they name. Pure.
import type { AccountName, AuditNames } from "@/lib/views/audit-names";

export type { AccountName, AuditNames };

export const noAuditNames: AuditNames = { accounts: {}, providers: {}, claims: {} };

/** Later pages add the accounts they name; the vocabularies are the same on every page. */
export function mergeAuditNames(a: AuditNames, b: AuditNames | undefined): AuditNames {
  if (!b) return a;
  return { accounts: { ...a.accounts, ...b.accounts }, providers: { ...a.providers, ...b.providers }, claims: { ...a.claims, ...b.claims } };
}

/** "Work (alice@acme.test)", or just the label when it is the address. */
export function accountText(a: AccountName): string {
  return a.email && a.email !== a.label ? `${a.label} (${a.email})` : a.label;
}

export const providerText = (names: AuditNames, id: string) => (Object.hasOwn(names.providers, id) ? names.providers[id]! : id);
export const claimText = (names: AuditNames, claim: string) => (Object.hasOwn(names.claims, claim) ? names.claims[claim]! : claim);
export const accountNameText = (names: AuditNames, id: string) => (Object.hasOwn(names.accounts, id) ? accountText(names.accounts[id]!) : null);

/** A grant by what it is: "Demo Agent's access to Docs". */
export const grantTitle = (agent: string, realm: string) => `${agent}'s access to ${realm}`;

/**
 * An operation called without a realm (provider_about or object_schema across every realm), in the words the realms'
 * own labels use for it ("About Mail", "Browse Mail's capabilities"); null for one that has no such words.
 */
const acrossRealms: Record<string, string> = {
  "provider.about": "See what the realms offer",
  "object.schema": "Look up what the realms offer",
  "object.search": "Search across the realms",
  "object.list": "Browse across the realms",
};
export const operationAcrossRealms = (operation: string): string | null => (Object.hasOwn(acrossRealms, operation) ? acrossRealms[operation]! : null);

/** How the console names each filter's value: the person, agent, realm… behind it. */
export type FilterLookups = {
  person: (id: string) => string | null;
  agent: (id: string) => string | null;
  realm: (namespace: string) => string;
  operation: (namespace: string | null, operation: string) => string;
  outcome: (outcome: string) => string;
  event: (event: string) => string;
  time: (iso: string) => string;
};

const filterLabels: Record<string, { label: string; value: (v: string, f: Record<string, unknown>, look: FilterLookups) => string }> = {
  user_id: { label: "Person", value: (v, _f, l) => l.person(v) ?? v },
  actor_id: { label: "Agent", value: (v, _f, l) => l.agent(v) ?? v },
  namespace: { label: "Realm", value: (v, _f, l) => l.realm(v) },
  operation: { label: "Operation", value: (v, f, l) => l.operation(typeof f.namespace === "string" ? f.namespace : null, v) },
  outcome: { label: "Outcome", value: (v, _f, l) => l.outcome(v) },
  event: { label: "What happened", value: (v, _f, l) => l.event(v) },
  from: { label: "From", value: (v, _f, l) => l.time(v) },
  to: { label: "To", value: (v, _f, l) => l.time(v) },
};

/** The search a support view or an export recorded, by the names of what it filtered on ("Person: Bob Member; …"). */
export function filtersText(filters: Record<string, unknown>, look: FilterLookups): string {
  const parts = Object.entries(filters).flatMap(([k, x]) => {
    if (x === undefined || x === null || x === "") return [];
    const v = typeof x === "string" ? x : JSON.stringify(x);
    const known = Object.hasOwn(filterLabels, k) ? filterLabels[k]! : null;
    return [known ? `${known.label}: ${known.value(v, filters, look)}` : `${k.replaceAll("_", " ")}: ${v}`];
  });
  return parts.length ? parts.join("; ") : "none";
}

/** True when both ends of a time range are set and "from" is after "to" (ISO times compare as instants). */
export function datesReversed(range: { from?: string; to?: string }): boolean {
  if (!range.from || !range.to) return false;
  const from = Date.parse(range.from);
  const to = Date.parse(range.to);
  return Number.isFinite(from) && Number.isFinite(to) && from > to;
}
