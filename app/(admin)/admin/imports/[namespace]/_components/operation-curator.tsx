"use client";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { api } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";

type Risk = "read" | "write" | "destructive";
type Operation = {
  action: string;
  method: string;
  path: string;
  group: string;
  summary: string;
  label: string;
  risk: Risk;
  default_risk: Risk;
  hidden: boolean;
  exact_grant_only: boolean;
  keywords: string[];
  input_digest: string;
  deprecated: boolean;
};
type Page = { namespace: string; total: number; hidden: number; matching: number; offset: number; operations: Operation[] };
type AffectedGrant = { grant_id: string; actor_name: string; operation: string; change: string };
type Curated = { operations: Operation[]; suspended_grants: AffectedGrant[]; suspended_grant_count: number };
type Change = { action: string; hidden?: boolean; label?: string | null; keywords?: string[]; risk?: Risk | null; exact_grant_only?: boolean };

const PAGE = 25;

type SaveState = { state: "pending" | "saved" | "failed"; change: Change; message?: string };
const stateWords = { pending: "Saving…", saved: "Saved", failed: "Not saved" } as const;

/** What one change does, in words, for the row's status and the live announcement. */
export function describeChange(c: Change): string {
  if (c.hidden !== undefined) return c.hidden ? `${c.action} hidden from agents` : `${c.action} shown to agents`;
  if (c.exact_grant_only !== undefined) return c.exact_grant_only ? `${c.action} only an exact grant covers it` : `${c.action} is no longer only for exact grants`;
  if (c.risk !== undefined) return `risk of ${c.action} ${c.risk ? `set to ${c.risk}` : "back to its default"}`;
  return `label and keywords of ${c.action}`;
}

function LabelEditor({ op, onSave }: { op: Operation; onSave: (c: Change) => void }) {
  const [label, setLabel] = useState(op.label);
  const [keywords, setKeywords] = useState(op.keywords.join(", "));
  const id = `op-${op.action.replace(/[^A-Za-z0-9]+/g, "-")}`;
  return (
    <form
      className="flex flex-col gap-1"
      onSubmit={(e) => {
        e.preventDefault();
        onSave({
          action: op.action,
          label: label.trim() && label.trim() !== op.summary ? label.trim() : null,
          keywords: keywords.split(",").map((k) => k.trim()).filter(Boolean),
        });
      }}
    >
      {/* Visible words on the narrow card; at table width the column header says it, and the name stays the same. */}
      <label htmlFor={`${id}-label`} className="text-xs font-medium text-slate-700 lg:sr-only">
        Label<span className="sr-only"> for {op.action}</span>
      </label>
      <input id={`${id}-label`} className="w-full rounded border border-slate-300 bg-white px-2 py-1" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={120} />
      <label htmlFor={`${id}-kw`} className="mt-1 text-xs font-medium text-slate-700 lg:sr-only">
        Keywords<span className="sr-only"> for {op.action}</span>
      </label>
      <input id={`${id}-kw`} className="w-full rounded border border-slate-300 bg-white px-2 py-1 text-xs" value={keywords} onChange={(e) => setKeywords(e.target.value)} placeholder="keywords, comma-separated" />
      <Button type="submit" variant="secondary" className="self-start !min-h-8 !px-2 !py-1 text-xs" aria-label={`Save label and keywords of ${op.action}`}>
        Save
      </Button>
    </form>
  );
}

/** A row's last change: pending, saved or failed in words, with Retry after a failure. */
function RowStatus({ st, onRetry }: { st: SaveState | undefined; onRetry: (c: Change) => void }) {
  if (!st) return null;
  return (
    <div className="mt-1 flex flex-wrap items-center gap-2 text-xs" data-testid="curation-status">
      <span className={`font-medium ${st.state === "failed" ? "text-red-800" : st.state === "saved" ? "text-green-800" : "text-slate-700"}`}>
        {stateWords[st.state]}: {describeChange(st.change)}
      </span>
      {st.state === "failed" ? (
        <Button variant="secondary" className="!min-h-8 !px-2 !py-1 text-xs" onClick={() => onRetry(st.change)}>
          Retry
        </Button>
      ) : null}
    </div>
  );
}

export function OperationCurator({ namespace }: { namespace: string }) {
  const qc = useQueryClient();
  const [q, setQ] = useState("");
  const [offset, setOffset] = useState(0);
  const key = ["operations", namespace, q, offset] as const;
  const page = useQuery({
    queryKey: key,
    queryFn: () => api<Page>(`/api/v1/realms/${encodeURIComponent(namespace)}/operations?${new URLSearchParams({ q, offset: String(offset), limit: String(PAGE) })}`),
    placeholderData: keepPreviousData,
  });
  const [states, setStates] = useState<Map<string, SaveState>>(new Map());
  const [announcement, setAnnouncement] = useState("");
  const setState = (action: string, st: SaveState) => setStates((m) => new Map(m).set(action, st));
  const save = useMutation({
    mutationFn: (change: Change) => api<Curated>(`/api/v1/realms/${encodeURIComponent(namespace)}/operations`, { method: "PATCH", body: { changes: [change] } }),
    // Optimistic: the row changes at once and rolls back if the server refuses.
    onMutate: async (change) => {
      // A refetch already in flight must not overwrite the optimistic row.
      await qc.cancelQueries({ queryKey: key });
      const before = qc.getQueryData<Page>(key);
      if (before) {
        qc.setQueryData<Page>(key, {
          ...before,
          operations: before.operations.map((o) =>
            o.action === change.action
              ? {
                  ...o,
                  ...(change.hidden !== undefined ? { hidden: change.hidden } : {}),
                  ...(change.exact_grant_only !== undefined ? { exact_grant_only: change.exact_grant_only } : {}),
                  ...(change.risk !== undefined ? { risk: change.risk ?? o.default_risk } : {}),
                  ...(change.label !== undefined ? { label: change.label ?? o.summary } : {}),
                  ...(change.keywords !== undefined ? { keywords: change.keywords } : {}),
                }
              : o,
          ),
        });
      }
      setState(change.action, { state: "pending", change });
      setAnnouncement(`Saving: ${describeChange(change)}…`);
      return { before };
    },
    onError: (err, change, ctx) => {
      if (ctx?.before) qc.setQueryData(key, ctx.before);
      setState(change.action, { state: "failed", change, message: err.message });
      setAnnouncement(`Not saved: ${describeChange(change)}. It is back as it was. ${err.message}`);
    },
    onSuccess: (_res, change) => {
      setState(change.action, { state: "saved", change });
      setAnnouncement(`Saved: ${describeChange(change)}.`);
    },
    onSettled: () => void qc.invalidateQueries({ queryKey: ["operations", namespace] }),
  });

  const data = page.data;
  return (
    <div className="space-y-4">
      <Card>
        <form
          role="search"
          className="flex flex-col gap-2 sm:flex-row sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            setOffset(0);
          }}
        >
          <div className="flex-1">
            <label htmlFor="op-q" className="block text-sm font-medium">Find operations</label>
            <input
              id="op-q"
              type="search"
              className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2"
              value={q}
              onChange={(e) => {
                setQ(e.target.value);
                setOffset(0);
              }}
              placeholder="operation id, summary or path"
            />
          </div>
        </form>
        {data ? (
          <p className="mt-2 text-sm text-slate-600" role="status">
            {data.matching.toLocaleString("en-US")} of {data.total.toLocaleString("en-US")} operations match · {data.hidden.toLocaleString("en-US")} hidden
          </p>
        ) : null}
        {data ? (
          <p className="mt-1 text-sm text-slate-600">
            Agents see the {(data.total - data.hidden).toLocaleString("en-US")} not hidden. The realm page lists them with the 2 operations that let agents read
            what the service offers: {(data.total - data.hidden + 2).toLocaleString("en-US")} in all, the number its card shows.{" "}
            <Link href={`/realms/${encodeURIComponent(namespace)}`} className="text-brand-700 underline">
              Open the realm page
            </Link>
          </p>
        ) : null}
      </Card>

      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>
      {save.isError ? (
        <Alert tone="error" title="The change was not saved">
          {save.error.message} The row is back as it was; use its Retry button to try again.
        </Alert>
      ) : null}
      {save.data?.suspended_grant_count ? (
        <Alert
          tone="warning"
          title={`Warning: raising the risk suspended ${save.data.suspended_grant_count} ${save.data.suspended_grant_count === 1 ? "grant" : "grants"} until re-approved`}
        >
          <p>The agents holding them are asked for consent again for this operation; the rest of each grant keeps working.</p>
          <ul className="mt-1 list-disc pl-5">
            {save.data.suspended_grants.slice(0, 20).map((a) => (
              <li key={`${a.grant_id}|${a.operation}`} className="break-words">
                {a.actor_name} — <code>{a.operation.startsWith("object.action.") ? a.operation.slice(14) : a.operation}</code> ({a.change})
              </li>
            ))}
          </ul>
        </Alert>
      ) : null}
      {page.isError ? <Alert tone="error" title="Could not load operations">{page.error.message}</Alert> : null}
      {page.isPending ? <p role="status" className="text-sm text-slate-600">Loading operations…</p> : null}

      {data ? (
        <Card className="relative min-w-0">
          {/*
            One tree for both widths: below lg each row is a card (its cells stacked, each control with visible
            words), from lg the ordinary table. The explicit roles keep the table's semantics while CSS changes the
            elements' display; the controls' accessible names are the same at every width.
          */}
          <table role="table" className="block w-full text-left text-sm lg:table">
            <caption className="sr-only">Operations of {namespace}</caption>
            <thead role="rowgroup" className="sr-only lg:not-sr-only lg:table-header-group">
              <tr role="row" className="border-b border-slate-200">
                <th role="columnheader" scope="col" className="py-2 pr-3">Operation</th>
                <th role="columnheader" scope="col" className="py-2 pr-3">Label and keywords</th>
                <th role="columnheader" scope="col" className="py-2 pr-3">Risk</th>
                <th role="columnheader" scope="col" className="py-2 pr-3">Hidden</th>
                <th role="columnheader" scope="col" className="py-2">Exact grant only</th>
              </tr>
            </thead>
            <tbody role="rowgroup" className="grid gap-3 sm:grid-cols-2 lg:table-row-group">
              {data.operations.map((op) => (
                <tr
                  key={op.action}
                  role="row"
                  data-testid="curation-row"
                  className={`flex min-w-0 flex-col gap-3 rounded-md border border-slate-200 p-3 align-top lg:table-row lg:rounded-none lg:border-0 lg:border-b lg:border-slate-100 lg:p-0 ${op.hidden ? "text-slate-500" : ""}`}
                >
                  <td role="cell" className="min-w-0 lg:py-2 lg:pr-3">
                    <code className="break-all font-medium">{op.action}</code>
                    <div className="break-all text-xs text-slate-600">
                      {op.method} {op.path}
                      {op.deprecated ? " · deprecated" : ""}
                    </div>
                    <div className="break-words text-xs text-slate-600">{op.input_digest || "no input"}</div>
                    <RowStatus st={states.get(op.action)} onRetry={(c) => save.mutate(c)} />
                  </td>
                  <td role="cell" className="min-w-0 lg:min-w-56 lg:py-2 lg:pr-3">
                    <LabelEditor key={`${op.action}:${op.label}:${op.keywords.join(",")}`} op={op} onSave={(c) => save.mutate(c)} />
                  </td>
                  <td role="cell" className="lg:py-2 lg:pr-3">
                    <label htmlFor={`risk-${op.action}`} className="mr-2 text-xs font-medium text-slate-700 lg:sr-only">
                      Risk<span className="sr-only"> of {op.action}</span>
                    </label>
                    <select
                      id={`risk-${op.action}`}
                      className="rounded border border-slate-300 bg-white px-2 py-1"
                      value={op.risk}
                      onChange={(e) => save.mutate({ action: op.action, risk: e.target.value === op.default_risk ? null : (e.target.value as Risk) })}
                    >
                      <option value="read">read</option>
                      <option value="write">write</option>
                      <option value="destructive">destructive</option>
                    </select>
                  </td>
                  <td role="cell" className="lg:py-2 lg:pr-3">
                    {/* The words beside the box are for the card; the box's name (aria-label) is the same at both widths. */}
                    <label className="inline-flex items-center gap-2">
                      <input type="checkbox" className="h-4 w-4" aria-label={`Hide ${op.action}`} checked={op.hidden} onChange={(e) => save.mutate({ action: op.action, hidden: e.target.checked })} />
                      <span className="lg:hidden">Hide from agents</span>
                    </label>
                  </td>
                  <td role="cell" className="lg:py-2">
                    <label className="inline-flex items-center gap-2">
                      <input
                        type="checkbox"
                        className="h-4 w-4"
                        aria-label={`${op.action} only an exact grant covers it`}
                        checked={op.exact_grant_only}
                        onChange={(e) => save.mutate({ action: op.action, exact_grant_only: e.target.checked })}
                      />
                      <span className="lg:hidden">Only an exact grant covers it</span>
                    </label>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav aria-label="Pages" className="mt-3 flex flex-wrap items-center gap-3 text-sm">
            <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Previous
            </Button>
            <span>
              {data.matching ? `${offset + 1}–${Math.min(offset + PAGE, data.matching)} of ${data.matching}` : "nothing matches"}
            </span>
            <Button variant="secondary" disabled={offset + PAGE >= data.matching} onClick={() => setOffset(offset + PAGE)}>
              Next
            </Button>
          </nav>
        </Card>
      ) : null}
    </div>
  );
}
