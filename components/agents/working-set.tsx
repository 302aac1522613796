"use client";
// An agent's working set on its card: the catalog proof in words (how much of the budget its tool list weighs, how
// many read and write slots it fills), each exact tool by its title and realm with its size and last use, the
// largest tools, when the set lapses, tools it holds that are not listed and why; and Remove per tool, said in a
// live notice (the button goes with the tool). The owner's catalog budget control lives here too.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { api, ApiError } from "@/components/api-client";
import { kilobytes } from "@/components/audit/event-words";
import { RiskBadge } from "@/components/realms/risk-badge";
import { Alert, LiveNotice, type Notice } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Select } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { Time } from "@/components/ui/time";
import type { TenantSettingsView } from "@/lib/views/tenant-settings";
import type { WorkingSetToolView, WorkingSetView } from "@/lib/views/working-set";

const message = (e: unknown) => (e instanceof ApiError || e instanceof Error ? e.message : "the server could not be reached.");

export const workingSetKey = (actorId: string) => ["working-set", actorId] as const;

/** "30 minutes", "1 hour": how long an unused set lasts. */
function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? "" : "s"}`;
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? "" : "s"}`;
  return `${seconds} seconds`;
}

export function WorkingSet({ actorId, actorName }: { actorId: string; actorName: string }) {
  const qc = useQueryClient();
  const headingId = useId();
  const q = useQuery({ queryKey: workingSetKey(actorId), queryFn: () => api<WorkingSetView>(`/api/v1/actors/${actorId}/working-set`) });
  const [notice, setNotice] = useState<Notice | null>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  const remove = useMutation({
    mutationFn: (tool: WorkingSetToolView) => api<WorkingSetView & { removed: string }>(`/api/v1/actors/${actorId}/working-set/${encodeURIComponent(tool.name)}`, { method: "DELETE" }),
    onMutate: () => setNotice(null),
    onSuccess: (view, tool) => {
      qc.setQueryData(workingSetKey(actorId), view);
      setNotice({ tone: "success", title: `Removed “${tool.title}” (${tool.realm_title}) from ${actorName}'s working set`, text: `Its tool list no longer shows ${tool.name}; it can add it again with object_schema.` });
      // The button went with the tool: the keyboard lands on what was said.
      requestAnimationFrame(() => noticeRef.current?.focus());
    },
    onError: () => void qc.invalidateQueries({ queryKey: workingSetKey(actorId) }),
  });

  return (
    <section aria-labelledby={headingId} className="mt-5">
      <h4 id={headingId} className="font-medium">
        Working set
      </h4>
      <p className="mt-1 text-sm text-slate-600">The actions {actorName} added as tools of its own, listed after the nine generic tools its tool list always shows.</p>
      <div className={notice ? "mt-2" : ""}>
        <LiveNotice ref={noticeRef} notice={notice} />
      </div>
      {remove.isError ? (
        <div className="mt-2">
          <Alert tone="error" title="Not removed">
            {message(remove.error)}
          </Alert>
        </div>
      ) : null}
      {q.isPending ? <Spinner label={`Loading ${actorName}'s working set…`} /> : null}
      {q.isError ? (
        <div className="mt-2">
          <Alert tone="error" title={`Could not load ${actorName}'s working set`}>
            {message(q.error)}{" "}
            <Button variant="secondary" onClick={() => void q.refetch()} disabled={q.isFetching}>
              {q.isFetching ? "Retrying…" : "Retry"}
            </Button>
          </Alert>
        </div>
      ) : null}
      {q.data ? <WorkingSetBody view={q.data} actorName={actorName} onRemove={(t) => remove.mutate(t)} removing={remove.isPending ? remove.variables?.name : undefined} /> : null}
    </section>
  );
}

function WorkingSetBody({ view, actorName, onRemove, removing }: { view: WorkingSetView; actorName: string; onRemove: (t: WorkingSetToolView) => void; removing?: string }) {
  const p = view.proof;
  const meterLabelId = useId();
  const pct = Math.min(100, Math.round((p.catalog_bytes / p.budget_bytes) * 100));
  const words = `${kilobytes(p.catalog_bytes)} of ${kilobytes(p.budget_bytes)}`;
  return (
    <div className="mt-3 space-y-3">
      <div>
        <p id={meterLabelId} className="text-sm font-medium text-slate-900">
          Catalog: {words}
        </p>
        <div
          role="meter"
          aria-labelledby={meterLabelId}
          aria-valuemin={0}
          aria-valuemax={p.budget_bytes}
          aria-valuenow={Math.min(p.catalog_bytes, p.budget_bytes)}
          aria-valuetext={`${words} (${pct}%)`}
          className="mt-1 h-2.5 w-full max-w-md overflow-hidden rounded-full bg-slate-200"
        >
          <div className={`h-full rounded-full ${pct >= 90 ? "bg-amber-600" : "bg-brand-600"}`} style={{ width: `${pct}%` }} />
        </div>
        <p className="mt-1 text-xs text-slate-600">
          The nine generic tools weigh {kilobytes(p.generic_bytes)}
          {p.working_set_bytes ? `; its exact tools ${kilobytes(p.working_set_bytes)}` : ""}. The agent&apos;s model is sent this list on every turn.
        </p>
      </div>
      <p className="text-sm text-slate-800">
        Reads {p.reads} of {p.limits.reads} · Writes {p.writes} of {p.limits.writes}
      </p>

      {view.tools.length === 0 ? (
        <p className="text-sm text-slate-700">No exact tools: this agent works through the nine generic tools.</p>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-md border border-slate-200" aria-label={`Exact tools of ${actorName}`}>
          {view.tools.map((t) => (
            <li key={t.name} className="flex flex-col gap-2 px-3 py-2 text-sm sm:flex-row sm:items-center sm:justify-between" data-tool={t.name}>
              <div className="min-w-0">
                <p className="flex flex-wrap items-center gap-2">
                  <span className="font-medium text-slate-900">{t.title}</span>
                  <span className="text-slate-700">in {t.realm_title}</span>
                  <RiskBadge risk={t.risk} />
                </p>
                <p className="mt-0.5 text-xs text-slate-600">
                  <code className="break-all">{t.name}</code> · {kilobytes(t.bytes)} · last used <Time iso={t.last_used_at} mode="relative" />
                </p>
              </div>
              {view.can_remove ? (
                <Button variant="secondary" onClick={() => onRemove(t)} disabled={removing !== undefined} aria-label={`Remove ${t.title} (${t.realm_title}) from ${actorName}'s working set`}>
                  {removing === t.name ? "Removing…" : "Remove"}
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      )}

      {view.tools.length ? (
        <p className="text-sm text-slate-700">
          Largest tools: {view.largest.map((l, i) => (
            <span key={l.name}>
              {i ? ", " : ""}
              {l.exact ? l.title : <code>{l.title}</code>} {kilobytes(l.bytes)}
            </span>
          ))}
          .
        </p>
      ) : null}

      {view.lapses_at ? (
        <p className="text-sm text-slate-700">
          Lapses <Time iso={view.lapses_at} mode="both" /> unless {actorName} uses one of its tools first (a set lasts {duration(view.idle_ttl_seconds)} after its last use).
        </p>
      ) : null}

      {view.unlisted.length ? (
        <div>
          <p className="text-sm font-medium text-slate-900">Held but not listed ({view.unlisted.length})</p>
          <ul className="mt-1 space-y-1 text-sm text-slate-700">
            {view.unlisted.map((u) => (
              <li key={u.name}>
                <span className="font-medium text-slate-900">{u.title}</span> in {u.realm_title} (<code className="break-all">{u.name}</code>): {u.why}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

const BUDGET_CHOICES_KB = [8, 16, 24, 32, 48];
type SaveState = "pending" | "saved" | "failed";

/** The owner's "Catalog budget for agents": what every agent's tool list may weigh, saved with Save. */
export function CatalogBudget({ initial }: { initial: TenantSettingsView }) {
  const qc = useQueryClient();
  const [saved, setSaved] = useState(initial.catalog_budget_bytes);
  const [value, setValue] = useState(initial.catalog_budget_bytes);
  const [status, setStatus] = useState<{ state: SaveState; text: string } | null>(null);
  const save = useMutation({
    mutationFn: (bytes: number) => api<TenantSettingsView & { changed: boolean }>("/api/v1/tenant/settings", { method: "PATCH", body: { catalog_budget_bytes: bytes } }),
    onMutate: (bytes) => setStatus({ state: "pending", text: `Saving ${kilobytes(bytes)}…` }),
    onSuccess: (res) => {
      setSaved(res.catalog_budget_bytes);
      setValue(res.catalog_budget_bytes);
      setStatus({ state: "saved", text: `Saved: every agent's tool list may now weigh up to ${kilobytes(res.catalog_budget_bytes)}.` });
      void qc.invalidateQueries({ queryKey: ["working-set"] });
    },
    onError: (err, bytes) => setStatus({ state: "failed", text: `Not saved: ${message(err)} The budget stays ${kilobytes(saved)}; ${kilobytes(bytes)} was not applied.` }),
  });
  const options = [...new Set([...BUDGET_CHOICES_KB.map((k) => k * 1024), saved])].sort((a, b) => a - b);
  return (
    <section aria-labelledby="catalog-budget-heading" className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="catalog-budget-heading" className="text-lg font-semibold">
        Catalog budget for agents
      </h2>
      <p className="mt-1 max-w-prose text-sm text-slate-600">
        What the tool list of each agent in this workspace may weigh: the nine generic tools and its working set together. An action that would not fit is not added as a tool; the agent
        still calls it through object_action. Default {kilobytes(initial.default)}.
      </p>
      <form
        className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-end"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(value);
        }}
      >
        <Field id="catalog-budget" label="Budget per agent" className="sm:w-48">
          <Select id="catalog-budget" value={String(value)} onChange={(e) => setValue(Number(e.target.value))}>
            {options.map((b) => (
              <option key={b} value={String(b)}>
                {kilobytes(b)}
                {b === initial.default ? " (default)" : ""}
              </option>
            ))}
          </Select>
        </Field>
        <Button type="submit" disabled={save.isPending || value === saved}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
        <span role="status" aria-live="polite" className={`text-sm sm:pb-2.5 ${status?.state === "failed" ? "text-red-800" : status?.state === "saved" ? "text-green-800" : "text-slate-700"}`}>
          {status ? status.text : null}
        </span>
        {status?.state === "failed" ? (
          <Button type="button" variant="secondary" onClick={() => save.mutate(value)}>
            Retry
          </Button>
        ) : null}
      </form>
    </section>
  );
}
