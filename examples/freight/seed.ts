// The desk's demo data, written once into a fresh database: 4 carriers, 12 shipments across every status (five
// overdue, dated relative to the first start), 3 exceptions, one proof of delivery, and the desk's two people.
import type { Db } from "./db";
import { CLAIM_DISPATCH, CLAIM_READ } from "./manifest";
import { podPdf } from "./pdf";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The desk's people (gate two): alice dispatches, bob reads; nobody else has any claim. */
export const PEOPLE = [
  { email: "alice@acme.test", name: "Alice Moreau", role: "dispatcher", claims: [CLAIM_READ, CLAIM_DISPATCH] },
  { email: "bob@acme.test", name: "Bob Jansen", role: "desk clerk", claims: [CLAIM_READ] },
];

const CARRIERS = [
  { id: "nordline", name: "Nordline Road", mode: "road", phone: "+31 10 555 0101", on_time_rate: 0.91 },
  { id: "balticrail", name: "Baltic Rail", mode: "rail", phone: "+48 58 555 0202", on_time_rate: 0.87 },
  { id: "bluewave", name: "Bluewave Shipping", mode: "sea", phone: "+86 21 5555 0303", on_time_rate: 0.78 },
  { id: "skybridge", name: "Skybridge Air Cargo", mode: "air", phone: "+49 69 555 0404", on_time_rate: 0.96 },
];

// due: days from the first start. Overdue ones sit 6 h into their last day, so overdue_days is exactly that many.
const SHIPMENTS: { n: number; status: string; origin: string; destination: string; carrier: string; pickup: number; due: number; notes: string }[] = [
  { n: 1040, status: "delivered", origin: "Hamburg", destination: "Vienna", carrier: "nordline", pickup: -8, due: -5, notes: "Delivered to dock 2; signed by the warehouse supervisor." },
  { n: 1041, status: "in_transit", origin: "Antwerp", destination: "Lyon", carrier: "nordline", pickup: -1, due: 2, notes: "Two pallets of machine parts; tail-lift needed at Lyon." },
  { n: 1042, status: "delayed", origin: "Rotterdam", destination: "Munich", carrier: "nordline", pickup: -6, due: -3 + 0.25, notes: "Truck broke down near Cologne; replacement trailer arranged." },
  { n: 1043, status: "in_transit", origin: "Rotterdam", destination: "Milan", carrier: "balticrail", pickup: -4, due: -1 + 0.25, notes: "Rail leg to Basel, last mile by road." },
  { n: 1044, status: "booked", origin: "Gdansk", destination: "Prague", carrier: "balticrail", pickup: 2, due: 5, notes: "Booked by the Prague sales office." },
  { n: 1045, status: "delayed", origin: "Shanghai", destination: "Rotterdam", carrier: "bluewave", pickup: -40, due: -8 + 0.25, notes: "Container held by customs at Rotterdam; broker informed." },
  { n: 1046, status: "delivered", origin: "Madrid", destination: "Paris", carrier: "nordline", pickup: -4, due: -2, notes: "Delivered on time; proof of delivery still to be filed." },
  { n: 1047, status: "cancelled", origin: "Lisbon", destination: "Berlin", carrier: "nordline", pickup: -7, due: -4, notes: "Cancelled by the customer before pickup." },
  { n: 1048, status: "in_transit", origin: "Frankfurt", destination: "Chicago", carrier: "skybridge", pickup: -1, due: 1, notes: "Express air freight, two cartons of samples." },
  { n: 1049, status: "booked", origin: "Rotterdam", destination: "Basel", carrier: "balticrail", pickup: 1, due: 3, notes: "Hazardous goods paperwork attached to the booking." },
  { n: 1050, status: "in_transit", origin: "Le Havre", destination: "Zurich", carrier: "nordline", pickup: -5, due: -2 + 0.25, notes: "Driver reported a long wait at the Basel border." },
  { n: 1051, status: "delayed", origin: "Warsaw", destination: "Stockholm", carrier: "balticrail", pickup: -9, due: -6 + 0.25, notes: "Ferry connection missed twice; rebooked for the next sailing." },
];

const EXCEPTIONS = [
  { id: "e1", shipment: 1042, kind: "delay", severity: "high", status: "open", opened: -3, note: "Breakdown near Cologne; new ETA unknown." },
  { id: "e2", shipment: 1045, kind: "customs", severity: "critical", status: "escalated", opened: -7, note: "Customs hold: commercial invoice missing the HS codes." },
  { id: "e3", shipment: 1041, kind: "damage", severity: "low", status: "resolved", opened: -1, note: "Shrink wrap torn on one pallet; goods unharmed." },
];

const iso = (base: number, days: number) => new Date(base + days * DAY).toISOString();

/** Seeds a fresh database once; later starts find the `seeded_at` mark and leave the data alone. */
export async function seedOnce(db: Db, now: Date): Promise<void> {
  const done = await db.query<{ value: string }>("select value from meta where key = 'seeded_at'");
  if (done.rows.length) return;
  const t = now.getTime();
  await db.transaction(async (tx) => {
    for (const p of PEOPLE) await tx.query("insert into people (email, name, role, claims) values ($1, $2, $3, $4)", [p.email, p.name, p.role, p.claims]);
    for (const c of CARRIERS)
      await tx.query("insert into carriers (id, name, mode, phone, on_time_rate, updated_at) values ($1, $2, $3, $4, $5, $6)", [c.id, c.name, c.mode, c.phone, c.on_time_rate, iso(t, -30)]);
    for (const s of SHIPMENTS)
      await tx.query(
        "insert into shipments (id, reference, status, origin, destination, carrier_id, pickup_at, due_at, notes, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        [`s${s.n}`, `SHP-${s.n}`, s.status, s.origin, s.destination, s.carrier, iso(t, s.pickup), iso(t, s.due), s.notes, iso(t, Math.min(0, s.pickup))],
      );
    for (const e of EXCEPTIONS)
      await tx.query(
        "insert into exceptions (id, shipment_id, kind, severity, status, opened_at, note, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $6)",
        [e.id, `s${e.shipment}`, e.kind, e.severity, e.status, iso(t, e.opened), e.note],
      );
    const pdf = podPdf("Proof of delivery - SHP-1040", ["Hamburg -> Vienna, Nordline Road", "Received in good order, 14 pallets.", "Signed: K. Huber, warehouse supervisor"]);
    await tx.query(
      "insert into documents (id, shipment_id, filename, content_type, size, uploaded_by, uploaded_at, content) values ($1, $2, $3, $4, $5, $6, $7, $8)",
      ["d1040", "s1040", "pod-SHP-1040.pdf", "application/pdf", pdf.byteLength, "alice@acme.test", iso(t, -5), pdf],
    );
    await tx.query("insert into meta (key, value) values ('seeded_at', $1)", [now.toISOString()]);
  });
}
