// The audit trail as CSV (owners and support): the same filters as the audit list, streamed newest first in
// pages, with names beside the ids. Every export is itself audited once, before the first row leaves.
import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import type { Db } from "@/db/client";
import type { Role } from "@/db/schema";
import { assertAuditReader, listAuditEvents, listAuditQuery, type AuditEventView } from "./query";
import { recordChange } from "./record";
import { auditDirectory } from "./directory";

export const exportAuditQuery = listAuditQuery.omit({ before: true, limit: true }).extend({
  max_rows: z.coerce.number().int().min(1).max(100_000).default(10_000),
});
export type ExportAuditQuery = z.infer<typeof exportAuditQuery>;

export const auditCsvColumns = [
  "pos",
  "lane",
  "seq",
  "at",
  "event",
  "outcome",
  "user_id",
  "user_email",
  "actor_id",
  "actor_name",
  "namespace",
  "operation",
  "ref",
  "gate",
  "reason",
  "subject_id",
  "request_id",
  "details",
] as const;

const PAGE = 500;

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) is prefixed with `'`:
 * reasons and names are typed by people and must stay text when the file is opened.
 */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

type Viewer = { tenantId: string; userId: string; role: Role; requestId: string };
type Names = { users: Map<string, string>; actors: Map<string, string> };

function rowOf(e: AuditEventView, names: Names): Record<(typeof auditCsvColumns)[number], string | number> {
  return {
    pos: e.pos,
    lane: e.lane,
    seq: e.seq,
    at: e.at,
    event: e.event,
    outcome: e.outcome,
    user_id: e.user_id ?? "",
    user_email: e.user_id ? (names.users.get(e.user_id) ?? "") : "",
    actor_id: e.actor_id ?? "",
    actor_name: e.actor_id ? (names.actors.get(e.actor_id) ?? "") : "",
    namespace: e.namespace ?? "",
    operation: e.operation ?? "",
    ref: e.ref ?? "",
    gate: e.gate ?? "",
    reason: e.reason ?? "",
    subject_id: e.subject_id ?? "",
    request_id: e.request_id ?? "",
    details: JSON.stringify(e.details),
  };
}

export function auditCsvText(events: AuditEventView[], names: Names, header: boolean): string {
  return stringify(
    events.map((e) => rowOf(e, names)),
    { header, columns: [...auditCsvColumns], cast: { string: neutraliseFormula } },
  );
}

/** Records `audit.exported`, then returns the CSV as a stream of pages (at most `max_rows` rows). */
export async function auditCsvStream(db: Db, who: Viewer, q: ExportAuditQuery): Promise<ReadableStream<Uint8Array>> {
  assertAuditReader(who);
  const { max_rows: maxRows, ...filters } = q;
  await db.transaction((tx) =>
    recordChange(tx, who, "audit.exported", {
      details: { filters, max_rows: maxRows, viewer_role: who.role },
    }),
  );
  const dir = await auditDirectory(db, who);
  const names: Names = { users: new Map(dir.users.map((u) => [u.id, u.email])), actors: new Map(dir.actors.map((a) => [a.id, a.name])) };
  // The export was audited above as one event; reading its pages as an owner keeps listAuditEvents from
  // recording a support.viewed per page. The role check itself already ran (assertAuditReader).
  const reader = { ...who, role: "owner" as const };
  const encoder = new TextEncoder();
  let before: number | undefined;
  let sent = 0;
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const limit = Math.min(PAGE, maxRows - sent);
      const page = await listAuditEvents(db, reader, { ...filters, limit, before }, "audit.export");
      controller.enqueue(encoder.encode(auditCsvText(page.events, names, first)));
      first = false;
      sent += page.events.length;
      if (page.next_before === null || sent >= maxRows) controller.close();
      else before = page.next_before;
    },
  });
}
