// The freight provider's manifest: what Realmgate shows agents and people about the logistics desk. Written
// by hand (a remote realm has no zod of Realmgate's to derive from), in the tone of the built-in realms; the test
// checks it against Realmgate's own manifestSchema and every action example against its payload schema.
import { PROTOCOL } from "../../provider-kit/protocol";
import type { Manifest, ManifestDocument, ManifestField } from "../../provider-kit/types";

/** Bump whenever anything below changes: Realmgate refetches the manifest when answers name a new version. */
export const MANIFEST_VERSION = "1";

export const CLAIM_READ = "freight:read";
export const CLAIM_DISPATCH = "freight:dispatch";

export const SHIPMENT_STATUSES = ["booked", "in_transit", "delayed", "delivered", "cancelled"] as const;
export const CARRIER_MODES = ["road", "rail", "sea", "air"] as const;
export const EXCEPTION_KINDS = ["damage", "delay", "customs", "missing_pod"] as const;
export const SEVERITIES = ["low", "medium", "high", "critical"] as const;
export const EXCEPTION_STATUSES = ["open", "escalated", "resolved"] as const;

export const MAX_PAGE_SIZE = 50;

const updatedAt: ManifestField = { name: "updated_at", type: "datetime", description: "When it last changed." };

/** Action payload contracts (JSON Schema 2020-12), checked by the handlers in actions.ts. */
export const payloadSchemas = {
  reschedule: {
    type: "object",
    properties: {
      due_at: { type: "string", format: "date-time", description: "The new delivery deadline (ISO 8601 with a time zone)." },
      pickup_at: { type: "string", format: "date-time", description: "The new pickup time, if it moves too; never after due_at." },
      reason: { type: "string", minLength: 1, maxLength: 500, description: "Why it moves, in a sentence; kept in the shipment's notes." },
    },
    required: ["due_at", "reason"],
    additionalProperties: false,
  },
  assign_carrier: {
    type: "object",
    properties: {
      carrier: { type: "string", pattern: "^freight:carrier:[A-Za-z0-9._~-]{1,128}$", description: "The carrier's ref (freight:carrier:<id>); resolve a name with the carrier name selector." },
      reason: { type: "string", minLength: 1, maxLength: 500, description: "Why the carrier changes; kept in the shipment's notes." },
    },
    required: ["carrier"],
    additionalProperties: false,
  },
  escalate_exception: {
    type: "object",
    properties: {
      severity: { type: "string", enum: [...SEVERITIES], description: "The new severity; default: unchanged." },
      note: { type: "string", minLength: 1, maxLength: 1000, description: "What is escalated and why; replaces the exception's note." },
    },
    required: ["note"],
    additionalProperties: false,
  },
  attach_pod: {
    type: "object",
    properties: {
      filename: { type: "string", minLength: 1, maxLength: 200, pattern: "^[^/\\\\]+$", description: "The file's name, e.g. pod-SHP-1042.pdf." },
      content_type: { type: "string", minLength: 3, maxLength: 100, description: "Its media type; default: from the filename's extension." },
    },
    required: ["filename"],
    additionalProperties: false,
  },
} as const;

const manifest: Manifest = {
  namespace: "freight",
  realm_type: "remote",
  service_card: {
    title: "Freight desk",
    purpose: "The logistics desk's shipments: see where each load is and what is late, reschedule deliveries, change carriers, escalate exceptions and file proofs of delivery.",
    works_with: "The freight desk's own service (a separate system the logistics team runs); its people and their roles are kept there.",
    touches: [
      "Shipments: reference, route, status, carrier, pickup and due dates, notes",
      "Carriers: name, mode, phone, on-time rate",
      "Exceptions raised on shipments (damage, delay, customs, missing proof of delivery)",
      "Proof-of-delivery documents filed on shipments",
    ],
    operation_labels: {
      "provider.about": "About the freight desk",
      "object.schema": "Browse the freight desk's capabilities",
      "object.list": "List shipments, carriers, exceptions or documents",
      "object.search": "Search shipments, carriers, exceptions or documents",
      "object.get": "Read a shipment, carrier, exception or document",
      "object.action.reschedule": "Reschedule a shipment",
      "object.action.assign_carrier": "Change a shipment's carrier",
      "object.action.escalate_exception": "Escalate an exception",
      "object.action.attach_pod": "Attach a proof of delivery to a shipment",
    },
  },
  kinds: [
    {
      name: "freight.shipment",
      label: "Shipment",
      one_liner: "A load moving from an origin to a destination with one carrier, by a due date.",
      ref_pattern: "freight:shipment:<id>",
      fields: [
        { name: "reference", type: "string", description: "The desk's reference, e.g. SHP-1042.", required: true },
        { name: "status", type: "string", description: "Where it stands.", enum: [...SHIPMENT_STATUSES], required: true },
        { name: "origin", type: "string", description: "Where it is picked up (city)." },
        { name: "destination", type: "string", description: "Where it is delivered (city)." },
        { name: "route", type: "string", description: "Origin → destination, e.g. Rotterdam → Munich." },
        { name: "carrier", type: "ref", ref_kind: "freight.carrier", description: "The carrier moving it." },
        { name: "carrier_name", type: "string", description: "The carrier's name." },
        { name: "pickup_at", type: "datetime", description: "When it is (or was) picked up." },
        { name: "due_at", type: "datetime", description: "When it is due at the destination." },
        { name: "overdue_days", type: "integer", description: "Days past due_at (started days count) while not delivered or cancelled; else 0." },
        { name: "exceptions", type: "ref[]", ref_kind: "freight.exception", description: "Exceptions raised on it." },
        { name: "documents", type: "ref[]", ref_kind: "freight.document", description: "Documents filed on it (proofs of delivery)." },
        { name: "notes", type: "text", description: "The desk's running notes, with every reschedule and carrier change.", heavy: true },
        updatedAt,
      ],
      operations: ["object.list", "object.search", "object.get"],
      filters: ["status", "carrier", "route", "overdue_days"],
      schemas: {
        filter: {
          type: "object",
          properties: {
            status: { type: "string", enum: [...SHIPMENT_STATUSES], description: "Only shipments in this status." },
            carrier: { type: "string", description: "A carrier's ref or name." },
            route: { type: "string", description: "Words of the route, e.g. Munich (case-insensitive)." },
            overdue_days: { type: "integer", minimum: 0, description: "At least this many days overdue; 1 = overdue at all." },
          },
        },
        selector: {
          type: "object",
          properties: {
            reference: { type: "string", description: "The reference, e.g. SHP-1042." },
            status: { type: "string", enum: [...SHIPMENT_STATUSES] },
            carrier: { type: "string", description: "The carrier's name." },
            route: { type: "string", description: "Words of the route." },
            overdue_days: { type: "string", pattern: "^[0-9]+$", description: "At least this many days overdue." },
          },
        },
      },
    },
    {
      name: "freight.carrier",
      label: "Carrier",
      one_liner: "A haulier the desk books loads with: road, rail, sea or air.",
      ref_pattern: "freight:carrier:<id>",
      fields: [
        { name: "name", type: "string", description: "The carrier's name.", required: true },
        { name: "mode", type: "string", description: "How it moves freight.", enum: [...CARRIER_MODES] },
        { name: "phone", type: "string", description: "The dispatch line." },
        { name: "on_time_rate", type: "number", description: "Share of loads delivered on time over the last 90 days, 0–1." },
        updatedAt,
      ],
      operations: ["object.list", "object.search", "object.get"],
      filters: ["mode"],
      schemas: {
        filter: { type: "object", properties: { mode: { type: "string", enum: [...CARRIER_MODES] } } },
        selector: { type: "object", properties: { name: { type: "string", description: "The carrier's name (case-insensitive)." } } },
      },
    },
    {
      name: "freight.exception",
      label: "Exception",
      one_liner: "Something wrong with a shipment (damage, delay, customs hold, missing proof of delivery), until resolved.",
      ref_pattern: "freight:exception:<id>",
      fields: [
        { name: "shipment", type: "ref", ref_kind: "freight.shipment", description: "The shipment it is about.", required: true },
        { name: "shipment_reference", type: "string", description: "That shipment's reference." },
        { name: "kind", type: "string", description: "What went wrong.", enum: [...EXCEPTION_KINDS] },
        { name: "severity", type: "string", description: "How bad it is.", enum: [...SEVERITIES] },
        { name: "status", type: "string", description: "Where it stands.", enum: [...EXCEPTION_STATUSES] },
        { name: "opened_at", type: "datetime", description: "When it was raised." },
        { name: "note", type: "text", description: "What happened, or the latest escalation note." },
        updatedAt,
      ],
      operations: ["object.list", "object.search", "object.get"],
      filters: ["shipment", "status", "severity"],
      schemas: {
        filter: {
          type: "object",
          properties: {
            shipment: { type: "string", description: "The shipment's ref or reference." },
            status: { type: "string", enum: [...EXCEPTION_STATUSES] },
            severity: { type: "string", enum: [...SEVERITIES] },
          },
        },
        selector: { type: "object", properties: { shipment: { type: "string", description: "The shipment's reference, e.g. SHP-1042." } } },
      },
    },
    {
      name: "freight.document",
      label: "Document",
      one_liner: "A proof of delivery filed on a shipment: a signed delivery note, scan or photo.",
      ref_pattern: "freight:document:<id>",
      fields: [
        { name: "shipment", type: "ref", ref_kind: "freight.shipment", description: "The shipment it proves.", required: true },
        { name: "filename", type: "string", description: "The file's name." },
        { name: "content_type", type: "string", description: "Its media type." },
        { name: "size", type: "integer", description: "Its size in bytes." },
        { name: "uploaded_by", type: "string", description: "Who filed it: the person's email, or the agent and the person it acted for." },
        { name: "uploaded_at", type: "datetime", description: "When it was filed." },
        { name: "content", type: "file", description: "The file itself, as a short-lived link." },
      ],
      operations: ["object.list", "object.search", "object.get"],
      filters: ["shipment"],
      schemas: { filter: { type: "object", properties: { shipment: { type: "string", description: "The shipment's ref or reference." } } } },
    },
  ],
  selectors: [
    { kind: "freight.shipment", by: "reference", description: "A shipment by its reference, e.g. {reference: \"SHP-1042\"}; a near miss answers not_found with close references." },
    { kind: "freight.shipment", by: "status", description: "Shipments in a status, e.g. {status: \"delayed\"}; several answer ambiguous_selector with choices." },
    { kind: "freight.shipment", by: "carrier", description: "Shipments moved by a carrier, by its name, e.g. {carrier: \"Nordline Road\"}." },
    { kind: "freight.shipment", by: "route", description: "Shipments whose route contains these words, e.g. {route: \"Munich\"}." },
    { kind: "freight.shipment", by: "overdue_days", description: "Shipments at least this many days overdue, e.g. {overdue_days: \"3\"}; combine with the others." },
    { kind: "freight.carrier", by: "name", description: "A carrier by its name, e.g. {name: \"Baltic Rail\"}." },
    { kind: "freight.exception", by: "shipment", description: "The exception on a shipment, by the shipment's reference, e.g. {shipment: \"SHP-1042\"}." },
  ],
  actions: [
    {
      name: "reschedule",
      label: "Reschedule",
      description: "Move a shipment's due date (and pickup, if given), with a reason kept in its notes. Delivered or cancelled shipments cannot move (conflict).",
      target_kind: "freight.shipment",
      payload_schema: payloadSchemas.reschedule,
      example: { due_at: "2026-12-04T16:00:00Z", reason: "Customer asked for Friday afternoon delivery." },
      risk: "write",
      claims: [CLAIM_DISPATCH],
      returns: "The shipment, with its new pickup and due dates and overdue_days.",
      ref_paths: [],
    },
    {
      name: "assign_carrier",
      label: "Assign carrier",
      description: "Hand a shipment to another carrier (by the carrier's ref), with an optional reason kept in its notes. Delivered or cancelled shipments keep theirs (conflict).",
      target_kind: "freight.shipment",
      payload_schema: payloadSchemas.assign_carrier,
      example: { carrier: "freight:carrier:balticrail", reason: "Nordline has no truck before Thursday." },
      risk: "write",
      claims: [CLAIM_DISPATCH],
      returns: "The shipment, with its new carrier.",
      ref_paths: ["carrier"],
    },
    {
      name: "escalate_exception",
      label: "Escalate exception",
      description: "Escalate an open exception to the desk lead, optionally raising its severity; a resolved one cannot be escalated (conflict).",
      target_kind: "freight.exception",
      payload_schema: payloadSchemas.escalate_exception,
      example: { severity: "high", note: "Pallet damaged again at the Munich hub; customer is waiting." },
      risk: "write",
      claims: [CLAIM_READ],
      returns: "The exception, escalated, with its severity and note.",
      ref_paths: [],
    },
    {
      name: "attach_pod",
      label: "Attach proof of delivery",
      description: "Open an upload slot on a shipment for its proof of delivery; PUT the file's bytes to the slot's URL once to file it as a document of the shipment.",
      target_kind: "freight.shipment",
      payload_schema: payloadSchemas.attach_pod,
      example: { filename: "pod-SHP-1042.pdf", content_type: "application/pdf" },
      risk: "write",
      claims: [CLAIM_READ],
      returns: "An upload slot (upload.url, PUT once before upload.expires_at) and the shipment's ref; the PUT answers the new document's ref.",
      ref_paths: [],
    },
  ],
  catalog: {
    path: "/",
    label: "Freight desk",
    description: "Shipments, their carriers, exceptions and proofs of delivery: find what is late, move deliveries, change carriers.",
    keywords: ["freight", "logistics", "shipping", "transport", "trucks", "loads", "dispatch"],
    kinds: ["freight.shipment", "freight.carrier", "freight.exception", "freight.document"],
    operations: ["provider.about", "object.schema"],
    children: [
      {
        path: "/shipments",
        label: "Shipments",
        description: "Find shipments by reference, route, status, carrier or how overdue they are, and read them.",
        keywords: ["shipments", "loads", "consignments", "find shipment", "track shipment", "where is", "status", "route", "in transit", "delayed"],
        kinds: ["freight.shipment"],
        operations: ["object.list", "object.search", "object.get"],
        children: [
          {
            path: "/shipments/overdue",
            label: "Overdue shipments",
            description: "Shipments past their due date and not delivered: list with filter {overdue_days: 1} (or more days).",
            keywords: ["overdue shipments", "late shipments", "overdue", "late", "past due", "behind schedule", "missed deadline", "what is late"],
            kinds: ["freight.shipment"],
            operations: ["object.list"],
            children: [],
          },
          {
            path: "/shipments/reschedule",
            label: "Reschedule a shipment",
            description: "Move a shipment's due date or pickup, with a reason (needs the dispatch claim).",
            keywords: ["reschedule a shipment", "reschedule", "new due date", "postpone", "delay delivery", "move delivery", "change date", "pickup time"],
            kinds: ["freight.shipment"],
            operations: ["object.action.reschedule"],
            children: [],
          },
          {
            path: "/shipments/carrier",
            label: "Change carrier",
            description: "Hand a shipment to another carrier (needs the dispatch claim).",
            keywords: ["change carrier", "assign carrier", "switch carrier", "reassign", "another haulier", "new trucker", "book carrier"],
            kinds: ["freight.shipment", "freight.carrier"],
            operations: ["object.action.assign_carrier"],
            children: [],
          },
        ],
      },
      {
        path: "/carriers",
        label: "Carriers",
        description: "The hauliers the desk books: their mode, phone and on-time rate.",
        keywords: ["carriers", "hauliers", "truckers", "rail", "sea", "air", "on-time rate", "carrier phone"],
        kinds: ["freight.carrier"],
        operations: ["object.list", "object.search", "object.get"],
        children: [],
      },
      {
        path: "/exceptions",
        label: "Exceptions",
        description: "Problems raised on shipments (damage, delay, customs, missing proof of delivery); escalate an open one.",
        keywords: ["exceptions", "problems", "incidents", "damage", "customs hold", "issue"],
        kinds: ["freight.exception"],
        operations: ["object.list", "object.search", "object.get"],
        children: [
          {
            path: "/exceptions/escalate",
            label: "Escalate an exception",
            description: "Escalate an open exception to the desk lead, raising its severity if needed.",
            keywords: ["escalate", "escalate exception", "raise severity", "urgent", "flag to lead"],
            kinds: ["freight.exception"],
            operations: ["object.action.escalate_exception"],
            children: [],
          },
        ],
      },
      {
        path: "/documents",
        label: "Proofs of delivery",
        description: "Proof-of-delivery documents filed on shipments: read them, or file a new one through an upload slot.",
        keywords: ["proof of delivery", "pod", "delivery note", "signed receipt", "documents", "delivery proof", "cmr"],
        kinds: ["freight.document", "freight.shipment"],
        operations: ["object.list", "object.get"],
        children: [
          {
            path: "/documents/attach",
            label: "Attach a proof of delivery",
            description: "Open an upload slot on a shipment and PUT the proof of delivery to it.",
            keywords: ["attach proof of delivery", "upload pod", "upload proof of delivery", "file delivery note", "attach document", "scan"],
            kinds: ["freight.shipment", "freight.document"],
            operations: ["object.action.attach_pod"],
            children: [],
          },
        ],
      },
    ],
  },
  claims: [
    { name: CLAIM_READ, label: "See shipments, carriers and exceptions" },
    { name: CLAIM_DISPATCH, label: "Move trucks: reschedule shipments and assign carriers" },
  ],
  rules: [
    "Refs look like freight:shipment:<id>, freight:carrier:<id>, freight:exception:<id>, freight:document:<id>; name a shipment by its reference with the reference selector.",
    "overdue_days counts started days past due_at for shipments not delivered or cancelled; list with filter {overdue_days: 1} for everything late, {overdue_days: 3} for three days or more.",
    "The desk keeps its own people: reading needs the freight:read claim for the grantor's email; reschedule and assign_carrier also need freight:dispatch. Anyone else gets realm_denied naming the claim and who can open it.",
    "Proofs of delivery: attach_pod answers an upload slot; PUT the file's bytes to upload.url once, and the answer names the new freight:document ref. A document's content is a short-lived link.",
    "Delivered and cancelled shipments cannot be rescheduled or reassigned (conflict); a resolved exception cannot be escalated (conflict).",
    "A selector that matches several answers ambiguous_selector with details.choices, never a guess.",
  ],
  delivery: { cursors: true, files: false, max_page_size: MAX_PAGE_SIZE },
};

/** The manifest document `GET <base>/manifest` answers. */
export function manifestDocument(): ManifestDocument {
  return { protocol: PROTOCOL, manifest_version: MANIFEST_VERSION, manifest };
}
