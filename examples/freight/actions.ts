// The desk's actions: reschedule, assign_carrier, escalate_exception, attach_pod. Payloads are checked against the
// very JSON Schemas the manifest publishes (ajv), then against the desk's own rules (a delivered shipment stays
// put, a resolved exception stays resolved). Each change is written with a line in the shipment's notes.
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { conflict, invalidInput, invalidRef, notFound } from "../../provider-kit/errors";
import type { AuthContext, UploadMarker } from "../../provider-kit/types";
import type { Db } from "./db";
import { requireClaims } from "./gate";
import { CLAIM_DISPATCH, CLAIM_READ, payloadSchemas } from "./manifest";
import { parseRef, type Kind } from "./refs";
import { isClosed, objectOf, rowById, type CarrierRow, type ExceptionRow, type ShipmentRow } from "./store";

type ActionName = keyof typeof payloadSchemas;

const ajv = new Ajv2020({ allErrors: false, strict: false });
addFormats(ajv);
const validators = Object.fromEntries(Object.entries(payloadSchemas).map(([name, schema]) => [name, ajv.compile(schema)])) as Record<ActionName, ReturnType<typeof ajv.compile>>;

/** The claims each action needs at the desk (the manifest's `claims`; freight:read is needed by every call). */
const CLAIMS: Record<ActionName, string[]> = {
  reschedule: [CLAIM_READ, CLAIM_DISPATCH],
  assign_carrier: [CLAIM_READ, CLAIM_DISPATCH],
  escalate_exception: [CLAIM_READ],
  attach_pod: [CLAIM_READ],
};
const TARGET: Record<ActionName, Kind> = {
  reschedule: "freight.shipment",
  assign_carrier: "freight.shipment",
  escalate_exception: "freight.exception",
  attach_pod: "freight.shipment",
};

/** The status check repeated in the UPDATE, so a shipment delivered meanwhile is never moved. */
const OPEN = "status not in ('delivered', 'cancelled')";

const isAction = (name: string): name is ActionName => Object.hasOwn(payloadSchemas, name);

function checkPayload(name: ActionName, payload: unknown): void {
  const validate = validators[name];
  if (validate(payload)) return;
  const e = validate.errors?.[0];
  const field = e ? (e.instancePath ? `payload${e.instancePath.replace(/\//g, ".")}` : e.params && "missingProperty" in e.params ? `payload.${String(e.params.missingProperty)}` : "payload") : "payload";
  throw invalidInput(`${name}: ${field} ${e?.message ?? "is not valid"}`, field);
}

/** A note line: when, who, what. */
/** Who did it, as the desk's notes say it: the person, or the agent and the person it acts for. */
export const actedBy = (ctx: AuthContext) => (ctx.actor.kind === "person" ? ctx.grantor.email : `${ctx.actor.name} for ${ctx.grantor.email}`);
const noteLine = (now: Date, ctx: AuthContext, what: string) => `\n${now.toISOString().slice(0, 16).replace("T", " ")} ${actedBy(ctx)}: ${what}`;

/** Media type from a filename's extension, for an upload slot whose payload named none. */
export function guessContentType(filename: string): string {
  const ext = filename.toLowerCase().split(".").pop() ?? "";
  return { pdf: "application/pdf", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", tif: "image/tiff", tiff: "image/tiff", heic: "image/heic" }[ext] ?? "application/octet-stream";
}

export async function runAction(db: Db, ctx: AuthContext, input: { action: string; ref: string | null; payload: Record<string, unknown> }, now: Date): Promise<Record<string, unknown>> {
  const name = input.action;
  if (typeof name !== "string" || !isAction(name)) throw invalidInput(`the freight desk has no action ${String(name)}`, "action");
  await requireClaims(db, ctx, CLAIMS[name]);
  checkPayload(name, input.payload);
  const target = typeof input.ref === "string" ? parseRef(input.ref) : null;
  if (!target || target.kind !== TARGET[name]) throw invalidInput(`${name} runs on a ${TARGET[name]} ref`, "ref");
  const p = input.payload;

  if (target.kind === "freight.exception") {
    const x = await rowById<ExceptionRow>(db, target.kind, target.id);
    if (!x) throw notFound(`no exception ${input.ref}`);
    if (x.status === "resolved") throw conflict(`exception ${input.ref} is resolved; it cannot be escalated`, { status: x.status });
    const severity = typeof p.severity === "string" ? p.severity : x.severity;
    const res = await db.query("update exceptions set status = 'escalated', severity = $2, note = $3, updated_at = $4 where id = $1 and status <> 'resolved'", [x.id, severity, p.note, now]);
    if (!res.affectedRows) throw conflict(`exception ${input.ref} is resolved; it cannot be escalated`, { status: "resolved" });
    await db.query("update shipments set notes = notes || $2 where id = $1", [x.shipment_id, noteLine(now, ctx, `escalated the ${x.kind} exception (${severity}): ${String(p.note)}`)]);
    return objectOf(target.kind, (await rowById<ExceptionRow>(db, target.kind, x.id))!, now, false);
  }

  const s = await rowById<ShipmentRow>(db, "freight.shipment", target.id);
  if (!s) throw notFound(`no shipment ${input.ref}`);
  const closed = () => conflict(`${s.reference} is ${s.status}; it cannot be changed`, { status: s.status });

  switch (name) {
    case "reschedule": {
      if (isClosed(s.status)) throw closed();
      const due = new Date(String(p.due_at));
      const pickup = typeof p.pickup_at === "string" ? new Date(p.pickup_at) : s.pickup_at;
      if (pickup && pickup.getTime() > due.getTime()) throw invalidInput("pickup_at must not be after due_at", "payload.pickup_at");
      const was = s.due_at.toISOString();
      const res = await db.query(`update shipments set due_at = $2, pickup_at = $3, notes = notes || $4, updated_at = $5 where id = $1 and ${OPEN}`, [
        s.id,
        due,
        pickup,
        noteLine(now, ctx, `rescheduled from ${was} to ${due.toISOString()}: ${String(p.reason)}`),
        now,
      ]);
      if (!res.affectedRows) throw closed();
      return { ...(await shipmentObject(db, s.id, now)), previous_due_at: was };
    }
    case "assign_carrier": {
      if (isClosed(s.status)) throw closed();
      const ref = parseRef(String(p.carrier));
      const carrier = ref?.kind === "freight.carrier" ? await rowById<CarrierRow>(db, ref.kind, ref.id) : null;
      if (!carrier) throw invalidRef(String(p.carrier));
      const reason = typeof p.reason === "string" ? `: ${p.reason}` : "";
      const res = await db.query(`update shipments set carrier_id = $2, notes = notes || $3, updated_at = $4 where id = $1 and ${OPEN}`, [
        s.id,
        carrier.id,
        noteLine(now, ctx, `carrier ${s.carrier_name ?? "none"} → ${carrier.name}${reason}`),
        now,
      ]);
      if (!res.affectedRows) throw closed();
      return shipmentObject(db, s.id, now);
    }
    case "attach_pod": {
      if (s.status === "cancelled") throw closed();
      const filename = String(p.filename);
      const contentType = typeof p.content_type === "string" ? p.content_type : guessContentType(filename);
      // Realmgate turns the marker into a one-time PUT slot on this shipment's ref; the bytes arrive in receive_upload.
      const upload: UploadMarker = { $upload: { name: filename, params: { content_type: contentType } } };
      return { ...upload, shipment: input.ref, reference: s.reference, filename, content_type: contentType };
    }
    default:
      throw invalidInput(`${name} does not run on a shipment`, "action");
  }
}

export async function shipmentObject(db: Db, id: string, now: Date): Promise<Record<string, unknown>> {
  return objectOf("freight.shipment", (await rowById<ShipmentRow>(db, "freight.shipment", id))!, now, false);
}
