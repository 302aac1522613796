"use client";
// The Connection Hub's list: every connected account with its status and permissions, and the ways to
// change them — connect another, add a permission (only the missing one is asked for), remove one (asking only
// for the rest), reconnect, disconnect. Each account says when it was connected, last used, and by which agents.
// When the list cannot be loaded, it says so with a Retry, and the Connect form stays: only its provider and
// permission choices wait for the list (they come with it), what is typed as the label is kept.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { api } from "@/components/api-client";
import { Alert, LiveNotice, type Notice } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Field, Input, Select } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { Time } from "@/components/ui/time";
import type { AccountView } from "@/lib/connections/accounts";
import type { ProviderChoice } from "@/lib/views/connections";
import { currentPath, useStartConnection } from "./use-start-connection";
import { errorText, NARROW_KEPT, resultWords, statusWords } from "./words";

type Listing = { accounts: AccountView[]; providers: ProviderChoice[] };

export function ConnectionsManager({ result, error }: { result: string | null; error: string | null }) {
  const accounts = useQuery({ queryKey: ["accounts"], queryFn: () => api<Listing>("/api/v1/accounts") });
  const start = useStartConnection();
  const [notice, setNotice] = useState<Notice | null>(null);
  // A disconnected account's row (and the button used) goes away: the outcome is said here, and focus lands on it.
  const noticeRef = useRef<HTMLDivElement>(null);
  const say = (n: Notice) => {
    setNotice(n);
    requestAnimationFrame(() => noticeRef.current?.focus());
  };
  // A refetch with no data puts the query back to pending (its error cleared): while retrying, the failure stays
  // shown with its button, so focus stays on it.
  const [retrying, setRetrying] = useState<string | null>(null);
  // When the failure shown is the answer to a Retry (the time it failed), it says it was tried again.
  const [retryFailedAt, setRetryFailedAt] = useState(0);
  const listHeading = useRef<HTMLHeadingElement>(null);
  const failure = retrying ?? (accounts.isError ? accounts.error.message : null);
  const retry = async () => {
    if (retrying !== null || !accounts.isError) return;
    setRetrying(accounts.error.message);
    const again = await accounts.refetch();
    setRetrying(null);
    setRetryFailedAt(again.isError ? again.errorUpdatedAt : 0);
    // The Retry button leaves with the error: focus goes to the list it brought back.
    if (again.isSuccess) requestAnimationFrame(() => listHeading.current?.focus());
  };
  return (
    <div>
      {/* Outside the spaced stack: empty, it takes no room. */}
      <LiveNotice ref={noticeRef} notice={notice} className="mb-6" />
      <div className="space-y-6">
        {result === NARROW_KEPT ? (
          <Alert tone="warning" title="The permission was not removed">The provider gave the account back every permission it held before. Disconnect the account to take them all back.</Alert>
        ) : result === "narrow" ? (
          <Alert tone="success" title={resultWords.narrow!}>Agents can no longer use that permission through this account.</Alert>
        ) : result ? (
          <Alert tone="success" title={resultWords[result] ?? "Done."}>Agents acting for you can retry what they asked for now.</Alert>
        ) : null}
        {error ? <Alert tone="error" title="The connection did not complete">{errorText(error)}</Alert> : null}
        {start.isError ? <Alert tone="error" title="Could not start the connection">{start.error.message}</Alert> : null}

        <Card>
          <h2 ref={listHeading} tabIndex={-1} className="font-semibold">
            Your connected accounts
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            Connecting an account lets Realmgate reach it for you. It never lets an agent in by itself: each agent still needs your grant for each operation.
          </p>
          <div className="mt-4">
            {accounts.isPending && retrying === null ? <Spinner label="Loading your connected accounts…" /> : null}
            {failure !== null ? (
              <Alert tone="error" title="Your accounts could not be loaded">
                <p>
                  {failure}
                  {retrying === null && retryFailedAt !== 0 && accounts.errorUpdatedAt === retryFailedAt ? " Tried again just now, without success." : null}
                </p>
                {/* aria-disabled, not disabled: a disabled button would drop the keyboard's focus while retrying. */}
                <Button variant="secondary" className="mt-2" onClick={() => void retry()} aria-disabled={retrying !== null || undefined}>
                  {retrying !== null ? "Retrying…" : "Retry"}
                </Button>
              </Alert>
            ) : null}
            {accounts.data && accounts.data.accounts.length === 0 ? (
              <EmptyState title="No accounts connected yet">Connect an account below; you can connect several (each workspace or mailbox is one) and tell agents which one to use by its label.</EmptyState>
            ) : null}
            {accounts.data && accounts.data.accounts.length > 0 ? (
              <ul className="divide-y divide-slate-200" aria-label="Connected accounts">
                {accounts.data.accounts.map((a) => (
                  <AccountRow key={a.id} account={a} onStart={start.mutate} starting={start.isPending} onNotice={say} />
                ))}
              </ul>
            ) : null}
          </div>
        </Card>

        {/* Connecting does not need the accounts, only the providers that come with them (null: not loaded). */}
        {accounts.data || failure !== null ? <ConnectForm providers={accounts.data?.providers ?? null} onStart={start.mutate} starting={start.isPending} /> : null}
      </div>
    </div>
  );
}

type RowProps = { account: AccountView; onStart: ReturnType<typeof useStartConnection>["mutate"]; starting: boolean; onNotice: (n: Notice) => void };

function AccountRow({ account: a, onStart, starting, onNotice }: RowProps) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [removing, setRemoving] = useState<{ name: string; label: string } | null>(null);
  const disconnect = useMutation({
    mutationFn: () => api<AccountView & { provider_revocation: string }>(`/api/v1/accounts/${a.id}`, { method: "DELETE" }),
    onSuccess: async (gone) => {
      // The list first (this row leaves it), then the words, so what is said matches what is shown.
      await qc.invalidateQueries({ queryKey: ["accounts"] });
      // Realmgate forgot the tokens either way; say so when the provider could not be told to revoke them.
      const who = gone.name;
      onNotice(
        gone.provider_revocation === "revoked"
          ? { tone: "success", title: `${who} is disconnected`, text: `${gone.provider_label} revoked Realmgate's access and Realmgate forgot the account's tokens. Agents that used it will be asked to connect an account again.` }
          : gone.provider_revocation === "no_token"
            ? { tone: "success", title: `${who} is disconnected`, text: "Realmgate held no working token for it any more, and has forgotten the account. Agents that used it will be asked to connect an account again." }
            : {
                tone: "warning",
                title: "Disconnected here — check at the provider",
                text: `${who} is disconnected from Realmgate, but ${gone.provider_label} could not be asked to revoke its access. Remove Realmgate from that account's security settings at ${gone.provider_label} to be sure.`,
              },
      );
    },
  });
  const status = statusWords[a.status] ?? { label: a.status, tone: "slate" as const };
  const name = a.name;
  return (
    <li className="py-4">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <p className="font-medium">
            {a.label} <Badge tone={status.tone}>{status.label}</Badge>
          </p>
          <p className="text-sm text-slate-600">
            {a.email ?? "no email"} · {a.provider_label}
          </p>
          {a.status === "needs_reconnect" && a.status_reason ? <p className="mt-1 text-sm text-amber-800">Why: {a.status_reason}.</p> : null}
          <p className="mt-2 text-sm">
            <span className="text-slate-600">Allows: </span>
            {a.claims.length ? a.claims.map((c) => c.label).join(" · ") : "nothing yet"}
          </p>
          <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm">
            <dt className="text-slate-600">Connected</dt>
            <dd>
              <Time iso={a.connected_at} />
            </dd>
            <dt className="text-slate-600">Last used</dt>
            <dd>{a.last_used_at ? <Time iso={a.last_used_at} mode="relative" /> : "never"}</dd>
            <dt className="text-slate-600">Agents</dt>
            <dd>
              {a.agents && a.agents.length ? (
                <ul>
                  {a.agents.map((g) => (
                    <li key={g.id}>
                      {g.name}
                      <span className="text-slate-600">
                        {" "}
                        ({[g.scoped ? "granted this account only" : null, g.used_at ? "used it" : null].filter(Boolean).join(", ")}
                        {g.used_at ? (
                          <>
                            {" "}
                            <Time iso={g.used_at} mode="relative" />
                          </>
                        ) : null}
                        )
                      </span>
                    </li>
                  ))}
                </ul>
              ) : (
                "none yet"
              )}
            </dd>
          </dl>
        </div>
        <div className="flex flex-wrap gap-2 sm:justify-end">
          {a.status === "needs_reconnect" ? (
            <Button onClick={() => onStart({ intent: "reconnect", account_id: a.id, claims: [], return_to: currentPath() })} disabled={starting} aria-label={`Reconnect ${name}`}>
              Reconnect
            </Button>
          ) : null}
          {a.status === "active"
            ? a.missing_claims.map((c) => (
                <Button key={c.name} variant="secondary" onClick={() => onStart({ intent: "upgrade", account_id: a.id, claims: [c.name], return_to: currentPath() })} disabled={starting} aria-label={`Allow “${c.label}” for ${name}`}>
                  Allow: {c.label}
                </Button>
              ))
            : null}
          {a.status === "active" && a.claims.length > 1
            ? a.claims.map((c) => (
                <Button key={`remove-${c.name}`} variant="ghost" onClick={() => setRemoving(c)} disabled={starting} aria-label={`Remove “${c.label}” from ${name}`}>
                  Remove: {c.label}
                </Button>
              ))
            : null}
          {!confirming ? (
            <Button variant="danger" onClick={() => setConfirming(true)} aria-label={`Disconnect ${name}`}>
              Disconnect
            </Button>
          ) : null}
        </div>
      </div>
      {removing ? (
        <div className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3" role="group" aria-label={`Confirm removing “${removing.label}” from ${name}`}>
          <p className="text-sm text-amber-900">
            Remove “{removing.label}” from {name}?{" "}
            {a.narrowing === "reconsent"
              ? `${a.provider_label} opens and asks you to approve only the permissions that stay.`
              : `${a.provider_label} keeps every permission once given, so Realmgate first revokes the account's access there, then ${a.provider_label} asks you to approve the permissions that stay. Until you finish, the account needs reconnecting.`}
          </p>
          <div className="mt-2 flex gap-2">
            <Button
              onClick={() => onStart({ intent: "narrow", account_id: a.id, claims: a.claims.filter((c) => c.name !== removing.name).map((c) => c.name), return_to: currentPath() })}
              disabled={starting}
              autoFocus
            >
              {starting ? "Opening the provider…" : "Remove permission"}
            </Button>
            <Button variant="secondary" onClick={() => setRemoving(null)} disabled={starting}>
              Cancel
            </Button>
          </div>
        </div>
      ) : null}
      {confirming ? (
        <div className="mt-3 rounded-md border border-red-200 bg-red-50 p-3" role="group" aria-label={`Confirm disconnecting ${name}`}>
          <p className="text-sm text-red-900">
            Disconnect {name}? Realmgate revokes its access at {a.provider_label} and forgets it; agents using it will be asked to connect an account again.
          </p>
          <div className="mt-2 flex gap-2">
            <Button variant="danger" onClick={() => disconnect.mutate()} disabled={disconnect.isPending} autoFocus>
              {disconnect.isPending ? "Disconnecting…" : "Yes, disconnect"}
            </Button>
            <Button variant="secondary" onClick={() => setConfirming(false)} disabled={disconnect.isPending}>
              Cancel
            </Button>
          </div>
        </div>
      ) : null}
      {disconnect.isError ? (
        <div className="mt-3">
          <Alert tone="error" title="Could not disconnect">{disconnect.error.message}</Alert>
        </div>
      ) : null}
    </li>
  );
}

type ConnectProps = { providers: ProviderChoice[] | null; onStart: ReturnType<typeof useStartConnection>["mutate"]; starting: boolean };

function ConnectForm({ providers, onStart, starting }: ConnectProps) {
  // Chosen in the form; until then the first provider, and its first permission. Defaults are worked out on
  // each render because the providers may arrive after the form is shown (when the list loads on a retry).
  const [providerId, setProviderId] = useState("");
  const provider = providers?.find((p) => p.id === providerId) ?? providers?.[0];
  const [label, setLabel] = useState("");
  const [chosenClaims, setClaims] = useState<Set<string> | null>(null);
  const claims = chosenClaims ?? new Set(provider ? [provider.claims[0]!.name] : []);
  if (providers && !provider) {
    return (
      <Card>
        <h2 className="font-semibold">Connect an account</h2>
        <div className="mt-3">
          <Alert tone="warning" title="No provider is configured">
            This Realmgate has no provider set up yet. An administrator can add Google (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET) or Slack (SLACK_CLIENT_ID and SLACK_CLIENT_SECRET); see the Connections section of the README.
          </Alert>
        </div>
      </Card>
    );
  }
  return (
    <Card>
      <h2 className="font-semibold">Connect an account</h2>
      <form
        className="mt-3 space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          if (!provider) return;
          onStart({ intent: "connect", provider: provider.id, claims: [...claims], label: label.trim() || undefined, return_to: currentPath() });
        }}
      >
        <div className="grid gap-4 sm:grid-cols-2">
          {!providers || !provider ? (
            <div className="text-sm">
              <span className="block font-medium">Provider</span>
              <p className="mt-2 text-slate-700">Not loaded yet. The providers you can connect, and the permissions each can ask for, come with your accounts list: use Retry above, then choose here.</p>
            </div>
          ) : providers.length > 1 ? (
            <Field id="connect-provider" label="Provider">
              <Select
                id="connect-provider"
                value={provider.id}
                onChange={(e) => {
                  // Each provider speaks its own permissions: start from the new one's first.
                  const next = providers.find((p) => p.id === e.target.value);
                  setProviderId(e.target.value);
                  setClaims(new Set(next ? [next.claims[0]!.name] : []));
                }}
              >
                {providers.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.label}
                  </option>
                ))}
              </Select>
            </Field>
          ) : (
            <p className="text-sm">
              <span className="block font-medium">Provider</span>
              <span className="mt-2 block">{provider.label}</span>
            </p>
          )}
          <Field id="connect-label" label="Label (optional)" hint="How you and your agents name this account, e.g. Work or Personal. Defaults to what the provider calls it (its email, or its workspace).">
            <Input id="connect-label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={60} aria-describedby="connect-label-hint" placeholder="e.g. Work" />
          </Field>
        </div>
        {provider ? (
          <>
            <fieldset>
              <legend className="text-sm font-medium">Permissions to ask for</legend>
              <div className="mt-2 space-y-2">
                {provider.claims.map((c) => (
                  <label key={c.name} className="flex items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      className="h-4 w-4"
                      checked={claims.has(c.name)}
                      onChange={(e) => {
                        const next = new Set(claims);
                        if (e.target.checked) next.add(c.name);
                        else next.delete(c.name);
                        setClaims(next);
                      }}
                    />
                    {c.label}
                  </label>
                ))}
              </div>
            </fieldset>
            <Button type="submit" disabled={starting || claims.size === 0}>
              {starting ? "Opening the provider…" : `Connect ${provider.label}`}
            </Button>
          </>
        ) : null}
      </form>
    </Card>
  );
}
