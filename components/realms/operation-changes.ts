// What the operation list computes without React: filtering, the state after changes, what undoes a change,
// the card's counts from the switches, and the list's rows (area headings and operations).
import type { Risk } from "@/lib/realms/contract";
import type { AreaView, OperationView, RealmCardView } from "@/lib/views/realms";

export type Mode = "ceiling" | "choice";
export type Change = { operation: string; enabled: boolean };

const norm = (s: string) => s.toLowerCase().normalize("NFKD");

export function filterOperations(ops: OperationView[], query: string, risk: Risk | "all"): OperationView[] {
  const words = norm(query).split(/\s+/).filter(Boolean);
  return ops.filter((o) => {
    if (risk !== "all" && o.risk !== risk) return false;
    if (words.length === 0) return true;
    const text = norm([o.label, o.key, o.description, ...o.kinds, ...o.claims.map((c) => c.label)].join(" "));
    return words.every((w) => text.includes(w));
  });
}

/**
 * What a ranked search shows: the ranked operations in rank order (those the risk filter keeps), then the
 * operations the instant word filter finds that the ranker left out — nothing a person could find before is lost.
 */
export function rankedOperations(ops: OperationView[], ranked: readonly string[], query: string, risk: Risk | "all"): OperationView[] {
  const byKey = new Map(ops.map((o) => [o.key as string, o]));
  const first = ranked.map((k) => byKey.get(k)).filter((o): o is OperationView => !!o && (risk === "all" || o.risk === risk));
  const seen = new Set(first.map((o) => o.key));
  return [...first, ...filterOperations(ops, query, risk).filter((o) => !seen.has(o.key))];
}

export const valueOf = (o: OperationView, mode: Mode) => (mode === "ceiling" ? o.ceiling : o.choice);
/** In "my agents" mode an operation the ceiling turned off cannot be switched. */
export const blocked = (o: OperationView, mode: Mode) => mode === "choice" && !o.ceiling;

/** The state after some changes in one mode; `effective` follows ceiling ∩ choice. */
export function applyChanges(ops: OperationView[], mode: Mode, changes: Change[]): OperationView[] {
  const next = new Map(changes.map((c) => [c.operation, c.enabled]));
  return ops.map((o) => {
    const v = next.get(o.key);
    if (v === undefined) return o;
    const ceiling = mode === "ceiling" ? v : o.ceiling;
    const choice = mode === "choice" ? v : o.choice;
    return { ...o, ceiling, choice, effective: ceiling && choice };
  });
}

/** The changes that put the changed operations back exactly as they were before (undo, rollback). */
export function previousOf(before: OperationView[], mode: Mode, changes: Change[]): Change[] {
  const changed = new Set(changes.map((c) => c.operation));
  return before.filter((o) => changed.has(o.key)).map((o) => ({ operation: o.key, enabled: valueOf(o, mode) }));
}

/** The card's counts, from the switches as they stand (the same rule as lib/views/realms.ts cardOf). */
export function countsOf(ops: OperationView[], base: RealmCardView["operations"]): RealmCardView["operations"] {
  let on = 0;
  let owner = 0;
  let me = 0;
  for (const o of ops) {
    if (!o.ceiling) owner++;
    else if (!o.choice) me++;
    else on++;
  }
  return { ...base, total: ops.length, on_for_my_agents: on, off_by_owner: owner, off_by_me: me };
}

export type Row = { type: "area"; area: AreaView; shown: number; open: boolean } | { type: "op"; op: OperationView };

/** Area headings, each followed by its shown operations when open; areas with nothing shown are left out. */
export function groupedRows(areas: AreaView[], shown: OperationView[], open: ReadonlySet<string>): Row[] {
  const byArea = new Map<string, OperationView[]>();
  for (const o of shown) byArea.set(o.area, [...(byArea.get(o.area) ?? []), o]);
  const rows: Row[] = [];
  for (const area of areas) {
    const ops = byArea.get(area.id) ?? [];
    if (!ops.length) continue;
    const isOpen = open.has(area.id);
    rows.push({ type: "area", area, shown: ops.length, open: isOpen });
    if (isOpen) for (const op of ops) rows.push({ type: "op", op });
  }
  return rows;
}
