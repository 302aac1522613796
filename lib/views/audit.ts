// The support console's page of the audit trail: the events (lib/audit/query.ts, audited there for support staff)
// with the names behind the ids its directory does not carry — the connected accounts the page names, read in one
// query within the viewer's own tenant, and the providers' and permissions' labels as the Connection Hub shows them.
import { and, eq, inArray } from "drizzle-orm";
import type { Db, Executor } from "@/db/client";
import { connectedAccounts } from "@/db/schema";
import { assertAuditReader, listAuditEvents, type AuditEventView, type ListAuditQuery } from "@/lib/audit/query";
import { apiFamilies, configuredProviders } from "@/lib/connections/providers";
import type { AuditNames } from "./audit-names";

type Viewer = { tenantId: string; userId: string; role: string; requestId: string };

export type AuditPageView = { events: AuditEventView[]; next_before: number | null; names: AuditNames };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const ACCOUNT_ID = /^acc_[a-z0-9]{1,40}$/;

/** Every connected-account id an event names: its subject, a grant's scope (old and new), a detail `account_id`. */
export function accountIdsOf(events: AuditEventView[]): string[] {
  const ids = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === "string" && ACCOUNT_ID.test(v)) ids.add(v);
  };
  for (const e of events) {
    add(e.subject_id);
    add(e.details.account_id);
    for (const key of ["resource_scope", "old_scope", "new_scope"]) {
      const scope = e.details[key];
      if (isRecord(scope)) add(scope.account_id);
    }
  }
  return [...ids];
}

/** Provider and permission labels: every configured provider, every API family's claims. */
export function auditVocabulary(): Pick<AuditNames, "providers" | "claims"> {
  return {
    providers: Object.fromEntries(configuredProviders().map((p) => [p.id, p.label])),
    claims: Object.fromEntries(Object.values(apiFamilies).flatMap((a) => a.claims.map((c) => [c.name, c.label]))),
  };
}

/** The names for some events, in one read of the accounts they name (the viewer's tenant only; owners and support). */
export async function auditNames(db: Executor, who: Viewer, events: AuditEventView[]): Promise<AuditNames> {
  assertAuditReader(who);
  const ids = accountIdsOf(events);
  const rows = ids.length
    ? await db
        .select({ id: connectedAccounts.id, label: connectedAccounts.label, email: connectedAccounts.email, provider: connectedAccounts.provider })
        .from(connectedAccounts)
        .where(and(eq(connectedAccounts.tenantId, who.tenantId), inArray(connectedAccounts.id, ids)))
    : [];
  return { accounts: Object.fromEntries(rows.map((r) => [r.id, { label: r.label, email: r.email, provider: r.provider }])), ...auditVocabulary() };
}

/** One page of the trail with its names: what the console and GET /api/v1/audit answer. */
export async function auditPage(db: Db, who: Viewer, q: ListAuditQuery, view?: string): Promise<AuditPageView> {
  const page = await listAuditEvents(db, who, q, view);
  return { ...page, names: await auditNames(db, who, page.events) };
}
