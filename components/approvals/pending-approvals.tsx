// Single calls waiting for the reader's approval, each with who asks, the action, the object by its name and how
// long it waits; each links to its approval page.
import Link from "next/link";
import { kindLabel } from "@/components/agents/kinds";
import { RiskBadge } from "@/components/realms/risk-badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Time } from "@/components/ui/time";
import type { ApprovalView } from "@/lib/approvals/decide";
import type { NamedRef } from "@/lib/authz/consent";

export type PendingApproval = ApprovalView & { target: NamedRef | null };

/** How the object reads in the list: its name when the person may see it, else that they cannot. */
const targetWords = (t: NamedRef | null) => (t ? (t.visible && t.label ? `“${t.label.replace(/^“|”$/g, "")}”` : "something you cannot see") : null);

export function PendingApprovals({ approvals }: { approvals: PendingApproval[] }) {
  if (approvals.length === 0) {
    return <EmptyState title="No calls waiting">When an agent makes a call you asked to approve each time, it waits here until you approve or deny it.</EmptyState>;
  }
  return (
    <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
      {approvals.map((a) => {
        const on = targetWords(a.target);
        return (
          <li key={a.id} className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
            <div className="min-w-0">
              <p className="font-medium text-slate-900">
                {a.actor.name} <span className="font-normal text-slate-600">({kindLabel(a.actor.kind)})</span> asks to run one call in {a.realm_title}
              </p>
              <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-700">
                <span>
                  {a.operation_label}
                  {on ? <> · {on}</> : null}
                </span>
                {a.risk ? <RiskBadge risk={a.risk} /> : null}
              </p>
              <p className="mt-1 text-xs text-slate-600">
                Asked <Time iso={a.created_at} mode="relative" /> · waits until <Time iso={a.expires_at} />
              </p>
            </div>
            <Link
              href={`/approvals/${a.id}`}
              className="inline-flex min-h-10 shrink-0 items-center justify-center rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700"
              aria-label={`Review the call from ${a.actor.name}: ${a.operation_label}${on ? ` on ${on}` : ""}`}
            >
              Review
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
