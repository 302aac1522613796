// Consent requests waiting for the reader's decision, each linking to its consent screen.
import Link from "next/link";
import { kindLabel } from "@/components/agents/kinds";
import { RiskBadge } from "@/components/realms/risk-badge";
import { realmTitle, wordsFor, type Words } from "@/components/realms/words";
import { EmptyState } from "@/components/ui/empty-state";
import { Time } from "@/components/ui/time";
import type { ConsentRequestView } from "@/lib/authz/consent";

export function PendingRequests({ requests, words }: { requests: ConsentRequestView[]; words: Words }) {
  if (requests.length === 0) {
    return <EmptyState title="No requests waiting">When an agent tries something it has no grant for, its request shows up here for you to approve or deny.</EmptyState>;
  }
  return (
    <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
      {requests.map((r) => (
        <li key={r.id} className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
          <div className="min-w-0">
            <p className="font-medium text-slate-900">
              {r.actor.name} <span className="font-normal text-slate-600">({kindLabel(r.actor.kind)})</span> wants to use {realmTitle(words, r.namespace)}
            </p>
            <ul className="mt-1 flex flex-wrap gap-2 text-sm text-slate-700">
              {r.operations.map((op) => {
                const w = wordsFor(words, r.namespace, op);
                return (
                  <li key={op} className="flex items-center gap-1">
                    {w.label} {w.risk ? <RiskBadge risk={w.risk} /> : null}
                  </li>
                );
              })}
            </ul>
            <p className="mt-1 text-xs text-slate-600">
              Asked <Time iso={r.last_attempt_at} mode="relative" />
              {r.attempts > 1 ? ` · ${r.attempts} attempts` : ""}
            </p>
          </div>
          <Link
            href={`/consent/${r.id}`}
            className="inline-flex min-h-10 shrink-0 items-center justify-center rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700"
            aria-label={`Review the request from ${r.actor.name}`}
          >
            Review
          </Link>
        </li>
      ))}
    </ul>
  );
}
