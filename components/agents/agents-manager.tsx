"use client";
// The reader's delegated actors: what each may do (grants in plain words, scope, expiry), its tokens, its
// history; create actors, issue and revoke tokens, revoke grants and actors with a reason; requests waiting.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/components/api-client";
import { GrantTimelineView } from "@/components/audit/grant-timeline";
import { PendingRequests } from "@/components/consent/pending-requests";
import { useOperationWords } from "@/components/realms/operation-words";
import { RiskBadge } from "@/components/realms/risk-badge";
import { realmTitle, wordsFor, type Words } from "@/components/realms/words";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Field, Input, Select } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { Time } from "@/components/ui/time";
import type { listActors } from "@/lib/authz/actors";
import type { ConsentRequestView } from "@/lib/authz/consent";
import type { GrantView } from "@/lib/authz/grants";
import { actorKindWords, kindLabel } from "./kinds";
import { RevokeWithReason } from "./revoke-with-reason";

export type ActorItem = Awaited<ReturnType<typeof listActors>>[number];
type TokenItem = ActorItem["tokens"][number];
type IssuedToken = TokenItem & { token: string };

export type AgentsInitial = { actors: ActorItem[]; grants: GrantView[]; requests: ConsentRequestView[]; words: Words };

const message = (e: unknown) => (e instanceof Error ? e.message : "Something went wrong.");

export function AgentsManager({ initial, me, canCreate }: { initial: AgentsInitial; me: { id: string; name: string }; canCreate: boolean }) {
  const actors = useQuery({ queryKey: ["actors"], queryFn: () => api<{ actors: ActorItem[] }>("/api/v1/actors"), initialData: { actors: initial.actors } });
  const grants = useQuery({ queryKey: ["grants"], queryFn: () => api<{ grants: GrantView[] }>("/api/v1/grants"), initialData: { grants: initial.grants } });
  const requests = useQuery({
    queryKey: ["consent-requests", "pending"],
    queryFn: () => api<{ consent_requests: ConsentRequestView[] }>("/api/v1/consent-requests?status=pending"),
    initialData: { consent_requests: initial.requests },
  });
  const namespaces = [...grants.data.grants.map((g) => g.namespace), ...requests.data.consent_requests.map((r) => r.namespace)];
  const words = useOperationWords(initial.words, namespaces);

  return (
    <div className="space-y-8">
      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading" className="mb-3 text-lg font-semibold">
          Requests waiting for you{requests.data.consent_requests.length ? ` (${requests.data.consent_requests.length})` : ""}
        </h2>
        {requests.isError ? <Alert tone="error" title="Could not refresh requests">{requests.error.message}</Alert> : null}
        <PendingRequests requests={requests.data.consent_requests} words={words} />
      </section>

      {canCreate ? <CreateActor /> : null}

      <section aria-labelledby="actors-heading">
        <h2 id="actors-heading" className="mb-3 text-lg font-semibold">
          Your agents
        </h2>
        {actors.isError ? <Alert tone="error" title="Could not refresh your agents">{actors.error.message}</Alert> : null}
        {grants.isError ? <Alert tone="error" title="Could not refresh grants">{grants.error.message}</Alert> : null}
        {actors.isFetching && actors.data.actors.length === 0 ? <Spinner label="Loading agents…" /> : null}
        {actors.data.actors.length === 0 ? (
          <EmptyState title="No agents yet">
            {canCreate
              ? "Create one above: it gets a token to call Realmgate's tools, and can do only what you grant it."
              : "Agents you create appear here with what they may do."}
          </EmptyState>
        ) : (
          <ul className="space-y-4">
            {actors.data.actors.map((a) => (
              <li key={a.id}>
                <ActorCard actor={a} grants={grants.data.grants.filter((g) => g.actor_id === a.id)} words={words} me={me} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function CreateActor() {
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const [kind, setKind] = useState("hosted_agent");
  const [expiry, setExpiry] = useState("90");
  const [created, setCreated] = useState<{ name: string; token: string | null } | null>(null);
  const create = useMutation({
    mutationFn: () =>
      api<{ actor: ActorItem; token: IssuedToken | null }>("/api/v1/actors", {
        method: "POST",
        body: { name: name.trim(), kind, issue_token: true, token_expires_in_days: expiry === "never" ? null : Number(expiry) },
      }),
    onSuccess: (r) => {
      setCreated({ name: r.actor.name, token: r.token?.token ?? null });
      setName("");
      void qc.invalidateQueries({ queryKey: ["actors"] });
    },
  });
  return (
    <section aria-labelledby="create-heading" className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="create-heading" className="text-lg font-semibold">
        Create an agent
      </h2>
      <p className="mt-1 text-sm text-slate-600">An agent acts for you, never as you: it can do only what you grant it, and you can cut it off at any time.</p>
      <form
        className="mt-4 grid gap-4 md:grid-cols-[1fr_14rem_12rem_auto] md:items-start"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) create.mutate();
        }}
      >
        <Field id="actor-name" label="Name">
          <Input id="actor-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={80} placeholder="e.g. Research assistant" />
        </Field>
        <Field id="actor-kind" label="Kind" hint={actorKindWords[kind]?.explain}>
          <Select id="actor-kind" value={kind} onChange={(e) => setKind(e.target.value)} aria-describedby="actor-kind-hint">
            {Object.entries(actorKindWords).map(([k, w]) => (
              <option key={k} value={k}>
                {w.label}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="actor-expiry" label="Token expires after">
          <Select id="actor-expiry" value={expiry} onChange={(e) => setExpiry(e.target.value)}>
            <option value="30">30 days</option>
            <option value="90">90 days</option>
            <option value="365">1 year</option>
            <option value="never">Never</option>
          </Select>
        </Field>
        <Button type="submit" disabled={create.isPending} className="md:mt-6">
          {create.isPending ? "Creating…" : "Create agent"}
        </Button>
      </form>
      {create.isError ? (
        <div className="mt-3">
          <Alert tone="error" title="Could not create the agent">
            {message(create.error)}
          </Alert>
        </div>
      ) : null}
      {created ? (
        <div className="mt-3">
          <NewToken owner={created.name} token={created.token} />
        </div>
      ) : null}
    </section>
  );
}

function NewToken({ owner, token }: { owner: string; token: string | null }) {
  const [copied, setCopied] = useState(false);
  if (!token) return <Alert tone="success" title={`“${owner}” created`}>Issue it a token when it needs one.</Alert>;
  return (
    <Alert tone="success" title={`Token for “${owner}” — copy it now, it will not be shown again`}>
      <code className="block break-all rounded bg-white/70 p-2 font-mono text-xs" aria-label={`New token for ${owner}`}>
        {token}
      </code>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <Button
          variant="secondary"
          onClick={() => {
            void navigator.clipboard?.writeText(token).then(() => setCopied(true));
          }}
        >
          {copied ? "Copied" : "Copy token"}
        </Button>
        <span className="text-xs">
          Send it as <code>Authorization: Bearer …</code> to <code>/api/v1/tools/&lt;tool&gt;</code>.
        </span>
      </div>
    </Alert>
  );
}

function scopeText(g: GrantView, words: Words) {
  if (g.resource_scope?.refs) {
    return (
      <>
        Only{" "}
        {g.resource_scope.refs.map((r, i) => (
          <span key={r}>
            {i ? ", " : ""}
            <code className="break-all">{r}</code>
          </span>
        ))}{" "}
        and what {g.resource_scope.refs.length === 1 ? "it contains" : "they contain"}
      </>
    );
  }
  if (g.resource_scope?.account_id) return <>Only account <code>{g.resource_scope.account_id}</code></>;
  return <>Everything you can reach in {realmTitle(words, g.namespace)}</>;
}

function ExpiryText({ g }: { g: GrantView }) {
  if (g.status === "revoked" && g.revoked_at) return <>Revoked <Time iso={g.revoked_at} /></>;
  if (!g.expires_at) return <>No expiry</>;
  return g.status === "expired" ? <>Expired <Time iso={g.expires_at} /></> : <>Expires <Time iso={g.expires_at} mode="both" /></>;
}

function ActorCard({ actor, grants, words, me }: { actor: ActorItem; grants: GrantView[]; words: Words; me: { id: string; name: string } }) {
  const qc = useQueryClient();
  const [issued, setIssued] = useState<string | null>(null);
  const [tokenExpiry, setTokenExpiry] = useState("90");
  const revoked = actor.revoked_at !== null;
  const refresh = () => Promise.all([qc.invalidateQueries({ queryKey: ["actors"] }), qc.invalidateQueries({ queryKey: ["grants"] })]);
  const revokeActor = useMutation({
    mutationFn: (reason: string) => api(`/api/v1/actors/${actor.id}/revoke`, { method: "POST", body: { reason } }),
    onSuccess: refresh,
  });
  const issue = useMutation({
    mutationFn: () => api<IssuedToken>(`/api/v1/actors/${actor.id}/tokens`, { method: "POST", body: { expires_in_days: tokenExpiry === "never" ? null : Number(tokenExpiry) } }),
    onSuccess: (t) => {
      setIssued(t.token);
      void refresh();
    },
  });
  const revokeToken = useMutation({
    mutationFn: (tokenId: string) => api(`/api/v1/actors/${actor.id}/tokens/${tokenId}`, { method: "DELETE" }),
    onSuccess: refresh,
  });
  const live = grants.filter((g) => g.status === "live");
  const ended = grants.filter((g) => g.status !== "live");
  const liveTokens = actor.tokens.filter((t) => !t.revoked_at);
  const headingId = `actor-${actor.id}`;

  return (
    <article aria-labelledby={headingId} className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <div className="flex flex-wrap items-center gap-2">
            <h3 id={headingId} className="text-lg font-semibold">
              {actor.name}
            </h3>
            <Badge tone="violet" title={actorKindWords[actor.kind]?.explain}>
              {kindLabel(actor.kind)}
            </Badge>
            {revoked ? <Badge tone="red">Revoked</Badge> : <Badge tone="green">Active</Badge>}
          </div>
          <p className="mt-1 text-sm text-slate-600">
            Acts for {actor.grantor_id === me.id ? `you (${me.name})` : actor.grantor_id} · created <Time iso={actor.created_at} /> ·{" "}
            {actor.last_used_at ? (
              <>
                last used <Time iso={actor.last_used_at} mode="relative" />
              </>
            ) : (
              "never used"
            )}
          </p>
          {revoked ? (
            <p className="mt-1 text-sm text-red-800">
              Revoked <Time iso={actor.revoked_at!} />
              {actor.revoke_reason ? `: “${actor.revoke_reason}”` : ""}
            </p>
          ) : null}
        </div>
        {!revoked ? (
          <RevokeWithReason what={actor.name} buttonLabel="Revoke agent" onRevoke={(r) => revokeActor.mutate(r)} pending={revokeActor.isPending} error={revokeActor.isError ? message(revokeActor.error) : null} />
        ) : null}
      </div>

      <h4 className="mt-5 font-medium">What it may do</h4>
      {live.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600">
          {revoked ? "Nothing: it is revoked." : "Nothing yet. When it tries something, you will be asked here and on the consent screen."}
        </p>
      ) : (
        <ul className="mt-2 space-y-3">
          {live.map((g) => (
            <li key={g.id}>
              <GrantItem grant={g} words={words} />
            </li>
          ))}
        </ul>
      )}
      {ended.length ? (
        <details className="mt-3">
          <summary className="cursor-pointer text-sm font-medium text-slate-800">Ended grants ({ended.length})</summary>
          <ul className="mt-2 space-y-3">
            {ended.map((g) => (
              <li key={g.id}>
                <GrantItem grant={g} words={words} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}

      <h4 className="mt-5 font-medium">Tokens</h4>
      {actor.tokens.length === 0 ? <p className="mt-1 text-sm text-slate-600">No tokens.</p> : null}
      <ul className="mt-2 divide-y divide-slate-100">
        {actor.tokens.map((t) => (
          <li key={t.id} className="flex flex-col gap-2 py-2 text-sm sm:flex-row sm:items-center sm:justify-between">
            <span>
              <code>{t.display_prefix}…</code> · created <Time iso={t.created_at} /> ·{" "}
              {t.revoked_at ? (
                <span className="text-red-800">revoked</span>
              ) : t.expires_at ? (
                <>
                  expires <Time iso={t.expires_at} />
                </>
              ) : (
                "no expiry"
              )}
              {t.last_used_at ? (
                <>
                  {" "}
                  · last used <Time iso={t.last_used_at} mode="relative" />
                </>
              ) : null}
            </span>
            {!t.revoked_at && !revoked ? (
              <Button variant="danger" onClick={() => revokeToken.mutate(t.id)} disabled={revokeToken.isPending} aria-label={`Revoke token ${t.display_prefix} of ${actor.name}`}>
                Revoke token
              </Button>
            ) : null}
          </li>
        ))}
      </ul>
      {revokeToken.isError ? <Alert tone="error" title="Token not revoked">{message(revokeToken.error)}</Alert> : null}
      {!revoked ? (
        <form
          className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            issue.mutate();
          }}
        >
          <Field id={`${actor.id}-token-expiry`} label="New token expires after" className="sm:w-48">
            <Select id={`${actor.id}-token-expiry`} value={tokenExpiry} onChange={(e) => setTokenExpiry(e.target.value)}>
              <option value="1">1 day</option>
              <option value="30">30 days</option>
              <option value="90">90 days</option>
              <option value="never">Never</option>
            </Select>
          </Field>
          <Button type="submit" variant="secondary" disabled={issue.isPending} aria-label={`Issue a token for ${actor.name}`}>
            {issue.isPending ? "Issuing…" : "Issue a token"}
          </Button>
          {liveTokens.length ? <span className="text-xs text-slate-600">{liveTokens.length} live already; revoke old ones you no longer use.</span> : null}
        </form>
      ) : null}
      {issue.isError ? <Alert tone="error" title="No token issued">{message(issue.error)}</Alert> : null}
      {issued ? (
        <div className="mt-3">
          <NewToken owner={actor.name} token={issued} />
        </div>
      ) : null}
    </article>
  );
}

function GrantItem({ grant, words }: { grant: GrantView; words: Words }) {
  const qc = useQueryClient();
  const [showHistory, setShowHistory] = useState(false);
  const revoke = useMutation({
    mutationFn: (reason: string) => api<GrantView>(`/api/v1/grants/${grant.id}`, { method: "DELETE", body: { reason } }),
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: ["grants"] }), qc.invalidateQueries({ queryKey: ["timeline", grant.id] })]),
  });
  const title = realmTitle(words, grant.namespace);
  return (
    <div className="rounded-md border border-slate-200 p-3" data-grant-id={grant.id}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <p className="font-medium text-slate-900">
            {title}
            {grant.status !== "live" ? (
              <>
                {" "}
                <Badge tone={grant.status === "revoked" ? "red" : "amber"}>{grant.status === "revoked" ? "Revoked" : "Expired"}</Badge>
              </>
            ) : null}
          </p>
          <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-800">
            {[...grant.operations, ...(grant.all_actions ? ["object.action.*"] : [])].map((op) => {
              const w = wordsFor(words, grant.namespace, op);
              const suspended = grant.suspended.find((x) => x.operation === op);
              return (
                <li key={op} className="flex items-center gap-1">
                  {w.label} {w.risk ? <RiskBadge risk={w.risk} /> : null}
                  {suspended ? <Badge tone="amber">Suspended: {suspended.change}</Badge> : null}
                </li>
              );
            })}
          </ul>
          <p className="mt-1 text-xs text-slate-600">
            {scopeText(grant, words)} · <ExpiryText g={grant} />
            {grant.revoke_reason ? <> · reason: “{grant.revoke_reason}”</> : null}
          </p>
        </div>
        <div className="flex flex-wrap items-start gap-2">
          <Button variant="ghost" aria-expanded={showHistory} onClick={() => setShowHistory((s) => !s)} aria-label={`${showHistory ? "Hide" : "Show"} history of the ${title} grant`}>
            {showHistory ? "Hide history" : "History"}
          </Button>
          {grant.status === "live" ? (
            <RevokeWithReason what={`the ${title} grant`} onRevoke={(r) => revoke.mutate(r)} pending={revoke.isPending} error={revoke.isError ? message(revoke.error) : null} />
          ) : null}
        </div>
      </div>
      {showHistory ? (
        <div className="mt-3 border-t border-slate-100 pt-3">
          <GrantTimelineView grantId={grant.id} words={words} />
        </div>
      ) : null}
    </div>
  );
}
