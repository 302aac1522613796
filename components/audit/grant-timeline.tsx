"use client";
// One grant's life, oldest first: asked → created → approved → used → denied → revoked (or expired); and one
// single-call approval's: asked → approved or denied → ran, expired or voided, each with who and when.
import { useQuery } from "@tanstack/react-query";
import { api } from "@/components/api-client";
import { realmTitle, wordsFor, type Words } from "@/components/realms/words";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/spinner";
import { Time } from "@/components/ui/time";
import { grantTitle } from "./names";
import type { ApprovalTimeline, GrantTimeline as Timeline, TimelineEntry } from "@/lib/views/timeline";
import { stageWords } from "./words";

const useGrantTimeline = (grantId: string) => useQuery({ queryKey: ["timeline", grantId], queryFn: () => api<Timeline>(`/api/v1/grants/${grantId}/timeline`) });
const useApprovalTimeline = (approvalId: string) =>
  useQuery({ queryKey: ["approval-timeline", approvalId], queryFn: () => api<ApprovalTimeline>(`/api/v1/approvals/${approvalId}/timeline`) });

/**
 * A timeline's heading names what it is about — "Demo Agent's access to Docs", "Demo Agent's call of “Send” in
 * Mail" — once its history has loaded (the same query the timeline reads); the id is secondary, beneath.
 */
export function TimelineTitle({ id, words }: { id: string; words: Words }) {
  return id.startsWith("apr_") ? <ApprovalTitle approvalId={id} words={words} /> : <GrantTitle grantId={id} words={words} />;
}

function GrantTitle({ grantId, words }: { grantId: string; words: Words }) {
  const t = useGrantTimeline(grantId).data;
  return <>{t ? grantTitle(t.grant.actor.name, realmTitle(words, t.grant.namespace)) : "Grant timeline"}</>;
}

function ApprovalTitle({ approvalId, words }: { approvalId: string; words: Words }) {
  const a = useApprovalTimeline(approvalId).data?.approval;
  return <>{a ? `${a.actor.name}'s call of “${wordsFor(words, a.namespace, a.operation).label}” in ${realmTitle(words, a.namespace)}` : "Approval timeline"}</>;
}

const expiryWords: Record<string, string> = { "1h": " for 1 hour", "1d": " for 1 day", "30d": " for 30 days", never: " with no expiry" };

function sentence(e: TimelineEntry, words: Words): string {
  const ev = e.event;
  const actor = e.who.actor ?? "The agent";
  const user = e.who.user ?? "someone";
  const op = ev?.namespace && ev.operation ? wordsFor(words, ev.namespace, ev.operation).label : (ev?.operation ?? "");
  const on = ev?.ref ? ` on ${ev.ref}` : "";
  switch (e.stage) {
    case "requested":
      return `${actor} asked to “${op}”${on}.`;
    case "approved":
      return `${user} approved the request${typeof ev?.details.expires === "string" ? (expiryWords[ev.details.expires] ?? ` (${ev.details.expires})`) : ""}.`;
    case "refused":
      return `${user} refused the request.`;
    case "created": {
      const ops = Array.isArray(ev?.details.operations) ? (ev.details.operations as string[]) : [];
      const names = ev?.namespace ? ops.map((o) => wordsFor(words, ev.namespace!, o).label) : ops;
      return `${user} granted ${names.map((n) => `“${n}”`).join(", ") || "access"}.`;
    }
    case "used":
      return `${actor} used “${op}”${on}.`;
    case "denied":
      return `${actor}'s call to “${op}”${on} was refused: ${ev?.reason ?? "denied"}.`;
    case "failed":
      return `${actor}'s call to “${op}”${on} failed: ${ev?.reason ?? "error"}.`;
    case "revoked":
      return `${user} revoked it${ev?.reason ? `: “${ev.reason}”` : ""}.`;
    case "expired":
      return "The grant expired.";
    case "ran":
      return `${actor} used it.`;
    case "voided":
      return `It stopped counting${typeof ev?.details.reason === "string" ? `: ${ev.details.reason}` : ""}.`;
    default:
      return ev?.event ?? "";
  }
}

export function GrantTimelineView({ grantId, words }: { grantId: string; words: Words }) {
  const q = useGrantTimeline(grantId);
  if (q.isPending) return <Spinner label="Loading the grant's history…" />;
  if (q.isError) return <Alert tone="error" title="Could not load the history">{q.error.message}</Alert>;
  const t = q.data;
  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-700">
        {t.grant.actor.name} · {realmTitle(words, t.grant.namespace)} · granted by {t.grant.grantor.name}. Used {t.summary.uses} {t.summary.uses === 1 ? "time" : "times"}
        {t.summary.denials ? `, ${t.summary.denials} refused` : ""}
        {t.summary.errors ? `, ${t.summary.errors} failed` : ""}
        {t.summary.last_used_at ? (
          <>
            ; last used <Time iso={t.summary.last_used_at} mode="relative" />
          </>
        ) : null}
        .
      </p>
      {t.truncated ? <p className="text-xs text-slate-600">Only the most recent events are listed.</p> : null}
      <ol className="relative space-y-3 border-l-2 border-slate-200 pl-4" aria-label={`History of grant ${t.grant.id}`}>
        {t.entries.map((e, i) => (
          <li key={e.event?.id ?? `synthetic-${i}`} className="text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <Badge tone={stageWords[e.stage].tone}>{stageWords[e.stage].label}</Badge>
              <span className="text-xs text-slate-600">
                <Time iso={e.at} />
              </span>
            </div>
            <p className="mt-0.5 text-slate-800">{sentence(e, words)}</p>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** What one approval entry says, in words: who asked for which call on what, who decided (their note), how it ended. */
function approvalSentence(e: TimelineEntry, t: ApprovalTimeline, on: string): string {
  const ev = e.event;
  const actor = e.who.actor ?? t.approval.actor.name;
  const user = e.who.user ?? "someone";
  const note = typeof ev?.details.note === "string" && ev.details.note ? `: “${ev.details.note}”` : "";
  switch (e.stage) {
    case "requested":
      return `${actor} asked to run one call of “${t.approval.operation_label}”${on}.`;
    case "approved":
      return `${user} approved this one call${note}.`;
    case "refused":
      return `${user} denied it${note}.`;
    case "ran":
      return `${actor} ran the approved call, once.`;
    case "expired":
      return ev && ev.details.was === "approved" ? "It expired approved but unused." : "It expired before anyone decided.";
    case "voided":
      return `It stopped counting${typeof ev?.details.reason === "string" ? `: ${ev.details.reason}` : ""}.`;
    default:
      return ev?.event ?? "";
  }
}

export function ApprovalTimelineView({ approvalId, words }: { approvalId: string; words: Words }) {
  const q = useApprovalTimeline(approvalId);
  if (q.isPending) return <Spinner label="Loading the approval's history…" />;
  if (q.isError) return <Alert tone="error" title="Could not load the history">{q.error.message}</Alert>;
  const t = q.data;
  const a = t.approval;
  // The object by the name the person saw when deciding (kept with the decision), else its ref.
  const items = t.entries.flatMap((e) => (Array.isArray(e.event?.details.items) ? (e.event.details.items as { ref: string; label: string | null; visible: boolean }[]) : []));
  const seen = items.find((i) => i.ref === a.ref);
  const on = a.ref ? (seen?.visible && seen.label ? ` on “${seen.label.replace(/^“|”$/g, "")}”` : ` on ${a.ref}`) : "";
  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-700">
        {a.actor.name} · {realmTitle(words, a.namespace)} · asked {a.grantor.name} to approve one call of “{wordsFor(words, a.namespace, a.operation).label}”. Now:{" "}
        <strong>{approvalStatusWords[a.status]}</strong>.
      </p>
      <ol className="relative space-y-3 border-l-2 border-slate-200 pl-4" aria-label={`History of approval ${a.id}`}>
        {t.entries.map((e, i) => (
          <li key={e.event?.id ?? `synthetic-${i}`} className="text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <Badge tone={stageWords[e.stage].tone}>{stageWords[e.stage].label}</Badge>
              <span className="text-xs text-slate-600">
                <Time iso={e.at} />
              </span>
            </div>
            <p className="mt-0.5 text-slate-800">{approvalSentence(e, t, on)}</p>
          </li>
        ))}
      </ol>
    </div>
  );
}

const approvalStatusWords: Record<ApprovalTimeline["approval"]["status"], string> = {
  pending: "waiting for a decision",
  approved: "approved, not run yet",
  denied: "denied",
  expired: "expired",
  consumed: "ran once",
  void: "no longer counts",
};
