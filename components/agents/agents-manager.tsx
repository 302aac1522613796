"use client";
// The reader's delegated actors: what each may do (grants in plain words, scope, expiry), its tokens, its
// history; create actors, issue and revoke tokens, revoke grants and actors with a reason; requests waiting.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api } from "@/components/api-client";
import { GrantTimelineView } from "@/components/audit/grant-timeline";
import { PendingApprovals, type PendingApproval } from "@/components/approvals/pending-approvals";
import { PendingRequests } from "@/components/consent/pending-requests";
import { useOperationWords } from "@/components/realms/operation-words";
import { RiskBadge } from "@/components/realms/risk-badge";
import { realmTitle, wordsFor, type Words } from "@/components/realms/words";
import { Alert, LiveNotice, type Notice } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Field, Input, Select } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { Time } from "@/components/ui/time";
import type { listActors } from "@/lib/authz/actors";
import type { ConsentRequestView } from "@/lib/authz/consent";
import type { GrantView } from "@/lib/authz/grants";
import type { ClientConnection, PickerRealm } from "@/lib/views/agents";
import { ExpiryOptions, GrantForm } from "./grant-form";
import { actorKindWords, kindLabel } from "./kinds";
import { McpSetup, type McpSetupInfo } from "./mcp-setup";
import { RevokeWithReason } from "./revoke-with-reason";
import { WorkingSet } from "./working-set";

export type ActorItem = Awaited<ReturnType<typeof listActors>>[number];
type TokenItem = ActorItem["tokens"][number];
type IssuedToken = TokenItem & { token: string };

export type AgentsInitial = { actors: ActorItem[]; grants: GrantView[]; requests: ConsentRequestView[]; words: Words };

/** What the page knows besides the lists: OAuth clients' connections, names of scoped refs, what can be granted, MCP set-up, the grant a link points at. */
export type AgentsExtras = {
  /** Single calls waiting for the viewer's approval (the soonest to lapse first), and how many more wait. */
  approvals: PendingApproval[];
  moreApprovals: number;
  connections: Record<string, ClientConnection>;
  scopeNames: Record<string, string>;
  grantable: PickerRealm[];
  mcp: McpSetupInfo;
  focusGrant: string | null;
};

const message = (e: unknown) => (e instanceof Error ? e.message : "Something went wrong.");

export function AgentsManager({ initial, extras, me, canCreate }: { initial: AgentsInitial; extras: AgentsExtras; me: { id: string; name: string }; canCreate: boolean }) {
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
      {extras.approvals.length ? (
        <section aria-labelledby="approvals-heading">
          <h2 id="approvals-heading" className="mb-3 text-lg font-semibold">
            Calls waiting for your approval ({extras.approvals.length + extras.moreApprovals})
          </h2>
          <PendingApprovals approvals={extras.approvals} />
          {extras.moreApprovals ? <p className="mt-3 text-sm text-slate-700">{extras.moreApprovals} more wait; those soonest to lapse are shown first.</p> : null}
        </section>
      ) : null}

      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading" className="mb-3 text-lg font-semibold">
          Requests waiting for you{requests.data.consent_requests.length ? ` (${requests.data.consent_requests.length})` : ""}
        </h2>
        {requests.isError ? <Alert tone="error" title="Could not refresh requests">{requests.error.message}</Alert> : null}
        <PendingRequests requests={requests.data.consent_requests} words={words} />
      </section>

      {canCreate ? <CreateActor mcp={extras.mcp} /> : null}

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
                <ActorCard
                  actor={a}
                  grants={grants.data.grants.filter((g) => g.actor_id === a.id)}
                  words={words}
                  me={me}
                  extras={extras}
                  sameName={actors.data.actors.filter((x) => x.name === a.name).length > 1}
                  canGrant={canCreate}
                />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function CreateActor({ mcp }: { mcp: McpSetupInfo }) {
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
          <div className="mt-3">
            <McpSetup info={mcp} agentName={created.name} token={created.token} />
          </div>
          <p className="mt-2 text-sm text-slate-700">Next: grant “{created.name}” what it may do with “Grant access” on its card below.</p>
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

function scopeText(g: GrantView, words: Words, names: Record<string, string>) {
  if (g.resource_scope?.refs) {
    return (
      <>
        Only{" "}
        {g.resource_scope.refs.map((r, i) => (
          <span key={r}>
            {i ? ", " : ""}
            {names[r] ? <strong title={r}>“{names[r]}”</strong> : <code className="break-all">{r}</code>}
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

const connectionWords: Record<ClientConnection["tokens"], { label: string; tone: "green" | "red" | "amber" | "slate"; line: string }> = {
  live: { label: "Connected", tone: "green", line: "its tokens are live" },
  revoked: { label: "Tokens revoked", tone: "red", line: "every token it held was revoked: it must connect again" },
  expired: { label: "Tokens expired", tone: "amber", line: "its tokens ran out: it must connect again" },
  none: { label: "Not connected", tone: "slate", line: "it has not finished connecting" },
};

function shortClientId(id: string) {
  return id.length > 28 ? `${id.slice(0, 14)}…${id.slice(-8)}` : id;
}

function ActorCard({
  actor,
  grants,
  words,
  me,
  extras,
  sameName,
  canGrant,
}: {
  actor: ActorItem;
  grants: GrantView[];
  words: Words;
  me: { id: string; name: string };
  extras: AgentsExtras;
  sameName: boolean;
  canGrant: boolean;
}) {
  const qc = useQueryClient();
  const [issued, setIssued] = useState<string | null>(null);
  const [tokenExpiry, setTokenExpiry] = useState("90");
  const revoked = actor.revoked_at !== null;
  const conn = extras.connections[actor.id] ?? null;
  const isClient = actor.kind === "mcp_client";
  const holdsFocus = extras.focusGrant !== null && grants.some((g) => g.id === extras.focusGrant);
  const [open, setOpen] = useState(!isClient || holdsFocus);
  const [granting, setGranting] = useState(false);
  const [showMcp, setShowMcp] = useState(false);
  const refresh = () => Promise.all([qc.invalidateQueries({ queryKey: ["actors"] }), qc.invalidateQueries({ queryKey: ["grants"] })]);
  // What the last revoke did, said once the lists show it. The card outlives the revoked grant's, agent's or
  // token's own controls, so the confirmation lives here, and focus lands on it when the button is gone.
  const [notice, setNotice] = useState<Notice | null>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  const sayRevoked = (n: Notice) => {
    setNotice(n);
    requestAnimationFrame(() => noticeRef.current?.focus());
  };
  const revokeActor = useMutation({
    mutationFn: (reason: string) => api(`/api/v1/actors/${actor.id}/revoke`, { method: "POST", body: { reason } }),
    onSuccess: async () => {
      await refresh();
      sayRevoked({ tone: "success", title: `Revoked “${actor.name}”`, text: "Its tokens and grants stopped working; its history stays here." });
    },
  });
  const issue = useMutation({
    mutationFn: () => api<IssuedToken>(`/api/v1/actors/${actor.id}/tokens`, { method: "POST", body: { expires_in_days: tokenExpiry === "never" ? null : Number(tokenExpiry) } }),
    onSuccess: (t) => {
      setIssued(t.token);
      void refresh();
    },
  });
  const revokeToken = useMutation({
    mutationFn: (token: TokenItem) => api(`/api/v1/actors/${actor.id}/tokens/${token.id}`, { method: "DELETE" }),
    onSuccess: async (_r, token) => {
      await refresh();
      sayRevoked({ tone: "success", title: `Revoked “${actor.name}”'s token ${token.display_prefix}…`, text: "A call sent with it is refused from now on." });
    },
  });
  const live = grants.filter((g) => g.status === "live");
  const ended = grants.filter((g) => g.status !== "live");
  const liveTokens = actor.tokens.filter((t) => !t.revoked_at);
  const headingId = `actor-${actor.id}`;
  const liveOps = live.reduce((n, g) => n + g.operations.length + (g.all_actions ? 1 : 0), 0);
  const status = revoked ? { label: "Revoked", tone: "red" as const } : isClient && conn ? connectionWords[conn.tokens] : { label: "Active", tone: "green" as const };

  return (
    <article aria-labelledby={headingId} className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <h3 id={headingId} className="text-lg font-semibold">
              {actor.name}
            </h3>
            <Badge tone="violet" title={actorKindWords[actor.kind]?.explain}>
              {kindLabel(actor.kind)}
            </Badge>
            <Badge tone={status.tone}>{status.label}</Badge>
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
            {isClient ? ` · may use ${liveOps} operation${liveOps === 1 ? "" : "s"} in ${live.length} grant${live.length === 1 ? "" : "s"}` : null}
          </p>
          {isClient && conn ? (
            <p className="mt-1 text-xs text-slate-600" data-client-id={conn.client_id}>
              {!revoked ? <>Connection: {connectionWords[conn.tokens].line}. </> : null}
              {sameName ? <strong className="font-medium text-slate-800">Another client has this name: </strong> : null}
              client <code title={conn.client_id}>{shortClientId(conn.client_id)}</code>
              {conn.registered_at ? (
                <>
                  {" "}
                  · registered <Time iso={conn.registered_at} />
                </>
              ) : null}
              {conn.redirect_hosts.length ? <> · returns to {conn.redirect_hosts.join(", ")}</> : null}
            </p>
          ) : null}
          {revoked ? (
            <p className="mt-1 text-sm text-red-800">
              Revoked <Time iso={actor.revoked_at!} />
              {actor.revoke_reason ? `: “${actor.revoke_reason}”` : ""}
            </p>
          ) : null}
        </div>
        <div className="flex flex-wrap items-start gap-2">
          {isClient ? (
            <Button variant="secondary" aria-expanded={open} aria-controls={`${headingId}-details`} onClick={() => setOpen((o) => !o)} aria-label={`${open ? "Hide" : "Show"} details of ${actor.name}`}>
              {open ? "Hide details" : "Details"}
            </Button>
          ) : null}
          {!revoked ? (
            <RevokeWithReason what={actor.name} buttonLabel="Revoke agent" onRevoke={(r) => revokeActor.mutate(r)} pending={revokeActor.isPending} error={revokeActor.isError ? message(revokeActor.error) : null} />
          ) : null}
        </div>
      </div>
      <div className={notice ? "mt-3" : ""}>
        <LiveNotice ref={noticeRef} notice={notice} />
      </div>

      {open ? (
        <div id={`${headingId}-details`}>
          <h4 className="mt-5 font-medium">What it may do</h4>
          {live.length === 0 ? (
            <p className="mt-1 text-sm text-slate-600">
              {revoked ? "Nothing: it is revoked." : "Nothing yet. When it tries something, you will be asked here and on the consent screen."}
            </p>
          ) : (
            <ul className="mt-2 space-y-3">
              {live.map((g) => (
                <li key={g.id}>
                  <GrantItem grant={g} words={words} me={me} extras={extras} actorName={actor.name} canGrant={canGrant && !revoked} onRevoked={sayRevoked} />
                </li>
              ))}
            </ul>
          )}
          {ended.length ? (
            <details className="mt-3" open={holdsFocus && ended.some((g) => g.id === extras.focusGrant)}>
              <summary className="cursor-pointer text-sm font-medium text-slate-800">Ended grants ({ended.length})</summary>
              <ul className="mt-2 space-y-3">
                {ended.map((g) => (
                  <li key={g.id}>
                    <GrantItem grant={g} words={words} me={me} extras={extras} actorName={actor.name} canGrant={canGrant && !revoked} onRevoked={sayRevoked} />
                  </li>
                ))}
              </ul>
            </details>
          ) : null}

          {!revoked && canGrant ? (
            <div className="mt-4 flex flex-wrap gap-2">
              <Button variant="secondary" aria-expanded={granting} onClick={() => setGranting((g) => !g)} aria-label={`Grant ${actor.name} access`}>
                Grant access
              </Button>
              {!isClient ? (
                <Button variant="secondary" aria-expanded={showMcp} onClick={() => setShowMcp((m) => !m)} aria-label={`Connect ${actor.name} over MCP`}>
                  Connect over MCP
                </Button>
              ) : null}
            </div>
          ) : null}
          {granting ? (
            <div className="mt-3">
              <GrantForm actor={actor} realms={extras.grantable} onDone={() => setGranting(false)} />
            </div>
          ) : null}
          {showMcp ? (
            <div className="mt-3">
              <McpSetup info={extras.mcp} agentName={actor.name} token={issued} />
            </div>
          ) : null}

          {!revoked ? <WorkingSet actorId={actor.id} actorName={actor.name} /> : null}

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
              <Button variant="danger" onClick={() => revokeToken.mutate(t)} disabled={revokeToken.isPending} aria-label={`Revoke token ${t.display_prefix} of ${actor.name}`}>
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
        </div>
      ) : null}
    </article>
  );
}

/** A grant with many operations shows its counts and opens its list on request. */
const OPEN_OPERATIONS_MAX = 12;

function GrantItem({
  grant,
  words,
  me,
  extras,
  actorName,
  canGrant,
  onRevoked,
}: {
  grant: GrantView;
  words: Words;
  me: { id: string; name: string };
  extras: AgentsExtras;
  actorName: string;
  canGrant: boolean;
  /** Said by the agent's card: this item moves to "Ended grants" once the list refreshes. */
  onRevoked: (n: Notice) => void;
}) {
  const qc = useQueryClient();
  const [showHistory, setShowHistory] = useState(false);
  const ops = [...grant.operations, ...(grant.all_actions ? ["object.action.*"] : [])];
  const [showOps, setShowOps] = useState(ops.length <= OPEN_OPERATIONS_MAX);
  const [expires, setExpires] = useState<"1h" | "1d" | "30d" | "never">("30d");
  const focused = extras.focusGrant === grant.id;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focused) ref.current?.scrollIntoView({ block: "center" });
  }, [focused]);
  const revoke = useMutation({
    mutationFn: (reason: string) => api<GrantView>(`/api/v1/grants/${grant.id}`, { method: "DELETE", body: { reason } }),
    onSuccess: async () => {
      await Promise.all([qc.invalidateQueries({ queryKey: ["grants"] }), qc.invalidateQueries({ queryKey: ["timeline", grant.id] })]);
      onRevoked({ tone: "success", title: `Revoked “${actorName}”'s grant for ${realmTitle(words, grant.namespace)}`, text: `It can no longer use those operations; the grant is under “Ended grants”${canGrant ? ", where you can grant it again" : ""}.` });
    },
  });
  const regrant = useMutation({
    mutationFn: () =>
      api<GrantView>("/api/v1/grants", {
        method: "POST",
        body: { actor_id: grant.actor_id, namespace: grant.namespace, operations: grant.operations, all_actions: grant.all_actions, resource_scope: grant.resource_scope, expires },
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["grants"] }),
  });
  const title = realmTitle(words, grant.namespace);
  const risks = { read: 0, write: 0, destructive: 0 };
  for (const op of ops) {
    const r = wordsFor(words, grant.namespace, op).risk;
    if (r) risks[r]++;
  }
  const by = grant.revoked_by === me.id ? "you" : grant.revoked_by === grant.actor_id ? actorName : grant.revoked_by;
  return (
    <div
      ref={ref}
      id={`grant-${grant.id}`}
      tabIndex={focused ? -1 : undefined}
      className={`rounded-md border p-3 ${focused ? "border-sky-600 ring-2 ring-sky-600" : "border-slate-200"}`}
      data-grant-id={grant.id}
    >
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
          {ops.length > OPEN_OPERATIONS_MAX ? (
            <p className="mt-1 text-sm text-slate-800">
              {ops.length} operations: {[risks.read ? `${risks.read} read` : null, risks.write ? `${risks.write} change data` : null, risks.destructive ? `${risks.destructive} delete data` : null].filter(Boolean).join(", ")}{" "}
              <Button variant="ghost" aria-expanded={showOps} onClick={() => setShowOps((s) => !s)} aria-label={`${showOps ? "Hide" : "Show"} the operations of the ${title} grant`}>
                {showOps ? "Hide" : "Show"}
              </Button>
            </p>
          ) : null}
          {showOps ? (
            <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-800">
              {ops.map((op) => {
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
          ) : null}
          <p className="mt-1 text-xs text-slate-600">
            {scopeText(grant, words, extras.scopeNames)} · <ExpiryText g={grant} />
            {grant.status === "revoked" && by ? <> by {by}</> : null}
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
      {grant.status !== "live" && canGrant ? (
        <div className="mt-3 flex flex-col gap-2 border-t border-slate-100 pt-3 sm:flex-row sm:items-end">
          <Field id={`${grant.id}-again-exp`} label="New access ends after" className="sm:w-48">
            <Select id={`${grant.id}-again-exp`} value={expires} onChange={(e) => setExpires(e.target.value as typeof expires)}>
              <ExpiryOptions />
            </Select>
          </Field>
          <Button onClick={() => regrant.mutate()} disabled={regrant.isPending || regrant.isSuccess} aria-label={`Grant the ${title} grant again to ${actorName}`}>
            {regrant.isPending ? "Granting…" : "Grant it again"}
          </Button>
          <span role="status" className="text-sm text-slate-700">
            {regrant.isPending ? "Saving…" : regrant.isSuccess ? `Saved: ${actorName} has the same operations and scope again.` : ""}
          </span>
        </div>
      ) : null}
      {regrant.isError ? (
        <Alert tone="error" title="Not granted again">
          {message(regrant.error)}{" "}
          <Button variant="secondary" onClick={() => regrant.mutate()}>
            Retry
          </Button>
        </Alert>
      ) : null}
      {showHistory ? (
        <div className="mt-3 border-t border-slate-100 pt-3">
          <GrantTimelineView grantId={grant.id} words={words} />
        </div>
      ) : null}
    </div>
  );
}
