// The home page of a support person: what they are here to do (search the trail, check the chain, review
// revocations, export for an investigation). Nothing here creates or changes anything; support only reads.
import Link from "next/link";
import { Card, PageHeader } from "@/components/ui/card";
import type { Directory } from "@/lib/audit/directory";

const linkClass = "mt-3 inline-flex min-h-10 items-center text-sm font-medium text-brand-700 underline";

type Props = { name: string | null; tenantName: string | null; email: string | null; directory: Directory };

export function SupportHome({ name, tenantName, email, directory }: Props) {
  const agents = directory.actors.filter((a) => !a.revoked).length;
  const revoked = directory.actors.length - agents;
  return (
    <>
      <PageHeader
        title={`Welcome, ${name ?? email ?? "support"}`}
        description="You review this workspace: who granted what to which agent, what agents did, what was refused and revoked. You read; you do not change anything. What you open in the console is recorded in the audit trail."
      />
      <div className="grid gap-4 md:grid-cols-2 lg:grid-cols-4">
        <Card>
          <h2 className="font-semibold">Search the audit trail</h2>
          <p className="mt-2 text-sm text-slate-700">
            By person, agent, realm, operation, outcome and time. {directory.users.length} {directory.users.length === 1 ? "person" : "people"} and {agents}{" "}
            active {agents === 1 ? "agent" : "agents"}
            {revoked ? ` (${revoked} revoked)` : ""} in this workspace.
          </p>
          <Link href="/support" className={linkClass}>
            Open the support console
          </Link>
        </Card>
        <Card>
          <h2 className="font-semibold">Verify the audit chain</h2>
          <p className="mt-2 text-sm text-slate-700">Check that no event was edited, removed, rewritten or forged since it was recorded.</p>
          <Link href="/support#chain-heading" className={linkClass}>
            Check the chain
          </Link>
        </Card>
        <Card>
          <h2 className="font-semibold">Review revocations</h2>
          <p className="mt-2 text-sm text-slate-700">Every agent and grant that was revoked, by whom, and the reason they gave.</p>
          <Link href="/support#revocations-heading" className={linkClass}>
            See revocations
          </Link>
        </Card>
        <Card>
          <h2 className="font-semibold">Export for an investigation</h2>
          <p className="mt-2 text-sm text-slate-700">Download the trail as CSV, with names beside ids. Filter first in the console to export only what you found.</p>
          <a href="/api/v1/audit/export" download className={linkClass}>
            Export the trail as CSV
          </a>
        </Card>
      </div>
      <dl className="mt-6 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm text-slate-700">
        <dt className="text-slate-600">Workspace</dt>
        <dd>{tenantName}</dd>
        <dt className="text-slate-600">Role</dt>
        <dd>support (read-only)</dd>
        <dt className="text-slate-600">Email</dt>
        <dd>{email}</dd>
      </dl>
    </>
  );
}
