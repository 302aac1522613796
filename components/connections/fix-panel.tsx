"use client";
// The deep link's landing: who asked, for what, what is missing — and the one button that fixes it. The
// view is recomputed on the server after every round trip, so it says "done" as soon as it is.
import Link from "next/link";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field, Input, Select } from "@/components/ui/input";
import type { AccountView } from "@/lib/connections/accounts";
import type { FixView } from "@/lib/views/connections";
import { currentPath, useStartConnection } from "./use-start-connection";
import { errorText, resultWords, statusWords } from "./words";

export function FixPanel({ view, result, error }: { view: FixView; result: string | null; error: string | null }) {
  const start = useStartConnection();
  const who = view.actor ? view.actor.name : "An agent or script acting for you";
  const live = view.live;
  return (
    <div className="space-y-6">
      {error ? <Alert tone="error" title="That did not work">{errorText(error)}</Alert> : null}
      {start.isError ? <Alert tone="error" title="Could not start">{start.error.message}</Alert> : null}

      <Card>
        <h2 className="font-semibold">What was asked</h2>
        <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="text-slate-600">Who asked</dt>
          <dd>
            <span className="font-medium">{who}</span>
            {view.actor ? <span className="text-slate-600"> — an agent acting for you</span> : null}
          </dd>
          <dt className="text-slate-600">To do</dt>
          <dd>
            {view.operation.label} <span className="text-slate-600">in {view.realm.title}</span>
          </dd>
          <dt className="text-slate-600">It needs</dt>
          <dd>{view.needed.length ? view.needed.map((c) => c.label).join(" · ") : `a connected ${view.api.label.toLowerCase()} account`}</dd>
          {view.selector ? (
            <>
              <dt className="text-slate-600">Account named</dt>
              <dd>{view.selector}</dd>
            </>
          ) : null}
        </dl>
      </Card>

      {live === null ? (
        <Fixed view={view} result={result} />
      ) : (
        <Card>
          <Missing view={view} live={live} onStart={start.mutate} starting={start.isPending} />
        </Card>
      )}
    </div>
  );
}

function Fixed({ view, result }: { view: FixView; result: string | null }) {
  const agent = view.actor?.name ?? "The agent";
  return (
    <Alert tone="success" title={result ? (resultWords[result] ?? "Done.") : "Nothing is missing any more"}>
      {view.choose ? (
        <>
          {agent} can retry now, naming which account to use (account: {view.choose.map((a) => `“${a.label}”`).join(" or ")}), since you have several.
        </>
      ) : (
        <>{agent} can retry the same request now; it will go through.</>
      )}{" "}
      <Link href={view.returnTo} className="font-medium underline">
        Continue
      </Link>
    </Alert>
  );
}

type Start = ReturnType<typeof useStartConnection>["mutate"];

/** Where the provider round trip comes back to: a consent page that sent the person here (it says when all is done), else this page. */
const backTo = (view: FixView) => (view.returnTo.startsWith("/consent/") ? view.returnTo : currentPath());

function Missing({ view, live, onStart, starting }: { view: FixView; live: NonNullable<FixView["live"]>; onStart: Start; starting: boolean }) {
  const acct = live.account;
  const missing = live.missing.map((c) => `“${c.label}”`).join(" and ");
  switch (live.reason) {
    case "claim_upgrade_required":
      return (
        <section aria-labelledby="fix-title">
          <h2 id="fix-title" className="font-semibold">Allow {missing} for {acct?.name}</h2>
          <p className="mt-1 text-sm text-slate-600">
            The account is connected, but without this permission. You will be asked at {acct?.provider_label} for this permission only; everything else stays as it is.
          </p>
          <AccountLine account={acct} />
          <Button className="mt-4" disabled={starting || !acct} onClick={() => acct && onStart({ intent: "upgrade", account_id: acct.id, claims: live.missing.map((c) => c.name), return_to: backTo(view) })}>
            {starting ? "Opening the provider…" : `Allow ${missing}`}
          </Button>
        </section>
      );
    case "reconnect_required":
      return (
        <section aria-labelledby="fix-title">
          <h2 id="fix-title" className="font-semibold">Reconnect {acct?.name}</h2>
          <p className="mt-1 text-sm text-slate-600">
            {acct?.provider_label ?? "The provider"} no longer accepts this connection{acct?.status_reason ? ` (${acct.status_reason})` : ""}. Sign in to it again to restore access.
          </p>
          <AccountLine account={acct} />
          <Button className="mt-4" disabled={starting || !acct} onClick={() => acct && onStart({ intent: "reconnect", account_id: acct.id, claims: live.missing.map((c) => c.name), return_to: backTo(view) })}>
            {starting ? "Opening the provider…" : "Reconnect"}
          </Button>
        </section>
      );
    case "account_required":
    case "connect_required":
      return <ConnectHere view={view} live={live} onStart={onStart} starting={starting} />;
  }
}

function AccountLine({ account }: { account: AccountView | null }) {
  if (!account) return null;
  const s = statusWords[account.status] ?? { label: account.status, tone: "slate" as const };
  return (
    <p className="mt-3 text-sm">
      {account.label} ({account.email ?? "no email"}) <Badge tone={s.tone}>{s.label}</Badge>
      <span className="text-slate-600"> · allows {account.claims.length ? account.claims.map((c) => c.label).join(", ") : "nothing yet"}</span>
    </p>
  );
}

function ConnectHere({ view, live, onStart, starting }: { view: FixView; live: NonNullable<FixView["live"]>; onStart: Start; starting: boolean }) {
  const [providerId, setProviderId] = useState(view.providers[0]?.id ?? "");
  const [label, setLabel] = useState(view.selector && !view.selector.includes("@") ? view.selector : "");
  const provider = view.providers.find((p) => p.id === providerId) ?? view.providers[0];
  // A new account is always asked for the API's first claim (reading) too: every other operation starts by finding things.
  const claims = [...new Set([...(provider?.claims.slice(0, 1).map((c) => c.name) ?? []), ...live.missing.map((c) => c.name)])];
  const claimLabels = claims.map((c) => provider?.claims.find((x) => x.name === c)?.label ?? c).join(" · ");
  return (
    <section aria-labelledby="fix-title">
      <h2 id="fix-title" className="font-semibold">
        {live.reason === "account_required" ? "That account is not connected" : `Connect a ${view.api.label.toLowerCase()} account`}
      </h2>
      {live.reason === "account_required" && view.accounts.length ? (
        <p className="mt-1 text-sm text-slate-600">
          You have {view.accounts.map((a) => `“${a.label}”`).join(", ")}. The agent can retry naming one of them — or connect the account it asked for here.
        </p>
      ) : (
        <p className="mt-1 text-sm text-slate-600">You will sign in at the provider and approve: {claimLabels}. You can disconnect it at any time.</p>
      )}
      {!provider ? (
        <div className="mt-3">
          <Alert tone="warning" title="No provider is configured">
            This Realmgate has no {view.api.label.toLowerCase()} provider set up yet; ask an administrator (see the Connections section of the README).
          </Alert>
        </div>
      ) : (
        <form
          className="mt-4 space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            onStart({ intent: "connect", provider: provider.id, claims, label: label.trim() || undefined, return_to: backTo(view) });
          }}
        >
          <div className="grid gap-4 sm:grid-cols-2">
            {view.providers.length > 1 ? (
              <Field id="fix-provider" label="Provider">
                <Select id="fix-provider" value={provider.id} onChange={(e) => setProviderId(e.target.value)}>
                  {view.providers.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.label}
                    </option>
                  ))}
                </Select>
              </Field>
            ) : null}
            <Field id="fix-label" label="Label (optional)" hint="How agents will name this account, e.g. Work. Defaults to what the provider calls it (its email, or its workspace).">
              <Input id="fix-label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={60} aria-describedby="fix-label-hint" placeholder="e.g. Work" />
            </Field>
          </div>
          <Button type="submit" disabled={starting}>
            {starting ? "Opening the provider…" : `Connect ${provider.label}`}
          </Button>
        </form>
      )}
    </section>
  );
}
