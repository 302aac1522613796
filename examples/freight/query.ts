// list and search: each kind's filters and text search as SQL conditions, the grant's scope, and keyset paging
// (`{ kind, after: <last id> }`, ordered by id). A search without a kind walks the kinds in manifest order.
import { invalidInput } from "../../provider-kit/errors";
import type { Cursor, Filter, LeanItem, Page } from "../../provider-kit/types";
import type { Db } from "./db";
import type { ScopeFilter } from "./gate";
import { CARRIER_MODES, EXCEPTION_STATUSES, manifestDocument, MAX_PAGE_SIZE, SEVERITIES, SHIPMENT_STATUSES } from "./manifest";
import { parseRef, SEGMENTS, type Kind } from "./refs";
import { ALIAS, lean, rowsOf, type Row } from "./store";

const DAY = 86_400_000;
export const KINDS = Object.values(SEGMENTS);

/** SQL conditions and their parameters, built together so placeholders always line up. */
class Where {
  readonly clauses: string[] = [];
  readonly params: unknown[] = [];
  p(v: unknown): string {
    this.params.push(v);
    return `$${this.params.length}`;
  }
  add(clause: string): void {
    this.clauses.push(clause);
  }
  sql(): string {
    return this.clauses.map((c) => `(${c})`).join(" and ");
  }
}

const likeText = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Route words as people type them: `Rotterdam -> Munich` reads like the stored `Rotterdam → Munich`. */
export const normalizeRoute = (s: string): string => s.replace(/\s*-+>\s*/g, " → ").trim();

/** The filters each kind accepts: the manifest's `filters`, so what is declared is what is taken. */
export const FILTERS = Object.fromEntries(manifestDocument().manifest.kinds.map((k) => [k.name, k.filters ?? []])) as Record<Kind, string[]>;

function text(filter: Filter, key: string): string {
  const v = filter[key];
  if (typeof v !== "string" || !v.trim()) throw invalidInput(`filter ${key} must be a non-empty string`, `filter.${key}`);
  return v.trim();
}

function oneOf(filter: Filter, key: string, values: readonly string[]): string {
  const v = text(filter, key);
  if (!values.includes(v)) throw invalidInput(`filter ${key} must be one of ${values.join(", ")}`, `filter.${key}`);
  return v;
}

/** A whole number of days, as a number or digits (selectors arrive as strings). */
export function minimumDays(v: unknown, field: string): number {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 100_000) throw invalidInput(`${field} must be a whole number of days (0 or more)`, field);
  return n;
}

function shipmentRef(w: Where, column: string, value: string): void {
  const ref = parseRef(value);
  if (ref && ref.kind === "freight.shipment") w.add(`${column} = ${w.p(ref.id)}`);
  else if (ref) throw invalidInput(`${value} is not a shipment`, "filter.shipment");
  else w.add(`lower(s.reference) = lower(${w.p(value)})`);
}

/** The kind's filter conditions; an unknown filter or a bad value is invalid_input naming it. */
export function addFilters(w: Where, kind: Kind, filter: Filter, now: Date): void {
  for (const key of Object.keys(filter)) {
    if (!FILTERS[kind].includes(key)) throw invalidInput(`${kind} has no filter ${key}; it has ${FILTERS[kind].join(", ") || "none"}`, `filter.${key}`);
  }
  const has = (k: string) => Object.hasOwn(filter, k);
  switch (kind) {
    case "freight.shipment": {
      if (has("status")) w.add(`s.status = ${w.p(oneOf(filter, "status", SHIPMENT_STATUSES))}`);
      if (has("carrier")) {
        const v = text(filter, "carrier");
        const ref = parseRef(v);
        if (ref && ref.kind === "freight.carrier") w.add(`s.carrier_id = ${w.p(ref.id)}`);
        else if (ref) throw invalidInput(`${v} is not a carrier`, "filter.carrier");
        else w.add(`lower(c.name) like ${w.p(likeText(v))}`);
      }
      if (has("route")) w.add(`lower(s.origin || ' → ' || s.destination) like ${w.p(likeText(normalizeRoute(text(filter, "route"))))}`);
      if (has("overdue_days")) {
        const n = minimumDays(filter.overdue_days, "filter.overdue_days");
        // overdue_days counts started days: at least n means more than n − 1 whole days past due.
        if (n >= 1) w.add(`s.status not in ('delivered', 'cancelled') and s.due_at < ${w.p(new Date(now.getTime() - (n - 1) * DAY))}`);
      }
      return;
    }
    case "freight.carrier":
      if (has("mode")) w.add(`c.mode = ${w.p(oneOf(filter, "mode", CARRIER_MODES))}`);
      return;
    case "freight.exception":
      if (has("shipment")) shipmentRef(w, "x.shipment_id", text(filter, "shipment"));
      if (has("status")) w.add(`x.status = ${w.p(oneOf(filter, "status", EXCEPTION_STATUSES))}`);
      if (has("severity")) w.add(`x.severity = ${w.p(oneOf(filter, "severity", SEVERITIES))}`);
      return;
    case "freight.document":
      if (has("shipment")) shipmentRef(w, "d.shipment_id", text(filter, "shipment"));
      return;
  }
}

/** The text each kind is searched by (case-insensitive; every word of the query must appear). */
const HAYSTACK: Record<Kind, string> = {
  "freight.shipment": "s.reference || ' ' || s.origin || ' → ' || s.destination || ' ' || s.notes",
  "freight.carrier": "c.name || ' ' || c.mode || ' ' || c.phone",
  "freight.exception": "s.reference || ' ' || x.kind || ' ' || x.severity || ' ' || x.note",
  "freight.document": "s.reference || ' ' || d.filename",
};

function addQuery(w: Where, kind: Kind, query: string): void {
  for (const word of query.split(/\s+/).filter(Boolean)) w.add(`lower(${HAYSTACK[kind]}) like ${w.p(likeText(word))}`);
}

/** Narrows to the grant's scope: the objects it names, and what sits inside a shipment it names. */
function addScope(w: Where, kind: Kind, scope: ScopeFilter): boolean {
  if (scope.kinds && !scope.kinds.has(kind)) return false;
  if (!scope.ids) return true;
  const own = [...(scope.ids.get(kind) ?? [])];
  const shipments = [...(scope.ids.get("freight.shipment") ?? [])];
  const a = ALIAS[kind];
  if (kind === "freight.exception" || kind === "freight.document") {
    if (!own.length && !shipments.length) return false;
    w.add(`${a}.id = any(${w.p(own)}) or ${a}.shipment_id = any(${w.p(shipments)})`);
  } else {
    if (!own.length) return false;
    w.add(`${a}.id = any(${w.p(own)})`);
  }
  return true;
}

export type PageQuery = { filter: Filter; query: string | null; after: string | null; limit: number; scope: ScopeFilter; now: Date };

/** Up to `limit` + 1 rows of one kind (the extra one says there is a next page). */
export async function rowsPage<R extends Row>(db: Db, kind: Kind, q: PageQuery): Promise<R[]> {
  const w = new Where();
  addFilters(w, kind, q.filter, q.now);
  if (q.query) addQuery(w, kind, q.query);
  if (!addScope(w, kind, q.scope)) return [];
  if (q.after !== null) w.add(`${ALIAS[kind]}.id > ${w.p(q.after)}`);
  const rows = await rowsOf<R>(db, kind, w.sql(), w.params);
  return rows.slice(0, q.limit + 1);
}

export function clampLimit(limit: unknown): number {
  const n = typeof limit === "number" && Number.isFinite(limit) ? Math.floor(limit) : 20;
  return Math.min(Math.max(n, 1), MAX_PAGE_SIZE);
}

export function kindOf(kind: unknown): Kind {
  if (typeof kind === "string" && (KINDS as string[]).includes(kind)) return kind as Kind;
  throw invalidInput(`unknown kind ${String(kind)}; the freight desk has ${KINDS.join(", ")}`, "kind");
}

function cursorAfter(cursor: Cursor | null): { kind: Kind | null; after: string | null } {
  if (!cursor) return { kind: null, after: null };
  const { kind, after } = cursor;
  if (typeof after !== "string" || (kind !== undefined && kind !== null && !(KINDS as string[]).includes(String(kind)))) throw invalidInput("the cursor is not one this provider made", "cursor");
  return { kind: (kind as Kind | null | undefined) ?? null, after };
}

/**
 * One page over the given kinds in order, resuming at the cursor's kind and id. The next cursor names the last
 * item's kind and id when more remain.
 */
export async function page(db: Db, kinds: Kind[], opts: Omit<PageQuery, "after" | "limit"> & { cursor: Cursor | null; limit: number }): Promise<Page> {
  const limit = clampLimit(opts.limit);
  const { kind: fromKind, after } = cursorAfter(opts.cursor);
  const start = fromKind ? kinds.indexOf(fromKind) : 0;
  if (start < 0) throw invalidInput("the cursor is not one this provider made", "cursor");
  const items: { kind: Kind; id: string; item: LeanItem }[] = [];
  for (let i = start; i < kinds.length && items.length <= limit; i++) {
    const kind = kinds[i]!;
    const rows = await rowsPage(db, kind, { ...opts, after: i === start ? after : null, limit: limit - items.length });
    for (const row of rows) items.push({ kind, id: row.id, item: lean(kind, row, opts.now) });
  }
  const more = items.length > limit;
  const shown = items.slice(0, limit);
  const last = shown[shown.length - 1];
  return { items: shown.map((x) => x.item), next: more && last ? { kind: last.kind, after: last.id } : null };
}
