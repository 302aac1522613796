// The working set's rules, as pure functions: at most 3 read tools and 1 write-or-destructive tool, and the whole
// catalog (the nine generic tools and the working set) within the tenant's byte budget. Materializing past a
// limit evicts the least recently used tool of the same slot; past the budget, the least recently used of the
// same slot, then of any; a tool that alone would not fit is refused, and nothing changes. The catalog proof says
// all of it in numbers.
import type { WorkingSetSlot } from "@/db/schema";

export const WORKING_SET_LIMITS: Readonly<Record<WorkingSetSlot, number>> = { read: 3, write: 1 };
export const DEFAULT_CATALOG_BUDGET_BYTES = 16 * 1024;
export const MIN_CATALOG_BUDGET_BYTES = 8 * 1024;
export const MAX_CATALOG_BUDGET_BYTES = 48 * 1024;

export type HeldTool = { name: string; namespace: string; operation: string; slot: WorkingSetSlot; bytes: number; lastUsedAt: Date };
export type Eviction = { name: string; namespace: string; operation: string; reason: "slot_full" | "over_budget" };

export type MaterializePlan =
  | { outcome: "added"; evicted: Eviction[]; kept: HeldTool[] }
  | { outcome: "refused"; reason: "exceeds_budget"; catalogBytesWithIt: number };

const sum = (ts: { bytes: number }[]) => ts.reduce((n, t) => n + t.bytes, 0);
const lru = (a: HeldTool, b: HeldTool) => a.lastUsedAt.getTime() - b.lastUsedAt.getTime() || a.name.localeCompare(b.name);

/** What adding `incoming` to `held` does, given the generic tools' bytes and the budget. */
export function planMaterialize(held: HeldTool[], incoming: Omit<HeldTool, "lastUsedAt">, genericBytes: number, budget: number): MaterializePlan {
  if (genericBytes + incoming.bytes > budget) return { outcome: "refused", reason: "exceeds_budget", catalogBytesWithIt: genericBytes + incoming.bytes };
  let kept = [...held].sort(lru);
  const evicted: Eviction[] = [];
  const evict = (t: HeldTool, reason: Eviction["reason"]) => {
    kept = kept.filter((k) => k !== t);
    evicted.push({ name: t.name, namespace: t.namespace, operation: t.operation, reason });
  };
  while (kept.filter((t) => t.slot === incoming.slot).length >= WORKING_SET_LIMITS[incoming.slot]) evict(kept.find((t) => t.slot === incoming.slot)!, "slot_full");
  while (genericBytes + sum(kept) + incoming.bytes > budget) evict(kept.find((t) => t.slot === incoming.slot) ?? kept[0]!, "over_budget");
  return { outcome: "added", evicted, kept };
}

/**
 * What a catalog holds that fits: `held` taken most recently used first, each that still fits the slots and the
 * budget kept (a budget the owner lowered since, or a slot over its limit, leaves out less recently used tools —
 * or a large one that no longer fits, while a smaller, older one still does).
 */
export function fitting<T extends HeldTool>(held: T[], genericBytes: number, budget: number): { fits: T[]; left: T[] } {
  const fits: T[] = [];
  const left: T[] = [];
  let bytes = genericBytes;
  const counts: Record<WorkingSetSlot, number> = { read: 0, write: 0 };
  for (const t of [...held].sort((a, b) => -lru(a, b))) {
    if (counts[t.slot] < WORKING_SET_LIMITS[t.slot] && bytes + t.bytes <= budget) {
      fits.push(t);
      counts[t.slot]++;
      bytes += t.bytes;
    } else left.push(t);
  }
  return { fits, left };
}

export type CatalogProof = {
  budget_bytes: number;
  catalog_bytes: number;
  generic_bytes: number;
  working_set_bytes: number;
  reads: number;
  writes: number;
  limits: { reads: number; writes: number };
  /** Every tool listed, in the order tools/list shows them, with its bytes. */
  tools: { name: string; bytes: number; exact?: { namespace: string; operation: string; slot: WorkingSetSlot } }[];
  largest: { name: string; bytes: number }[];
};

/** The catalog as listed: the generic tools, then the working set, with its numbers. */
export function catalogProof(generic: { name: string; bytes: number }[], exact: Omit<HeldTool, "lastUsedAt">[], budget: number): CatalogProof {
  const genericBytes = sum(generic);
  const ws = sum(exact);
  const tools = [...generic.map((g) => ({ name: g.name, bytes: g.bytes })), ...exact.map((t) => ({ name: t.name, bytes: t.bytes, exact: { namespace: t.namespace, operation: t.operation, slot: t.slot } }))];
  return {
    budget_bytes: budget,
    catalog_bytes: genericBytes + ws,
    generic_bytes: genericBytes,
    working_set_bytes: ws,
    reads: exact.filter((t) => t.slot === "read").length,
    writes: exact.filter((t) => t.slot === "write").length,
    limits: { reads: WORKING_SET_LIMITS.read, writes: WORKING_SET_LIMITS.write },
    tools,
    largest: [...tools].sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name)).slice(0, 3).map(({ name, bytes }) => ({ name, bytes })),
  };
}
