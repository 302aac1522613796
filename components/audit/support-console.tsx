"use client";
// The support console: search the audit trail by person, agent, realm, operation, outcome and time; open a
// grant's or a single-call approval's timeline; review revocations with their reason and who; see whether the hash chain is intact;
// export what the search found as CSV. Read-only. Every view a support person opens is audited by the API.
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api } from "@/components/api-client";
import { kindLabel } from "@/components/agents/kinds";
import { realmTitle, type Words } from "@/components/realms/words";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Field, Input, Select } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { Time } from "@/components/ui/time";
import type { AuditEventView } from "@/lib/audit/query";
import type { Directory } from "@/lib/audit/directory";
import type { VerifyResult } from "@/lib/audit/verify";
import { queryString, sameFilters, type Filters } from "./filters";
import { datesReversed, mergeAuditNames, noAuditNames, type AuditNames } from "./names";
import { ApprovalTimelineView, GrantTimelineView, TimelineTitle } from "./grant-timeline";
import { eventSummary, reasonText, type Names } from "./event-words";
import { eventWords, outcomeWords } from "./words";

/** A page of the trail; `names` (accounts, providers, permissions) comes with it from lib/views/audit.ts. */
export type AuditPage = { events: AuditEventView[]; next_before: number | null; names?: AuditNames };
export type Verification = VerifyResult & { verified_at?: string };

const PAGE = 50;


/** `datetime-local` values have no zone: they mean the reader's local time. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : "");
const toLocal = (iso: string | undefined) => {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

type Props = {
  initialFilters: Filters;
  /** The timeline open on arrival: a grant's (`grt_…`) or an approval's (`apr_…`). */
  initialGrant: string | null;
  initialEvents: AuditPage;
  initialRevocations: AuditEventView[];
  verification: Verification;
  directory: Directory;
  words: Words;
  filterError: string | null;
};

export function SupportConsole(props: Props) {
  const { directory, words } = props;
  const [filters, setFilters] = useState<Filters>(props.initialFilters);
  const [grant, setGrant] = useState<string | null>(props.initialGrant);
  const userName = new Map(directory.users.map((u) => [u.id, u.name]));
  const actorName = new Map(directory.actors.map((a) => [a.id, a.name]));
  const names = { user: (id: string | null) => (id ? (userName.get(id) ?? id) : null), actor: (id: string | null) => (id ? (actorName.get(id) ?? id) : null) };

  // The URL mirrors the search, so a support person can share or reload exactly what they are looking at.
  useEffect(() => {
    const qs = queryString(filters, grant ? { [isApproval(grant) ? "approval" : "grant"]: grant } : {});
    window.history.replaceState(null, "", qs ? `/support?${qs}` : "/support");
  }, [filters, grant]);

  const openTimeline = (id: string) => {
    setGrant(id);
    requestAnimationFrame(() => document.getElementById("timeline-heading")?.focus());
  };

  return (
    <div className="space-y-8">
      <Verification initial={props.verification} />
      <Search key={queryString(filters)} filters={filters} onSearch={setFilters} directory={directory} words={words} />
      {props.filterError ? <Alert tone="warning" title="Some filters in the address were not understood">{props.filterError}</Alert> : null}
      {grant ? (
        <section aria-labelledby="timeline-heading" className="rounded-lg border border-brand-600 bg-white p-5 shadow-sm">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <div className="min-w-0">
              <h2 id="timeline-heading" tabIndex={-1} className="text-lg font-semibold" aria-describedby="timeline-id">
                <TimelineTitle id={grant} words={words} />
              </h2>
              <p id="timeline-id" className="break-all text-xs text-slate-600">
                {isApproval(grant) ? "Approval" : "Grant"} <code>{grant}</code>
              </p>
            </div>
            <Button variant="ghost" onClick={() => setGrant(null)}>
              Close timeline
            </Button>
          </div>
          <div className="mt-3">
            {isApproval(grant) ? <ApprovalTimelineView approvalId={grant} words={words} /> : <GrantTimelineView grantId={grant} words={words} />}
          </div>
        </section>
      ) : null}
      <Revocations initial={props.initialRevocations} names={names} words={words} onTimeline={openTimeline} />
      <Results filters={filters} initial={sameFilters(filters, props.initialFilters) ? props.initialEvents : undefined} names={names} words={words} onTimeline={openTimeline} />
    </div>
  );
}

function Verification({ initial }: { initial: Verification }) {
  const [result, setResult] = useState<Verification>(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <section aria-labelledby="chain-heading" className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div>
          <h2 id="chain-heading" className="text-lg font-semibold">
            Audit chain
          </h2>
          <p className="mt-1 text-sm text-slate-800" role="status">
            {result.ok ? (
              <>
                <Badge tone="green">Intact</Badge> All {result.checked} events link up
                {result.lanes.length > 1 ? <> in {result.lanes.length} lanes</> : null}; none was edited, removed, rewritten or forged
                {result.checkpoint ? (
                  <>
                    {" "}
                    up to the signed checkpoints (the latest <Time iso={result.checkpoint.at} mode="relative" />)
                    {result.unsealed ? <> ({result.unsealed} newer events are not sealed by a checkpoint yet)</> : null}
                  </>
                ) : null}
                .
              </>
            ) : (
              <>
                <Badge tone="red">Broken</Badge> {result.message} The chain breaks at event {eventNumber(result.first_broken.lane, result.first_broken.seq)} ({result.first_broken.finding.replaceAll("_", " ")});{" "}
                {result.checked} other events are intact.
              </>
            )}{" "}
            {result.verified_at ? (
              <span className="text-slate-600">
                Checked <Time iso={result.verified_at} mode="relative" />.
              </span>
            ) : null}
          </p>
        </div>
        <Button
          variant="secondary"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            setError(null);
            try {
              const r = await api<Verification>("/api/v1/audit/verify");
              setResult({ ...r, verified_at: r.verified_at ?? new Date().toISOString() });
            } catch (e) {
              setError(e instanceof Error ? e.message : "Verification failed.");
            } finally {
              setBusy(false);
            }
          }}
        >
          {busy ? "Checking…" : "Verify again"}
        </Button>
      </div>
      {error ? <Alert tone="error" title="Could not verify">{error}</Alert> : null}
    </section>
  );
}

function Search({ filters, onSearch, directory, words }: { filters: Filters; onSearch: (f: Filters) => void; directory: Directory; words: Words }) {
  // Keyed by the applied filters (below), so the draft starts afresh whenever a search is applied or cleared.
  const [draft, setDraft] = useState<Filters>(filters);
  // Checked before searching: a "From" after "To" would find nothing and read as "no events".
  const [rangeError, setRangeError] = useState<string | null>(null);
  const reversed = datesReversed(draft);
  const rangeInvalid = rangeError !== null && reversed;
  const set = (k: keyof Filters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  const exportHref = `/api/v1/audit/export${queryString(filters) ? `?${queryString(filters)}` : ""}`;
  return (
    <section aria-labelledby="search-heading" className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="search-heading" className="text-lg font-semibold">
        Search the audit trail
      </h2>
      <form
        role="search"
        aria-labelledby="search-heading"
        className="mt-3 grid gap-4 sm:grid-cols-2 lg:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          if (reversed) {
            setRangeError("“From” is later than “To”: the dates are the wrong way round. Swap them, or clear one.");
            requestAnimationFrame(() => document.getElementById("f-from")?.focus());
            return;
          }
          setRangeError(null);
          onSearch(Object.fromEntries(Object.entries(draft).filter(([, v]) => v)) as Filters);
        }}
      >
        <Field id="f-user" label="Person" hint="Their own actions and those of agents acting for them.">
          <Select id="f-user" value={draft.user_id ?? ""} onChange={set("user_id")} aria-describedby="f-user-hint">
            <option value="">Anyone</option>
            {directory.users.map((u) => (
              <option key={u.id} value={u.id}>
                {u.name} ({u.email})
              </option>
            ))}
          </Select>
        </Field>
        <Field id="f-actor" label="Agent">
          <Select id="f-actor" value={draft.actor_id ?? ""} onChange={set("actor_id")}>
            <option value="">Any agent</option>
            {directory.actors.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({kindLabel(a.kind)}{a.revoked ? ", revoked" : ""})
              </option>
            ))}
          </Select>
        </Field>
        <Field id="f-realm" label="Realm">
          <Select id="f-realm" value={draft.namespace ?? ""} onChange={set("namespace")}>
            <option value="">Any realm</option>
            {Object.entries(words).map(([ns, w]) => (
              <option key={ns} value={ns}>
                {w.title}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="f-operation" label="Operation" hint="Exact key, e.g. object.list or object.action.send.">
          <Input id="f-operation" value={draft.operation ?? ""} onChange={set("operation")} list="f-operation-keys" aria-describedby="f-operation-hint" autoComplete="off" />
          <datalist id="f-operation-keys">
            {[...new Set(Object.values(words).flatMap((w) => Object.keys(w.operations)))].slice(0, 500).map((k) => (
              <option key={k} value={k} />
            ))}
          </datalist>
        </Field>
        <Field id="f-outcome" label="Outcome">
          <Select id="f-outcome" value={draft.outcome ?? ""} onChange={set("outcome")}>
            <option value="">Any outcome</option>
            {Object.entries(outcomeWords).map(([k, w]) => (
              <option key={k} value={k}>
                {w.label}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="f-event" label="What happened">
          <Select id="f-event" value={draft.event ?? ""} onChange={set("event")}>
            <option value="">Anything</option>
            {Object.entries(eventWords).map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="f-from" label="From">
          <Input
            id="f-from"
            type="datetime-local"
            value={toLocal(draft.from)}
            onChange={(e) => setDraft((d) => ({ ...d, from: toIso(e.target.value) }))}
            aria-invalid={rangeInvalid || undefined}
            aria-describedby={rangeInvalid ? "f-range-error" : undefined}
          />
        </Field>
        <Field id="f-to" label="To">
          <Input
            id="f-to"
            type="datetime-local"
            value={toLocal(draft.to)}
            onChange={(e) => setDraft((d) => ({ ...d, to: toIso(e.target.value) }))}
            aria-invalid={rangeInvalid || undefined}
            aria-describedby={rangeInvalid ? "f-range-error" : undefined}
          />
        </Field>
        {rangeInvalid ? (
          <p id="f-range-error" role="alert" className="text-sm font-medium text-red-700 sm:col-span-2 lg:col-span-4">
            {rangeError}
          </p>
        ) : null}
        <div className="flex flex-wrap gap-2 sm:col-span-2 lg:col-span-4">
          <Button type="submit">Search</Button>
          <Button
            type="button"
            variant="ghost"
            onClick={() => {
              setDraft({});
              setRangeError(null);
              onSearch({});
            }}
          >
            Clear filters
          </Button>
          <a
            href={exportHref}
            download
            className="inline-flex min-h-10 items-center justify-center rounded-md bg-white px-4 py-2 text-sm font-medium text-slate-900 ring-1 ring-slate-300 hover:bg-slate-100"
          >
            Export these results as CSV
          </a>
        </div>
      </form>
    </section>
  );
}

/** Who did what, in a sentence: see ./event-words.ts. */
const isApproval = (id: string) => id.startsWith("apr_");
/** The single-call approval an event is about: its subject, or the one its details name. */
const approvalOf = (e: AuditEventView) => (e.subject_id?.startsWith("apr_") ? e.subject_id : typeof e.details.approval_id === "string" ? e.details.approval_id : null);
/** An event's place in its chain: "#12" in lane 0, "#12 (lane 3)" in another, as lib/audit/chain.ts names it. */
const eventNumber = (lane: number, seq: number) => (lane ? `#${seq} (lane ${lane})` : `#${seq}`);

const grantOf = (e: AuditEventView) => (e.subject_id?.startsWith("grt_") ? e.subject_id : typeof e.details.grant_id === "string" ? e.details.grant_id : null);

function EventRow({ e, names, words, onTimeline }: { e: AuditEventView; names: Names; words: Words; onTimeline: (id: string) => void }) {
  const outcome = outcomeWords[e.outcome] ?? { label: e.outcome, tone: "slate" as const };
  const g = grantOf(e);
  const ap = g ? null : approvalOf(e);
  const summary = eventSummary(e, words, names);
  const reason = reasonText(e.reason);
  return (
    <li className="grid gap-1 px-4 py-3 text-sm md:grid-cols-[11rem_1fr_auto] md:gap-4">
      <div className="text-slate-600">
        <Time iso={e.at} />
        <span className="block text-xs">{eventNumber(e.lane, e.seq)}</span>
      </div>
      <div className="min-w-0">
        <p className="flex flex-wrap items-center gap-2">
          <span className="font-medium text-slate-900">{summary.label}</span>
          <Badge tone={outcome.tone}>{outcome.label}</Badge>
          {e.gate ? <span className="text-xs text-slate-600">gate {e.gate}</span> : null}
        </p>
        <p className="text-slate-800">{summary.sentence}.</p>
        {summary.details.length ? (
          <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-slate-800">
            {summary.details.map((d) => (
              <div key={d.label} className="contents">
                <dt className="text-slate-600">{d.label}</dt>
                <dd className="min-w-0 break-words">{d.value}</dd>
              </div>
            ))}
          </dl>
        ) : null}
        {reason ? (
          <p className="text-slate-800">
            Reason: {reason.code ? reason.text : <>“{reason.text}”</>}
            {reason.code ? <span className="text-xs text-slate-600"> ({reason.code})</span> : null}
          </p>
        ) : null}
        {e.ref ? <p className="break-all text-xs text-slate-600">On {e.ref}</p> : null}
      </div>
      <div className="md:text-right">
        {g ? (
          <Button variant="secondary" className="min-h-9 px-3 py-1" onClick={() => onTimeline(g)} aria-label={`Grant timeline for ${g} (event #${e.seq})`}>
            Grant timeline
          </Button>
        ) : ap ? (
          <Button variant="secondary" className="min-h-9 px-3 py-1" onClick={() => onTimeline(ap)} aria-label={`Approval timeline for ${ap} (event #${e.seq})`}>
            Approval timeline
          </Button>
        ) : null}
      </div>
    </li>
  );
}

function Results({ filters, initial, names, words, onTimeline }: { filters: Filters; initial: AuditPage | undefined; names: Names; words: Words; onTimeline: (id: string) => void }) {
  const q = useInfiniteQuery({
    queryKey: ["audit", filters],
    queryFn: ({ pageParam }) => api<AuditPage>(`/api/v1/audit?${queryString(filters, { limit: String(PAGE), ...(pageParam ? { before: String(pageParam) } : {}) })}`),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next_before ?? undefined,
    initialData: initial ? { pages: [initial], pageParams: [0] } : undefined,
  });
  const events = q.data?.pages.flatMap((p) => p.events) ?? [];
  // The accounts each page named, and the providers' and permissions' labels, on top of the directory's names.
  const ids = (q.data?.pages ?? []).reduce((acc, p) => mergeAuditNames(acc, p.names), noAuditNames);
  const named: Names = { ...names, ids };
  const headingRef = useRef<HTMLHeadingElement>(null);
  return (
    <section aria-labelledby="results-heading">
      <h2 id="results-heading" ref={headingRef} className="mb-3 text-lg font-semibold">
        Events{q.data ? ` (${events.length}${q.hasNextPage ? "+" : ""})` : ""}
      </h2>
      {q.isPending ? <Spinner label="Searching the audit trail…" /> : null}
      {q.isError ? <Alert tone="error" title="The search failed">{q.error.message}</Alert> : null}
      {q.data && events.length === 0 ? <EmptyState title="No events match">Widen the time range or clear a filter.</EmptyState> : null}
      {events.length > 0 ? (
        <ol className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white" aria-labelledby="results-heading">
          {events.map((e) => (
            <EventRow key={e.id} e={e} names={named} words={words} onTimeline={onTimeline} />
          ))}
        </ol>
      ) : null}
      {q.hasNextPage ? (
        <div className="mt-3">
          <Button variant="secondary" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage}>
            {q.isFetchingNextPage ? "Loading…" : "Load older events"}
          </Button>
        </div>
      ) : null}
    </section>
  );
}

function Revocations({ initial, names, words, onTimeline }: { initial: AuditEventView[]; names: Names; words: Words; onTimeline: (id: string) => void }) {
  const q = useQuery({
    queryKey: ["revocations"],
    queryFn: async () => {
      const [g, a] = await Promise.all([api<AuditPage>("/api/v1/audit?event=grant.revoked&limit=50"), api<AuditPage>("/api/v1/audit?event=actor.revoked&limit=50")]);
      return [...g.events, ...a.events].sort((x, y) => y.at.localeCompare(x.at));
    },
    initialData: initial,
  });
  return (
    <section aria-labelledby="revocations-heading">
      <h2 id="revocations-heading" className="mb-3 text-lg font-semibold">
        Revocations
      </h2>
      {q.isError ? <Alert tone="error" title="Could not load revocations">{q.error.message}</Alert> : null}
      {q.data.length === 0 ? (
        <EmptyState title="Nothing revoked yet">When a person revokes an agent or one of its grants, it is listed here with their reason.</EmptyState>
      ) : (
        <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
          {q.data.map((e) => {
            const isGrant = e.event === "grant.revoked";
            const actor = names.actor(isGrant ? (typeof e.details.actor_id === "string" ? e.details.actor_id : null) : e.subject_id);
            return (
              <li key={e.id} className="flex flex-col gap-2 px-4 py-3 text-sm sm:flex-row sm:items-start sm:justify-between">
                <div className="min-w-0">
                  <p className="font-medium text-slate-900">
                    {isGrant ? `${actor ?? "An agent"}'s grant for ${e.namespace ? realmTitle(words, e.namespace) : "a realm"}` : `Agent ${actor ?? e.subject_id}`} revoked
                  </p>
                  <p className="text-slate-800">
                    By {names.user(e.user_id) ?? "someone"} · <Time iso={e.at} />
                  </p>
                  <p className="text-slate-800">Reason: {reasonText(e.reason)?.code ? reasonText(e.reason)!.text : <>“{e.reason ?? "none given"}”</>}</p>
                </div>
                {isGrant && e.subject_id ? (
                  <Button variant="secondary" className="min-h-9 px-3 py-1" onClick={() => onTimeline(e.subject_id!)} aria-label={`Grant timeline for the revoked grant ${e.subject_id}`}>
                    Grant timeline
                  </Button>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
