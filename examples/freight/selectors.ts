// resolve_selector: a name a person uses (a reference, a status, a carrier's name…) to refs. One match answers
// `{ ref }`, several `{ choices }` (Realmgate turns that into ambiguous_selector), none not_found — with the
// closest references when a shipment reference was given, so a typo gets a "did you mean".
import { invalidInput, notFound } from "../../provider-kit/errors";
import type { Filter, OperationResults } from "../../provider-kit/types";
import type { Db } from "./db";
import type { ScopeFilter } from "./gate";
import { manifestDocument } from "./manifest";
import { minimumDays, rowsPage, type PageQuery } from "./query";
import type { Kind } from "./refs";
import { lean, type CarrierRow, type Row, type ShipmentRow } from "./store";

/** The selector keys each kind takes: the manifest's selectors' `by`. */
export const SELECTORS: Partial<Record<Kind, string[]>> = {};
for (const sel of manifestDocument().manifest.selectors ?? []) (SELECTORS[sel.kind as Kind] ??= []).push(sel.by);

/** More choices than this are cut: a person picks among a few, or narrows the selector. */
const MAX_CHOICES = 20;

/** `shp1042`, `SHP 1042` and `SHP-1042` name the same shipment. */
const squash = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, "");

/** Edits between two strings, a swap of neighbours counting as one (typed references transpose digits). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The references closest to the one asked for (two edits at most; only the nearest, up to three), among those the scope shows. */
async function closeReferences(db: Db, asked: string, q: Omit<PageQuery, "filter">): Promise<string[]> {
  const all = await rowsPage<ShipmentRow>(db, "freight.shipment", { ...q, filter: {} });
  const scored = all.map((r) => ({ ref: r.reference, d: distance(squash(asked), squash(r.reference)) }));
  const nearest = Math.min(2, ...scored.map((x) => x.d));
  return scored
    .filter((x) => x.d === nearest)
    .sort((a, b) => a.ref.localeCompare(b.ref))
    .slice(0, 3)
    .map((x) => x.ref);
}

function answer(kind: Kind, rows: Row[], now: Date, what: string): OperationResults["resolve_selector"] {
  if (rows.length === 1) return { ref: lean(kind, rows[0]!, now).ref };
  if (rows.length > 1) return { choices: rows.slice(0, MAX_CHOICES).map((r) => lean(kind, r, now)) };
  throw notFound(`no ${kind} matches ${what}`);
}

export async function resolveSelector(db: Db, input: { kind: Kind; selector: Record<string, string> }, scope: ScopeFilter, now: Date): Promise<OperationResults["resolve_selector"]> {
  const { kind, selector } = input;
  const allowed = SELECTORS[kind];
  if (!allowed) throw invalidInput(`${kind} has no selectors`, "kind");
  const keys = Object.keys(selector);
  if (!keys.length) throw invalidInput(`a ${kind} selector names at least one of ${allowed.join(", ")}`, "selector");
  for (const key of keys) {
    if (!allowed.includes(key)) throw invalidInput(`${kind} has no selector ${key}; it has ${allowed.join(", ")}`, `selector.${key}`);
    if (typeof selector[key] !== "string" || !selector[key].trim()) throw invalidInput(`selector ${key} must be a non-empty string`, `selector.${key}`);
  }
  const what = keys.map((k) => `${k} "${selector[k]}"`).join(" and ");
  // Scope narrows resolution like list: a grant scoped to one shipment never learns the others' refs.
  const q: Omit<PageQuery, "filter"> = { query: null, after: null, limit: 500, scope, now };

  if (kind === "freight.shipment") {
    const filter: Filter = {};
    for (const k of keys) if (k !== "reference") filter[k] = k === "overdue_days" ? minimumDays(selector[k], "selector.overdue_days") : selector[k]!.trim();
    let rows = await rowsPage<ShipmentRow>(db, kind, { ...q, filter });
    if (selector.reference !== undefined) {
      const asked = squash(selector.reference);
      rows = rows.filter((r) => squash(r.reference) === asked);
      if (!rows.length) {
        const close = await closeReferences(db, selector.reference, q);
        throw notFound(`no shipment matches ${what}${close.length ? `; did you mean ${close.join(" or ")}?` : ""}`, { did_you_mean: close });
      }
    }
    return answer(kind, rows, now, what);
  }
  if (kind === "freight.carrier") {
    const name = selector.name!.trim().toLowerCase();
    const rows = await rowsPage<CarrierRow>(db, kind, { ...q, filter: {} });
    const exact = rows.filter((r) => r.name.toLowerCase() === name);
    if (exact.length) return answer(kind, exact, now, what);
    const partial = rows.filter((r) => r.name.toLowerCase().includes(name));
    if (partial.length) return answer(kind, partial, now, what);
    throw notFound(`no carrier is named "${selector.name}"; the desk books ${rows.map((r) => r.name).join(", ") || "none you may see"}`);
  }
  // freight.exception by its shipment's reference (or ref).
  const rows = await rowsPage(db, kind, { ...q, filter: { shipment: selector.shipment!.trim() } });
  return answer(kind, rows, now, what);
}
