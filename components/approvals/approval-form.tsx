"use client";
// The approval page's body: who asks, the exact call as its realm presents it, and the decision. Approving lets
// exactly this request run once, when the agent sends it again; nothing else. The decision goes to the REST API,
// whose cookie-authenticated writes are refused unless they come from Realmgate's own origin (CSRF). After a
// decision the focus moves to what happened, so a keyboard or screen reader user hears it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { api, ApiError } from "@/components/api-client";
import { actorKindWords, kindLabel } from "@/components/agents/kinds";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Time } from "@/components/ui/time";
import type { ApprovalDetail, ApprovalView } from "@/lib/approvals/decide";
import { ApprovalCallSection } from "./approval-call";

export const NOTE_MAX = 500;

type Decision = "approve" | "deny";

export function ApprovalForm({ approval }: { approval: ApprovalDetail }) {
  const router = useRouter();
  const client = useQueryClient();
  const [note, setNote] = useState("");
  const [decided, setDecided] = useState<ApprovalView | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);
  const decide = useMutation({
    mutationFn: (decision: Decision) => api<ApprovalView>(`/api/v1/approvals/${encodeURIComponent(approval.id)}`, { method: "POST", body: note.trim() ? { decision, note: note.trim() } : { decision } }),
    onSuccess: (v) => {
      setDecided(v);
      // One fewer waiting: the navigation badge reads its count again.
      void client.invalidateQueries({ queryKey: ["pending-requests-count"] });
      // The page's own heading follows where it stands now (this form keeps what it just said).
      router.refresh();
    },
  });
  const current: ApprovalView = decided ?? approval;
  // Decided: the focus goes to what happened (the form is gone). A failure announces itself (role="alert").
  useEffect(() => {
    if (decided) outcomeRef.current?.focus();
  }, [decided]);

  const kind = actorKindWords[approval.actor.kind];
  const tooLong = note.trim().length > NOTE_MAX;
  const conflict = decide.error instanceof ApiError && decide.error.status === 409;

  return (
    <div className="space-y-6">
      <section aria-labelledby="who-heading" className="rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="who-heading" className="font-semibold">
          Who is asking
        </h2>
        <p className="mt-1 text-sm text-slate-800">
          <span className="font-medium">{approval.actor.name}</span>,{" "}
          {kind ? `${kind.withArticle}: ${kind.explain.charAt(0).toLowerCase()}${kind.explain.slice(1)}` : `of kind ${kindLabel(approval.actor.kind)}.`}
        </p>
        <p className="mt-1 text-xs text-slate-600">
          It acts for you ({approval.grantor.name}), never as you. Asked <Time iso={approval.created_at} mode="relative" />.
        </p>
      </section>

      <ApprovalCallSection approval={approval} />

      <div ref={outcomeRef} tabIndex={-1} className="outline-none">
        <Outcome approval={approval} current={current} justDecided={decided !== null} />
      </div>

      {current.status === "pending" ? (
        <form
          aria-labelledby="decide-heading"
          className="space-y-4 rounded-lg border border-slate-200 bg-white p-5"
          onSubmit={(e) => {
            e.preventDefault();
            if (!tooLong) decide.mutate("approve");
          }}
        >
          <h2 id="decide-heading" className="font-semibold">
            Your decision
          </h2>
          <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700">
            <li>
              Approving lets <strong>exactly this request</strong> run <strong>once</strong>, when {approval.actor.name} sends it again. It gets no grant: its next call of
              this kind asks you again.
            </li>
            <li>If the agent changes anything in the call, this approval no longer covers it.</li>
            <li>
              It must run before <Time iso={approval.expires_at} mode="both" />, or the approval lapses.
            </li>
          </ul>
          <div>
            <label htmlFor="approval-note" className="block text-sm font-medium text-slate-900">
              Note <span className="font-normal text-slate-600">(optional)</span>
            </label>
            <textarea
              id="approval-note"
              name="note"
              rows={3}
              value={note}
              onChange={(e) => setNote(e.target.value)}
              aria-describedby="approval-note-hint"
              aria-invalid={tooLong || undefined}
              className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900"
            />
            <p id="approval-note-hint" className={`mt-1 text-xs ${tooLong ? "font-medium text-red-700" : "text-slate-600"}`}>
              Kept with your decision in the audit trail; if you deny, the agent is told it. {note.trim().length}/{NOTE_MAX} characters
              {tooLong ? " — too long, shorten it to send" : ""}.
            </p>
          </div>
          {decide.isError ? (
            <Alert tone={conflict ? "warning" : "error"} title={conflict ? "Already settled" : "Your decision was not saved"}>
              <p>{decide.error.message}</p>
              <div className="mt-2">
                {conflict ? (
                  <Button type="button" variant="secondary" onClick={() => router.refresh()}>
                    Show where it stands
                  </Button>
                ) : (
                  <Button type="button" variant="secondary" disabled={decide.isPending} onClick={() => decide.mutate(decide.variables ?? "approve")}>
                    Try again
                  </Button>
                )}
              </div>
            </Alert>
          ) : null}
          {approval.cannot_approve ? (
            <p id="cannot-approve" className="text-sm font-medium text-amber-800">
              {approval.cannot_approve}
            </p>
          ) : null}
          <div className="flex flex-col gap-3 sm:flex-row">
            <Button type="submit" disabled={decide.isPending || tooLong || approval.actor.revoked || approval.cannot_approve !== null} aria-describedby={approval.cannot_approve ? "cannot-approve" : undefined}>
              {decide.isPending && decide.variables === "approve" ? "Approving…" : "Approve this one call"}
            </Button>
            <Button type="button" variant="danger" disabled={decide.isPending || tooLong} onClick={() => decide.mutate("deny")}>
              {decide.isPending && decide.variables === "deny" ? "Denying…" : "Deny"}
            </Button>
          </div>
          <p role="status" className="sr-only">
            {decide.isPending ? "Saving your decision…" : ""}
          </p>
        </form>
      ) : null}
    </div>
  );
}

/** Where the approval stands: just decided here, or as it was when the page loaded (expired, decided, ran, void). */
function Outcome({ approval, current, justDecided }: { approval: ApprovalDetail; current: ApprovalView; justDecided: boolean }) {
  const agent = approval.actor.name;
  const by = current.decided_by?.name ?? "You";
  const when = current.decided_at ? (
    <>
      {" "}
      <Time iso={current.decided_at} />
    </>
  ) : null;
  const noteLine = current.note ? <p className="mt-1">Note: “{current.note}”</p> : null;
  const home = (
    <p className="mt-2">
      <Link href="/" className="font-medium underline">
        Back to what waits for you
      </Link>
    </p>
  );
  switch (current.status) {
    case "pending":
      return approval.actor.revoked ? (
        <Alert tone="warning" title="This agent is revoked">
          It can no longer run anything. Deny the call, or let it lapse.
        </Alert>
      ) : null;
    case "approved":
      return justDecided ? (
        <Alert tone="success" title="Approved">
          <p>
            The agent can now run this call once — it has until <Time iso={current.expires_at} mode="both" />.
          </p>
          {noteLine}
          {home}
        </Alert>
      ) : (
        <Alert tone="success" title="Already approved">
          <p>
            {by} approved this call{when}. {agent} can run it once, until <Time iso={current.expires_at} mode="both" />.
          </p>
          {noteLine}
        </Alert>
      );
    case "denied":
      return (
        <Alert tone="info" title={justDecided ? "Denied" : "Already denied"}>
          <p>
            {justDecided ? `Nothing ran. ${agent} is told you said no` : `${by} denied this call`}
            {justDecided ? "" : when}
            {justDecided && current.note ? ", with your note" : ""}. If it asks again, you will see a new request.
          </p>
          {noteLine}
          {justDecided ? home : null}
        </Alert>
      );
    case "consumed":
      return (
        <Alert tone="success" title="Done">
          <p>
            {by} approved this call{when}.{" "}
            {current.consumed_at ? (
              <>
                It ran at <Time iso={current.consumed_at} mode="both" />
              </>
            ) : (
              "It ran"
            )}
            , once; asking again with the same approval only repeats its answer.
          </p>
          {noteLine}
        </Alert>
      );
    case "expired":
      return (
        <Alert tone="info" title="This approval has expired">
          {current.decided_at ? (
            <>
              {by} approved it{when}, but {agent} did not run it before <Time iso={current.expires_at} mode="both" />.
            </>
          ) : (
            <>
              Nobody decided before <Time iso={current.expires_at} mode="both" />, so it can no longer be approved.
            </>
          )}{" "}
          Nothing ran. If the agent still needs this, its next attempt asks you again.
        </Alert>
      );
    case "void":
      return (
        <Alert tone="info" title="This approval no longer counts">
          {current.void_reason ? `It stopped counting: ${current.void_reason}.` : "It stopped counting."} Nothing ran with it.
        </Alert>
      );
  }
}
