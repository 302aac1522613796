// The support console's search filters: the audit list's own query keys, shared by the page (server) and
// the console (browser), and mirrored in the address bar.
export const filterKeys = ["user_id", "actor_id", "namespace", "operation", "outcome", "event", "from", "to"] as const;
export type Filters = Partial<Record<(typeof filterKeys)[number], string>>;

export function queryString(f: Filters, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const k of filterKeys) if (f[k]) p.set(k, f[k]!);
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  return p.toString();
}

export const sameFilters = (a: Filters, b: Filters) => filterKeys.every((k) => (a[k] ?? "") === (b[k] ?? ""));
