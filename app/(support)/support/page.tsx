import type { Metadata } from "next";
import { textProblem } from "@/lib/input/text";
import { getDb } from "@/db/client";
import { filterKeys, type Filters } from "@/components/audit/filters";
import { SupportConsole } from "@/components/audit/support-console";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { listAuditEvents, listAuditQuery } from "@/lib/audit/query";
import { auditDirectory, verifyAuditChainAs } from "@/lib/audit/directory";
import { auditPage } from "@/lib/views/audit";
import { operationWords } from "@/lib/views/realms";

export const metadata: Metadata = { title: "Support console" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function SupportPage({ searchParams }: Props) {
  const user = await requirePageUser("/support");
  if (user.role !== "support" && user.role !== "owner") {
    return (
      <>
        <PageHeader title="Support console" />
        <Alert tone="warning" title="This console is for support staff and workspace owners">
          You are a member of this workspace. What your own agents did is on the Agents page.
        </Alert>
      </>
    );
  }
  const raw = await searchParams;
  const given: Filters = {};
  for (const k of filterKeys) {
    const v = raw[k];
    // A NUL or a lone surrogate can reach no column: such a filter is dropped (and said so) rather than queried.
    if (typeof v === "string" && v && !textProblem(v)) given[k] = v;
  }
  const parsed = listAuditQuery.safeParse({ ...given, limit: 50 });
  const filters: Filters = parsed.success ? given : {};
  const filterError = parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  const grant = typeof raw.grant === "string" && /^grt_[a-z0-9]{1,40}$/.test(raw.grant) ? raw.grant : null;
  // Or a single-call approval's timeline, opened the same way.
  const approval = typeof raw.approval === "string" && /^apr_[a-z0-9]{1,40}$/.test(raw.approval) ? raw.approval : null;

  const db = await getDb();
  // Each of these reads is audited for support staff (support.viewed / audit.verified). The chain is walked
  // first, on its own, so the views recorded below are not being written while it is read.
  const verification = await verifyAuditChainAs(db, user, { coalesce: true });
  const [events, revokedGrants, revokedActors, directory, words] = await Promise.all([
    auditPage(db, user, listAuditQuery.parse({ ...filters, limit: 50 }), "support.console"),
    listAuditEvents(db, user, listAuditQuery.parse({ event: "grant.revoked", limit: 50 }), "support.revocations"),
    listAuditEvents(db, user, listAuditQuery.parse({ event: "actor.revoked", limit: 50 }), "support.revocations"),
    auditDirectory(db, user),
    operationWords(db, user.tenantId, "all"),
  ]);
  const revocations = [...revokedGrants.events, ...revokedActors.events].sort((a, b) => b.at.localeCompare(a.at));
  return (
    <>
      <PageHeader
        title="Support console"
        description="Find what was granted, used, refused and revoked — by whom and when. Read-only; what you open here is itself recorded in the audit trail, once per view and filter in ten minutes."
      />
      <SupportConsole
        initialFilters={filters}
        initialGrant={grant ?? approval}
        initialEvents={events}
        initialRevocations={revocations}
        verification={verification}
        directory={directory}
        words={words}
        filterError={filterError}
      />
    </>
  );
}
