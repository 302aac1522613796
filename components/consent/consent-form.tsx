"use client";
// The consent screen's decision: which of the asked-for operations to allow, on what, for how long — or deny.
// The decision goes to the REST API, whose cookie-authenticated writes are refused unless they come from
// Realmgate's own origin (CSRF); the page itself is never framed (frame-ancestors 'none'). Companion operations
// are offered checked; connected-account walls still ahead of the call are opened in the same visit: approving
// continues into the provider round trip (or the fix page), which comes back here to say everything is done.
// After a decision the focus moves to what happened (the form is gone), and the navigation's count of waiting
// requests is read again.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { api } from "@/components/api-client";
import { kindLabel, actorKindWords } from "@/components/agents/kinds";
import { useStartConnection } from "@/components/connections/use-start-connection";
import { errorText, resultWords } from "@/components/connections/words";
import { RiskBadge, riskWords } from "@/components/realms/risk-badge";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Time } from "@/components/ui/time";
import { PresentedCallSection } from "./presented-call";
import type { ConsentRequestView, NamedRef } from "@/lib/authz/consent";
import type { GrantView } from "@/lib/authz/grants";
import type { WallView } from "@/lib/connections/walls";
import type { Decided, PresentedCall } from "@/lib/views/consent";
import type { OperationView } from "@/lib/views/realms";

const expiries = [
  { value: "1h", label: "1 hour" },
  { value: "1d", label: "1 day" },
  { value: "30d", label: "30 days" },
  { value: "never", label: "No expiry", hint: "until you revoke it" },
] as const;
type Expiry = (typeof expiries)[number]["value"];

/** A label in quotes, unless the realm already quoted it (a thread's label is its quote). */
const quoted = (label: string) => (label.startsWith("“") ? label : `“${label}”`);

export type ConsentRealm = { title: string; purpose: string; touches: string[] };

export type Companion = { operation: OperationView; why: string };
export type Outcome = { connection: string | null; error: string | null };

/** What opening a wall asks of the person, in a few words. */
function wallWords(w: WallView): string {
  const wants = w.missing.map((c) => `“${c.label}”`).join(" and ");
  switch (w.reason) {
    case "claim_upgrade_required":
      return `Allow ${wants} for ${w.account?.email ?? w.account?.label ?? "your account"}`;
    case "reconnect_required":
      return `Reconnect ${w.account?.email ?? w.account?.label ?? "your account"}`;
    default:
      return `Connect a ${w.api_label.toLowerCase()} account${wants ? ` allowing ${wants}` : ""}`;
  }
}

export function ConsentForm({
  request,
  realm,
  operations,
  items,
  companions = [],
  walls = [],
  returnPath,
  outcome = { connection: null, error: null },
  presented = null,
}: {
  request: ConsentRequestView;
  realm: ConsentRealm;
  operations: OperationView[];
  items: NamedRef[];
  companions?: Companion[];
  walls?: WallView[];
  returnPath: string;
  outcome?: Outcome;
  /** The call that made the request, as its realm presents it (null: not kept). */
  presented?: PresentedCall | null;
}) {
  const start = useStartConnection();
  const client = useQueryClient();
  const outcomeRef = useRef<HTMLDivElement>(null);
  // The walls ahead go one way: upgrade and reconnect straight to the provider, connecting by the fix page (it asks which provider).
  const openWall = (w: WallView) => (w.start ? start.mutate({ ...w.start, return_to: returnPath }) : window.location.assign(w.connection_hub_url));
  const [chosen, setChosen] = useState<Set<string>>(new Set([...request.operations, ...companions.map((c) => c.operation.key)]));
  const [expires, setExpires] = useState<Expiry>("1d");
  // "Only these items" is possible only for items this person can see themselves.
  const canScope = items.length > 0 && items.every((i) => i.visible);
  const [scopeToRef, setScopeToRef] = useState(canScope);
  const [result, setResult] = useState<{ status: string; grant: GrantView | null; ahead: WallView[] } | null>(null);
  const decide = useMutation({
    mutationFn: (decision: "approve" | "deny") =>
      api<Decided>(`/api/v1/consent-requests/${request.id}${returnPath.includes("?") ? returnPath.slice(returnPath.indexOf("?")) : ""}`, {
        method: "POST",
        body: decision === "approve" ? { decision, expires, operations: [...chosen], scope_to_ref: scopeToRef } : { decision },
      }),
    onSuccess: (r) => {
      setResult({ status: r.request.status, grant: r.grant, ahead: r.also_needed });
      // One fewer waiting: the navigation badge reads its count again.
      void client.invalidateQueries({ queryKey: ["pending-requests-count"] });
      // One visit: approving goes straight on to the connected account the call also needs.
      const next = r.also_needed[0];
      if (r.request.status === "approved" && next) openWall(next);
    },
  });
  // Decided: the focus goes to what happened, where the form was.
  useEffect(() => {
    if (result) outcomeRef.current?.focus();
  }, [result]);
  const byKey = new Map<string, OperationView>([...operations, ...companions.map((c) => c.operation)].map((o) => [o.key, o]));
  const status = result?.status ?? request.status;
  const kind = actorKindWords[request.actor.kind];

  if (status === "expired") {
    return (
      <div className="space-y-4">
        <Alert tone="info" title="This request has expired">
          {request.actor.name} asked{request.expires_at ? <> until <Time iso={request.expires_at} mode="both" /></> : null}, and nobody decided in time, so it can no longer
          be approved. If the agent still needs this, its next attempt asks you again.
        </Alert>
        <Link href="/agents" className="inline-block text-sm font-medium text-brand-700 underline">
          See what your agents may do
        </Link>
      </div>
    );
  }

  // Just decided: the walls the approval answered; else the ones the server read for this page.
  const ahead = result ? result.ahead : walls;
  const leaving = start.isPending || start.isSuccess;
  // Approved with walls still ahead, or back from the provider round trip that opened them.
  if (status === "approved" && (ahead.length > 0 || (!result && (outcome.connection !== null || outcome.error !== null)))) {
    // Back from the provider (or reopened): what is still ahead of the agent's call, recomputed by the server.
    return (
      <div ref={outcomeRef} tabIndex={-1} className="space-y-4 outline-none">
        {outcome.error ? <Alert tone="error" title="The connection did not complete">{errorText(outcome.error)}</Alert> : null}
        {start.isError ? <Alert tone="error" title="Could not start">{start.error.message}</Alert> : null}
        {ahead.length ? (
          <Alert tone="warning" title={`Approved — one more step before ${request.actor.name} can do this`}>
            <ul className="mt-1 space-y-2">
              {ahead.map((w) => (
                <li key={w.connection_hub_url} className="flex flex-wrap items-center gap-3">
                  <span>{wallWords(w)}.</span>
                  <Button type="button" disabled={leaving} onClick={() => openWall(w)}>
                    {leaving ? "Opening the provider…" : "Continue"}
                  </Button>
                </li>
              ))}
            </ul>
          </Alert>
        ) : (
          <Alert tone="success" title="Everything is done">
            {outcome.connection ? `${resultWords[outcome.connection] ?? "Done."} ` : ""}
            You approved {request.actor.name}&apos;s request{request.decided_at ? <> (<Time iso={request.decided_at} />)</> : null} and its connected account is ready. The
            agent may retry its call now; it will go through.
          </Alert>
        )}
        <Link href="/agents" className="inline-block text-sm font-medium text-brand-700 underline">
          See what your agents may do
        </Link>
      </div>
    );
  }

  if (status !== "pending") {
    return (
      <div ref={outcomeRef} tabIndex={-1} className="space-y-4 outline-none">
        {result ? (
          status === "approved" ? (
            <Alert tone="success" title={`Approved — ${request.actor.name} can now do this`}>
              {result.grant?.expires_at ? (
                <>
                  The grant expires <Time iso={result.grant.expires_at} mode="both" />.
                </>
              ) : (
                "The grant has no expiry; revoke it any time on the Agents page."
              )}{" "}
              The agent may retry its call now.
            </Alert>
          ) : (
            <Alert tone="info" title="Denied">
              {request.actor.name} gets no access. If it asks again, you will see a new request.
            </Alert>
          )
        ) : (
          <Alert tone="info" title={`This request was already ${status}`}>
            {request.decided_at ? (
              <>
                Decided <Time iso={request.decided_at} />.
              </>
            ) : null}
          </Alert>
        )}
        <Link href="/agents" className="inline-block text-sm font-medium text-brand-700 underline">
          See what your agents may do
        </Link>
      </div>
    );
  }

  const blockedOps = [...chosen].map((k) => byKey.get(k)).filter((o): o is OperationView => !!o && !o.effective);

  return (
    <form
      className="space-y-6"
      onSubmit={(e) => {
        e.preventDefault();
        decide.mutate("approve");
      }}
    >
      <section aria-labelledby="who-heading" className="rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="who-heading" className="font-semibold">
          Who is asking
        </h2>
        <p className="mt-1 text-sm text-slate-800">
          <span className="font-medium">{request.actor.name}</span>, {kind ? `${kind.withArticle}: ${kind.explain.charAt(0).toLowerCase()}${kind.explain.slice(1)}` : `of kind ${kindLabel(request.actor.kind)}.`}
        </p>
        <p className="mt-1 text-xs text-slate-600">
          It acts for you ({request.grantor.name}), never as you. First asked <Time iso={request.created_at} mode="relative" />
          {request.attempts > 1 ? `, ${request.attempts} attempts so far` : ""}
          {request.expires_at ? (
            <>
              ; the request lapses <Time iso={request.expires_at} mode="relative" />
            </>
          ) : null}
          .
        </p>
        {request.actor.revoked ? (
          <div className="mt-3">
            <Alert tone="warning" title="This agent is revoked">
              It can no longer receive grants. Deny the request, or create a new agent.
            </Alert>
          </div>
        ) : null}
      </section>

      <PresentedCallSection presented={presented} />

      <section aria-labelledby="what-heading" className="rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="what-heading" className="font-semibold">
          What the grant will allow in {realm.title}
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          {realm.purpose} A grant is not one call: it lets {request.actor.name} do this again, as often as it likes, until it expires or you revoke it.
        </p>
        <fieldset className="mt-3">
          <legend className="sr-only">Operations to allow</legend>
          <ul className="space-y-2">
            {request.operations.map((key) => {
              const o = byKey.get(key);
              const id = `op-${key.replace(/[^a-z0-9]/gi, "-")}`;
              return (
                <li key={key} className="flex items-start gap-3 rounded-md border border-slate-200 p-3">
                  {request.operations.length > 1 ? (
                    <input
                      id={id}
                      type="checkbox"
                      className="mt-1 h-5 w-5"
                      checked={chosen.has(key)}
                      onChange={(e) => setChosen((s) => { const n = new Set(s); if (e.target.checked) n.add(key); else n.delete(key); return n; })}
                    />
                  ) : null}
                  <div>
                    <label htmlFor={request.operations.length > 1 ? id : undefined} className="flex flex-wrap items-center gap-2 font-medium text-slate-900">
                      {o?.label ?? key} {o ? <RiskBadge risk={o.risk} /> : null}
                    </label>
                    {o ? (
                      <p className="text-sm text-slate-700">
                        {o.description} <span className="text-slate-600">({riskWords[o.risk].explain})</span>
                      </p>
                    ) : null}
                    <p className="text-xs text-slate-600">
                      <code>{key}</code>
                    </p>
                  </div>
                </li>
              );
            })}
          </ul>
        </fieldset>
        {blockedOps.length ? (
          <div className="mt-3">
            <Alert tone="warning" title="Turned off right now">
              {blockedOps.map((o) => `“${o.label}”`).join(", ")} {blockedOps.length === 1 ? "is" : "are"} off for your agents ({blockedOps.some((o) => !o.ceiling) ? "by the workspace owner" : "by your own choice"}). Approving
              records the grant, but calls stay refused until it is turned back on.
            </Alert>
          </div>
        ) : null}
      </section>

      {companions.length ? (
        <section aria-labelledby="companions-heading" className="rounded-lg border border-slate-200 bg-white p-5">
          <h2 id="companions-heading" className="font-semibold">
            Usually needed with it
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            {request.actor.name} did not ask for these yet, but what it asked for goes together with them. They are included unless you uncheck them
            {items.length ? ", and limited to the same items as the rest when you approve only those" : ""}.
          </p>
          <fieldset className="mt-3">
            <legend className="sr-only">Companion operations to allow too</legend>
            <ul className="space-y-2">
              {companions.map(({ operation: o, why }) => {
                const id = `companion-${o.key.replace(/[^a-z0-9]/gi, "-")}`;
                return (
                  <li key={o.key} className="flex items-start gap-3 rounded-md border border-slate-200 p-3">
                    <input
                      id={id}
                      type="checkbox"
                      className="mt-1 h-5 w-5"
                      checked={chosen.has(o.key)}
                      onChange={(e) => setChosen((s) => { const n = new Set(s); if (e.target.checked) n.add(o.key); else n.delete(o.key); return n; })}
                    />
                    <div>
                      <label htmlFor={id} className="flex flex-wrap items-center gap-2 font-medium text-slate-900">
                        {o.label} <RiskBadge risk={o.risk} />
                      </label>
                      <p className="text-sm text-slate-700">
                        {o.description} <span className="text-slate-600">({riskWords[o.risk].explain})</span>
                      </p>
                      {why ? <p className="text-sm text-slate-600">{why}</p> : null}
                      <p className="text-xs text-slate-600">
                        <code>{o.key}</code>
                      </p>
                    </div>
                  </li>
                );
              })}
            </ul>
          </fieldset>
        </section>
      ) : null}

      {walls.length ? (
        <section aria-labelledby="walls-heading" className="rounded-lg border border-slate-200 bg-white p-5">
          <h2 id="walls-heading" className="font-semibold">
            Also needed for this call
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            The call also needs your connected account. Approving takes you straight there, and brings you back here when it is done — one visit for everything.
          </p>
          <ul className="mt-2 list-disc pl-5 text-sm text-slate-800">
            {walls.map((w) => (
              <li key={w.connection_hub_url}>
                {wallWords(w)}
                {w.account ? <span className="text-slate-600"> (at {w.account.provider_label})</span> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-labelledby="on-heading" className="rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="on-heading" className="font-semibold">
          On what
        </h2>
        {items.length ? (
          <fieldset className="mt-2 space-y-2 text-sm">
            <legend className="sr-only">Which items</legend>
            <div>
              <label className="flex items-start gap-2">
                <input type="radio" name="scope" className="mt-1 h-4 w-4" checked={scopeToRef} disabled={!canScope} onChange={() => setScopeToRef(true)} />
                <span>
                  Only {items.length === 1 ? "the item" : `the ${items.length} items`} it named{items.length > 1 ? " (the call uses all of them)" : ""}, and what{" "}
                  {items.length === 1 ? "it contains" : "they contain"}:
                </span>
              </label>
              {/* Outside the label: opening "show ref" must not choose the radio. */}
              <ul className="mt-1 space-y-1 pl-6">
                {items.map((i) => (
                  <li key={i.ref}>
                    {i.visible ? (
                      <>
                        <span className="font-medium text-slate-900">{quoted(i.label ?? "")}</span>
                        {i.summary ? <span className="text-slate-700"> — {i.summary}</span> : null}
                        <details className="text-xs text-slate-600">
                          <summary className="inline-flex min-h-6 cursor-pointer items-center underline">Show ref</summary>
                          <code className="break-all">{i.ref}</code>
                        </details>
                      </>
                    ) : (
                      <>
                        {/* Nothing to name it by: the ref is all there is, kept small beside what it means. */}
                        <span className="text-slate-800">Something you cannot see</span> <code className="break-all text-xs text-slate-600">{i.ref}</code>
                      </>
                    )}
                  </li>
                ))}
              </ul>
              {!canScope ? (
                <p className="mt-1 pl-6 text-slate-700">You cannot approve “only this item” for something you cannot see yourself. Deny, or allow everything you can reach.</p>
              ) : null}
            </div>
            <label className="flex items-start gap-2">
              <input type="radio" name="scope" className="mt-1 h-4 w-4" checked={!scopeToRef} onChange={() => setScopeToRef(false)} />
              <span>Everything you can reach in {realm.title}</span>
            </label>
          </fieldset>
        ) : (
          <p className="mt-1 text-sm text-slate-700">Everything you can reach in {realm.title}:</p>
        )}
        <ul className="mt-2 list-disc pl-5 text-sm text-slate-700">
          {realm.touches.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
      </section>

      <fieldset className="rounded-lg border border-slate-200 bg-white p-5">
        <legend className="px-1 font-semibold">For how long</legend>
        <div className="mt-1 grid gap-2 sm:grid-cols-4">
          {expiries.map((x) => (
            <label key={x.value} className={`flex min-h-10 cursor-pointer items-center gap-2 rounded-md border px-3 py-2 text-sm ${expires === x.value ? "border-brand-600 bg-slate-50" : "border-slate-300"}`}>
              <input type="radio" name="expires" value={x.value} checked={expires === x.value} onChange={() => setExpires(x.value)} className="h-4 w-4" />
              <span>
                {x.label}
                {"hint" in x ? <span className="block text-xs text-slate-600">{x.hint}</span> : null}
              </span>
            </label>
          ))}
        </div>
      </fieldset>

      {decide.isError ? <Alert tone="error" title="Your decision was not saved">{decide.error.message}</Alert> : null}
      {start.isError ? <Alert tone="error" title="Approved, but the connection could not start">{start.error.message}</Alert> : null}
      <div className="flex flex-col gap-3 sm:flex-row">
        <Button type="submit" disabled={decide.isPending || chosen.size === 0 || request.actor.revoked}>
          {decide.isPending && decide.variables === "approve" ? "Approving…" : walls.length ? "Approve and continue" : "Approve"}
        </Button>
        <Button type="button" variant="danger" disabled={decide.isPending} onClick={() => decide.mutate("deny")}>
          {decide.isPending && decide.variables === "deny" ? "Denying…" : "Deny"}
        </Button>
      </div>
    </form>
  );
}
