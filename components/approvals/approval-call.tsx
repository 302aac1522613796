// "What it will do": the one call an approval is for, as its realm presents it (recipients and body for mail,
// before → after for a change, what a delete destroys), the object by the name the person reads it by (its ref
// only on demand), and the call's fingerprint for whoever wants to check it. Text only: React escapes every value.
import { PresentedLines } from "@/components/consent/presented-call";
import { RiskBadge, riskWords } from "@/components/realms/risk-badge";
import type { ApprovalDetail } from "@/lib/approvals/decide";

/** What the section is, by where the approval stands: a call still to run, one that ran, one that never will. */
const heading: Record<ApprovalDetail["status"], string> = {
  pending: "What it will do",
  approved: "What it will do",
  consumed: "What it did",
  denied: "The call it asked to make",
  expired: "The call it asked to make",
  void: "The call it asked to make",
};

/** What a delete does to its object, by where the approval stands. */
const destroyWords: Record<ApprovalDetail["status"], string> = {
  pending: "Destroys ",
  approved: "Destroys ",
  consumed: "Destroyed ",
  denied: "Would have destroyed ",
  expired: "Would have destroyed ",
  void: "Would have destroyed ",
};

/** A label in quotes, unless the realm already quoted it (a thread's label is its quote). */
const quoted = (label: string) => (label.startsWith("“") ? label : `“${label}”`);

export function ApprovalCallSection({ approval }: { approval: ApprovalDetail }) {
  const { call, target } = approval;
  // A delete says what it destroys by the object's name, here, where its ref is on demand (not twice).
  const destroys = approval.operation === "object.delete";
  const lines = call?.kind === "presented" ? (destroys && target ? call.lines.filter((l) => l.label !== "Destroys") : call.lines) : [];
  // Presenters cut long values (an ellipsis at the end): then the whole call opens by itself.
  const shortened = lines.some((l) => l.value.endsWith("…"));
  return (
    <section aria-labelledby="call-heading" className="rounded-lg border border-slate-200 bg-white p-5">
      <h2 id="call-heading" className="font-semibold">
        {heading[approval.status]}
      </h2>
      <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-800">
        <span>
          <span className="font-medium">{approval.operation_label}</span> in {approval.realm_title}
        </span>
        {approval.risk ? <RiskBadge risk={approval.risk} /> : null}
      </p>
      {approval.risk && approval.risk !== "read" ? <p className="mt-0.5 text-xs text-slate-600">{riskWords[approval.risk].explain}</p> : null}
      {target ? (
        <div className="mt-3 text-sm">
          <span className={destroys ? "font-medium text-red-700" : "text-slate-700"}>{destroys ? destroyWords[approval.status] : "On "}</span>
          {target.visible ? (
            <>
              <span className="font-medium text-slate-900">{quoted(target.label ?? "")}</span>
              {target.summary ? <span className="text-slate-700"> — {target.summary}</span> : null}
              <details className="text-xs text-slate-600">
                <summary className="inline-flex min-h-6 cursor-pointer items-center underline">Show ref</summary>
                <code className="break-all">{target.ref}</code>
              </details>
            </>
          ) : (
            <>
              {/* Nothing to name it by: the ref is all there is, kept small beside what it means. */}
              <span className="text-slate-800">something you cannot see</span> <code className="break-all text-xs text-slate-600">{target.ref}</code>
            </>
          )}
        </div>
      ) : null}
      {call === null ? (
        <p className="mt-3 text-sm text-slate-700">The details of this call were not kept.</p>
      ) : call.kind === "too_large" ? (
        <p className="mt-3 text-sm text-slate-700">The call is too large to show here ({Math.ceil(call.bytes / 1024)} KB). Approve it only if you expected it.</p>
      ) : (
        <PresentedLines lines={lines} className="mt-3 rounded-md border border-slate-200 bg-slate-50 p-3" />
      )}
      {approval.full_call !== null ? (
        <details className="mt-3 text-sm text-slate-700" open={shortened || undefined}>
          <summary className="inline-flex min-h-6 cursor-pointer items-center underline">
            {shortened ? "The summary shortens long text: read the whole call, exactly as it will run" : "The whole call, exactly as it will run"}
          </summary>
          <pre className="mt-2 max-h-96 overflow-auto whitespace-pre-wrap break-words rounded-md border border-slate-200 bg-slate-50 p-3 text-xs text-slate-900" tabIndex={0} aria-label="The whole call">
            {approval.full_call}
          </pre>
        </details>
      ) : null}
      <details className="mt-3 text-xs text-slate-600">
        <summary className="inline-flex min-h-6 cursor-pointer items-center underline">Technical details</summary>
        <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
          <dt>Tool</dt>
          <dd>
            <code>{approval.tool}</code>
          </dd>
          <dt>Operation</dt>
          <dd>
            <code>{approval.operation}</code>
          </dd>
          <dt>Fingerprint</dt>
          <dd className="min-w-0">
            <code className="break-all">{approval.payload_digest}</code>
            <span className="block">SHA-256 of the exact input; any change to it needs a new approval.</span>
          </dd>
        </dl>
      </details>
    </section>
  );
}
