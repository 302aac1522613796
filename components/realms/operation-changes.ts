// What the operation list computes without React: filtering, the modes after changes, what undoes a change,
// which modes a person may pick, the card's counts from the controls, and the list's rows (area headings and
// operations).
import type { OperationMode } from "@/lib/authz/modes";
import type { Risk } from "@/lib/realms/contract";
import type { AreaView, OperationView, RealmCardView } from "@/lib/views/realms";

export type { OperationMode };
/** Whose settings the list shows: the owner's ceiling for the whole workspace, or the viewer's own choices. */
export type Whose = "ceiling" | "choice";
export type Change = { operation: string; mode: OperationMode };

/** How many asking operations the card names before "and N more" (as lib/views/realms.ts ASKING_NAMED). */
const ASKING_NAMED = 3;

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

const rank: Record<OperationMode, number> = { off: 0, ask: 1, on: 2 };
// The same rule as lib/authz/modes.ts (components import lib for types only): stricter wins, a read never asks.
const stricter = (a: OperationMode, b: OperationMode): OperationMode => (rank[a] <= rank[b] ? a : b);
const effectiveOf = (ceiling: OperationMode, choice: OperationMode, risk: Risk): OperationMode => {
  const m = stricter(ceiling, choice);
  return risk === "read" && m === "ask" ? "on" : m;
};

/** The mode as saved in the settings shown: the owner's, or the viewer's own (what undo puts back). */
export const storedOf = (o: OperationView, whose: Whose): OperationMode => (whose === "ceiling" ? o.ceiling_mode : o.choice_mode);
/**
 * The mode the control shows: the owner's in the workspace settings; in "my agents", what the viewer's agents
 * get (a choice of on under the owner's ask is ask, under the owner's off is off).
 */
export const shownOf = (o: OperationView, whose: Whose): OperationMode => (whose === "ceiling" ? o.ceiling_mode : o.mode);
/** In "my agents" an operation the owner turned off cannot be changed. */
export const blocked = (o: OperationView, whose: Whose) => whose === "choice" && o.ceiling_mode === "off";
/** Whether a mode can be picked: reads are on or off; in "my agents", nothing looser than the owner's mode. */
export const allowed = (o: OperationView, whose: Whose, m: OperationMode) =>
  !(o.risk === "read" && m === "ask") && (whose === "ceiling" || rank[m] <= rank[o.ceiling_mode]);

/** The modes after some changes to one side; the booleans and the effective mode follow. */
export function applyChanges(ops: OperationView[], whose: Whose, changes: Change[]): OperationView[] {
  const next = new Map(changes.map((c) => [c.operation, c.mode]));
  return ops.map((o) => {
    const v = next.get(o.key);
    if (v === undefined) return o;
    const ceiling_mode = whose === "ceiling" ? v : o.ceiling_mode;
    const choice_mode = whose === "choice" ? v : o.choice_mode;
    const mode = effectiveOf(ceiling_mode, choice_mode, o.risk);
    return { ...o, ceiling_mode, choice_mode, mode, ceiling: ceiling_mode !== "off", choice: choice_mode !== "off", effective: mode !== "off" };
  });
}

/** The changes that put the changed operations back exactly as they were saved before (undo, rollback). */
export function previousOf(before: OperationView[], whose: Whose, changes: Change[]): Change[] {
  const changed = new Set(changes.map((c) => c.operation));
  return before.filter((o) => changed.has(o.key)).map((o) => ({ operation: o.key, mode: storedOf(o, whose) }));
}

/** The card's counts, from the controls as they stand (the same rule as lib/views/realms.ts cardOf). */
export function countsOf(ops: OperationView[], base: RealmCardView["operations"]): RealmCardView["operations"] {
  const c = { on_for_my_agents: 0, ask_for_my_agents: 0, off_by_owner: 0, off_by_me: 0, asking: [] as string[] };
  for (const o of ops) {
    if (o.ceiling_mode === "off") c.off_by_owner++;
    else if (o.mode === "off") c.off_by_me++;
    else if (o.mode === "ask") {
      c.ask_for_my_agents++;
      if (c.asking.length < ASKING_NAMED) c.asking.push(o.label);
    } else c.on_for_my_agents++;
  }
  return { ...base, total: ops.length, ...c };
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
