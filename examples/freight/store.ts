// Reading the desk's rows and presenting them: SQL for each kind (with the derived columns a shipment shows), and
// how each row reads as a lean item, a described ref and a `get` object. overdue_days is computed here, against
// the clock the provider was started with, never stored.
import type { LeanItem } from "../../provider-kit/types";
import type { Db } from "./db";
import { makeRef, type Kind } from "./refs";

const DAY = 86_400_000;

export type ShipmentRow = {
  id: string;
  reference: string;
  status: string;
  origin: string;
  destination: string;
  carrier_id: string | null;
  carrier_name: string | null;
  pickup_at: Date | null;
  due_at: Date;
  notes: string;
  updated_at: Date;
  exception_ids: string[];
  document_ids: string[];
};
export type CarrierRow = { id: string; name: string; mode: string; phone: string; on_time_rate: number; updated_at: Date };
export type ExceptionRow = {
  id: string;
  shipment_id: string;
  shipment_reference: string;
  kind: string;
  severity: string;
  status: string;
  opened_at: Date;
  note: string;
  updated_at: Date;
};
export type DocumentRow = {
  id: string;
  shipment_id: string;
  shipment_reference: string;
  filename: string;
  content_type: string;
  size: number;
  uploaded_by: string;
  uploaded_at: Date;
};
export type Row = ShipmentRow | CarrierRow | ExceptionRow | DocumentRow;

/** The SELECT of each kind, with its table aliased so filters can name columns (`s.status`, `c.name`…). */
export const SELECT: Record<Kind, string> = {
  "freight.shipment": `select s.id, s.reference, s.status, s.origin, s.destination, s.carrier_id, c.name as carrier_name,
      s.pickup_at, s.due_at, s.notes, s.updated_at,
      coalesce((select array_agg(e.id order by e.opened_at, e.id) from exceptions e where e.shipment_id = s.id), '{}') as exception_ids,
      coalesce((select array_agg(d.id order by d.uploaded_at, d.id) from documents d where d.shipment_id = s.id), '{}') as document_ids
    from shipments s left join carriers c on c.id = s.carrier_id`,
  "freight.carrier": "select c.id, c.name, c.mode, c.phone, c.on_time_rate, c.updated_at from carriers c",
  "freight.exception": `select x.id, x.shipment_id, s.reference as shipment_reference, x.kind, x.severity, x.status, x.opened_at, x.note, x.updated_at
    from exceptions x join shipments s on s.id = x.shipment_id`,
  "freight.document": `select d.id, d.shipment_id, s.reference as shipment_reference, d.filename, d.content_type, d.size, d.uploaded_by, d.uploaded_at
    from documents d join shipments s on s.id = d.shipment_id`,
};
/** The alias of each kind's own table in SELECT. */
export const ALIAS: Record<Kind, string> = { "freight.shipment": "s", "freight.carrier": "c", "freight.exception": "x", "freight.document": "d" };

export async function rowsOf<R extends Row>(db: Db, kind: Kind, where: string, params: unknown[]): Promise<R[]> {
  const res = await db.query<R>(`${SELECT[kind]}${where ? ` where ${where}` : ""} order by ${ALIAS[kind]}.id`, params);
  return res.rows;
}

export async function rowById<R extends Row>(db: Db, kind: Kind, id: string): Promise<R | null> {
  return (await rowsOf<R>(db, kind, `${ALIAS[kind]}.id = $1`, [id]))[0] ?? null;
}

// --- Derived values ---------------------------------------------------------------------------------------

export const isClosed = (status: string): boolean => status === "delivered" || status === "cancelled";

/** Started days past due_at while the shipment is still on its way; 0 once delivered or cancelled. */
export function overdueDays(s: Pick<ShipmentRow, "status" | "due_at">, now: Date): number {
  if (isClosed(s.status)) return 0;
  const late = now.getTime() - s.due_at.getTime();
  return late > 0 ? Math.ceil(late / DAY) : 0;
}

export const routeOf = (s: Pick<ShipmentRow, "origin" | "destination">): string => `${s.origin} → ${s.destination}`;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const day = (d: Date): string => d.toISOString().slice(0, 10);
const words = (status: string): string => status.replace(/_/g, " ");
/** Summaries stay one line: a long note is cut at a word with an ellipsis. */
const short = (text: string, max = 120): string => (text.length <= max ? text : `${text.slice(0, max).replace(/\s+\S*$/, "")}…`);

// --- Presenting -------------------------------------------------------------------------------------------

function shipmentSummary(s: ShipmentRow, now: Date): string {
  const late = overdueDays(s, now);
  return [words(s.status), s.carrier_name ?? "no carrier", `due ${day(s.due_at)}`, ...(late ? [`${late} day${late === 1 ? "" : "s"} overdue`] : [])].join(" · ");
}

/** Label, summary and lineage of a row: the same words in lists, on the consent page and in describe_refs. */
export function present(kind: Kind, row: Row, now: Date): { ref: string; label: string; summary: string; lineage: string[]; updated_at: string } {
  switch (kind) {
    case "freight.shipment": {
      const s = row as ShipmentRow;
      return { ref: makeRef("shipment", s.id), label: `${s.reference} ${routeOf(s)}`, summary: shipmentSummary(s, now), lineage: [], updated_at: s.updated_at.toISOString() };
    }
    case "freight.carrier": {
      const c = row as CarrierRow;
      return { ref: makeRef("carrier", c.id), label: c.name, summary: `${c.mode} · ${Math.round(c.on_time_rate * 100)}% on time · ${c.phone}`, lineage: [], updated_at: c.updated_at.toISOString() };
    }
    case "freight.exception": {
      const x = row as ExceptionRow;
      return {
        ref: makeRef("exception", x.id),
        label: `${x.shipment_reference} ${words(x.kind)} (${x.severity})`,
        summary: `${x.status} · ${short(x.note)}`,
        lineage: [makeRef("shipment", x.shipment_id)],
        updated_at: x.updated_at.toISOString(),
      };
    }
    case "freight.document": {
      const d = row as DocumentRow;
      return {
        ref: makeRef("document", d.id),
        label: d.filename,
        summary: `proof of delivery for ${d.shipment_reference} · ${d.content_type} · ${d.size} bytes`,
        lineage: [makeRef("shipment", d.shipment_id)],
        updated_at: d.uploaded_at.toISOString(),
      };
    }
  }
}

export function lean(kind: Kind, row: Row, now: Date): LeanItem {
  const p = present(kind, row, now);
  return { ref: p.ref, kind, label: p.label, summary: p.summary, updated_at: p.updated_at };
}

/** The `get` object of a row: its ref and every field the manifest declares, heavy ones only with `full`. */
export function objectOf(kind: Kind, row: Row, now: Date, full: boolean): Record<string, unknown> {
  switch (kind) {
    case "freight.shipment": {
      const s = row as ShipmentRow;
      return {
        ref: makeRef("shipment", s.id),
        reference: s.reference,
        status: s.status,
        origin: s.origin,
        destination: s.destination,
        route: routeOf(s),
        carrier: s.carrier_id ? makeRef("carrier", s.carrier_id) : null,
        carrier_name: s.carrier_name,
        pickup_at: iso(s.pickup_at),
        due_at: iso(s.due_at),
        overdue_days: overdueDays(s, now),
        exceptions: s.exception_ids.map((id) => makeRef("exception", id)),
        documents: s.document_ids.map((id) => makeRef("document", id)),
        ...(full ? { notes: s.notes } : {}),
        updated_at: iso(s.updated_at),
      };
    }
    case "freight.carrier": {
      const c = row as CarrierRow;
      return { ref: makeRef("carrier", c.id), name: c.name, mode: c.mode, phone: c.phone, on_time_rate: c.on_time_rate, updated_at: iso(c.updated_at) };
    }
    case "freight.exception": {
      const x = row as ExceptionRow;
      return {
        ref: makeRef("exception", x.id),
        shipment: makeRef("shipment", x.shipment_id),
        shipment_reference: x.shipment_reference,
        kind: x.kind,
        severity: x.severity,
        status: x.status,
        opened_at: iso(x.opened_at),
        note: x.note,
        updated_at: iso(x.updated_at),
      };
    }
    case "freight.document": {
      const d = row as DocumentRow;
      return {
        ref: makeRef("document", d.id),
        shipment: makeRef("shipment", d.shipment_id),
        filename: d.filename,
        content_type: d.content_type,
        size: d.size,
        uploaded_by: d.uploaded_by,
        uploaded_at: iso(d.uploaded_at),
        // Realmgate swaps the marker for a signed link that calls stream_file on this document's ref.
        content: { $file: { name: d.filename, content_type: d.content_type } },
      };
    }
  }
}
