"use client";
// A realm's operations with a switch each. Owners set the workspace ceiling; everyone but support staff sets
// their own choices, bounded by that ceiling (what the ceiling blocks is shown, not switchable). Switching is
// optimistic and rolls back, with a message, when the server refuses. Long lists (imported APIs have 1,000+
// operations) are virtualized; arrow keys move between switches.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { api, ApiError } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Field, Input, Select } from "@/components/ui/input";
import { Switch } from "@/components/ui/switch";
import type { OperationState } from "@/lib/authz/policy";
import type { Risk } from "@/lib/realms/contract";
import type { OperationView, RealmDetailView } from "@/lib/views/realms";
import { RiskBadge, riskWords } from "./risk-badge";

export type Mode = "ceiling" | "choice";
type Change = { operation: string; enabled: boolean };

/** Lists longer than this are virtualized; shorter ones render whole (simplest for assistive technology). */
const VIRTUALIZE_OVER = 60;
/** The API takes at most this many changes per request. */
const CHUNK = 2000;

const norm = (s: string) => s.toLowerCase().normalize("NFKD");

export function filterOperations(ops: OperationView[], query: string, risk: Risk | "all"): OperationView[] {
  const words = norm(query).split(/\s+/).filter(Boolean);
  return ops.filter((o) => {
    if (risk !== "all" && o.risk !== risk) return false;
    if (words.length === 0) return true;
    const text = norm([o.label, o.key, o.description, ...o.kinds, ...o.claims.map((c) => c.label)].join(" "));
    return words.every((w) => text.includes(w));
  });
}

/** The state after some changes in one mode; `effective` follows ceiling ∩ choice. */
export function applyChanges(ops: OperationView[], mode: Mode, changes: Change[]): OperationView[] {
  const next = new Map(changes.map((c) => [c.operation, c.enabled]));
  return ops.map((o) => {
    const v = next.get(o.key);
    if (v === undefined) return o;
    const ceiling = mode === "ceiling" ? v : o.ceiling;
    const choice = mode === "choice" ? v : o.choice;
    return { ...o, ceiling, choice, effective: ceiling && choice };
  });
}

const valueOf = (o: OperationView, mode: Mode) => (mode === "ceiling" ? o.ceiling : o.choice);
/** In "my agents" mode an operation the ceiling turned off cannot be switched. */
const blocked = (o: OperationView, mode: Mode) => mode === "choice" && !o.ceiling;

export function OperationList({ namespace, initial, initialQuery = "" }: { namespace: string; initial: RealmDetailView; initialQuery?: string }) {
  const qc = useQueryClient();
  const key = ["realm", namespace];
  const detail = useQuery({ queryKey: key, queryFn: () => api<RealmDetailView>(`/api/v1/realms/${namespace}`), initialData: initial });
  const data = detail.data;
  const canCeiling = data.can_change.ceiling;
  const canChoice = data.can_change.choice;
  const [mode, setMode] = useState<Mode>(canChoice ? "choice" : "ceiling");
  const readOnly = mode === "ceiling" ? !canCeiling : !canChoice;
  const [query, setQuery] = useState(initialQuery);
  const [risk, setRisk] = useState<Risk | "all">("all");
  const deferredQuery = useDeferredValue(query);
  const shown = useMemo(() => filterOperations(data.operations, deferredQuery, risk), [data.operations, deferredQuery, risk]);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState<Set<string>>(new Set());

  const save = useMutation({
    mutationFn: async (v: { mode: Mode; changes: Change[] }) => {
      let states: OperationState[] = [];
      for (let i = 0; i < v.changes.length; i += CHUNK) {
        const res = await api<{ operations: OperationState[] }>(v.mode === "ceiling" ? "/api/v1/ceiling" : "/api/v1/choices", {
          method: "PATCH",
          body: { namespace, changes: v.changes.slice(i, i + CHUNK) },
        });
        states = res.operations;
      }
      return states;
    },
    onMutate: async (v) => {
      setFailure(null);
      await qc.cancelQueries({ queryKey: key });
      const before = qc.getQueryData<RealmDetailView>(key);
      // Remember each switched operation's previous value: a rollback restores just those, so a failure
      // never undoes another switch that succeeded meanwhile.
      const previous = (before?.operations ?? []).filter((o) => v.changes.some((c) => c.operation === o.key)).map((o) => ({ operation: o.key, enabled: valueOf(o, v.mode) }));
      qc.setQueryData<RealmDetailView>(key, (d) => (d ? { ...d, operations: applyChanges(d.operations, v.mode, v.changes) } : d));
      setPending((p) => new Set([...p, ...v.changes.map((c) => c.operation)]));
      return { previous };
    },
    onError: (err, v, ctx) => {
      if (ctx) qc.setQueryData<RealmDetailView>(key, (d) => (d ? { ...d, operations: applyChanges(d.operations, v.mode, ctx.previous) } : d));
      const what =
        v.changes.length === 1
          ? `“${data.operations.find((o) => o.key === v.changes[0]!.operation)?.label ?? v.changes[0]!.operation}” is back ${v.changes[0]!.enabled ? "off" : "on"}`
          : `${v.changes.length} operations are back as they were`;
      setFailure(`Your change was not saved, so ${what}. ${err instanceof ApiError ? err.message : "The server could not be reached."}`);
    },
    onSuccess: (states) => {
      const byOp = new Map(states.map((s) => [s.operation as string, s]));
      qc.setQueryData<RealmDetailView>(key, (d) =>
        d ? { ...d, operations: d.operations.map((o) => { const s = byOp.get(o.key); return s ? { ...o, ceiling: s.ceiling, choice: s.choice, effective: s.effective } : o; }) } : d,
      );
      void qc.invalidateQueries({ queryKey: ["realms"] });
    },
    onSettled: (_r, _e, v) => setPending((p) => new Set([...p].filter((op) => !v.changes.some((c) => c.operation === op)))),
  });

  const change = (changes: Change[]) => {
    const real = changes.filter((c) => {
      const o = data.operations.find((x) => x.key === c.operation);
      return o && !blocked(o, mode) && valueOf(o, mode) !== c.enabled;
    });
    if (real.length) save.mutate({ mode, changes: real });
  };
  const bulk = (ops: OperationView[], enabled: boolean) => change(ops.map((o) => ({ operation: o.key, enabled })));

  const on = data.operations.filter((o) => valueOf(o, mode) && !blocked(o, mode)).length;
  const risks: Risk[] = ["read", "write", "destructive"];

  return (
    <div className="space-y-4">
      {canCeiling ? (
        <fieldset className="inline-flex flex-wrap rounded-lg bg-slate-100 p-1">
          <legend className="sr-only">Whose settings</legend>
          {(
            [
              ["choice", "My agents"],
              ["ceiling", "Whole workspace (owner)"],
            ] as const
          ).map(([m, label]) => (
            <label
              key={m}
              className={`relative min-h-10 cursor-pointer rounded-md px-4 py-2 text-sm font-medium has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-600 ${mode === m ? "bg-white text-slate-900 shadow" : "text-slate-700 hover:text-slate-900"}`}
            >
              <input type="radio" name="settings-mode" value={m} checked={mode === m} onChange={() => setMode(m)} className="absolute inset-0 h-full w-full cursor-pointer opacity-0" />
              {label}
            </label>
          ))}
        </fieldset>
      ) : null}

      <p className="max-w-3xl text-sm text-slate-700">
        {mode === "ceiling"
          ? readOnly
            ? "What the workspace owner allows agents to use at all. You can review it here; only owners change it."
            : "What any agent in this workspace may use at all. Turning an operation off here overrides everyone's own choices."
          : "What agents acting for you may use. The workspace owner’s settings come first: what they turned off is shown, but cannot be turned on here."}{" "}
        <span className="font-medium text-slate-900">
          {on} of {data.operations.length} on.
        </span>
      </p>

      {failure ? (
        <Alert tone="error" title="Change not saved">
          {failure}
        </Alert>
      ) : null}
      {detail.isError ? <Alert tone="error" title="Could not refresh this realm">{detail.error.message}</Alert> : null}

      <div className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 lg:flex-row lg:items-end">
        <div role="search" aria-label="Filter operations" className="flex flex-1 flex-col gap-3 sm:flex-row">
          <Field id="op-search" label="Search operations" className="flex-1">
            <Input id="op-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} autoComplete="off" placeholder="e.g. delete, comment, send" />
          </Field>
          <Field id="op-risk" label="Risk" className="sm:w-44">
            <Select id="op-risk" value={risk} onChange={(e) => setRisk(e.target.value as Risk | "all")}>
              <option value="all">All risks</option>
              {risks.map((r) => (
                <option key={r} value={r}>
                  {riskWords[r].label} only
                </option>
              ))}
            </Select>
          </Field>
        </div>
        {!readOnly ? (
          <div className="flex flex-wrap gap-2" role="group" aria-label="Switch many at once">
            <Button variant="secondary" onClick={() => bulk(shown, true)} disabled={shown.length === 0}>
              Turn {shown.length === data.operations.length ? "all" : `these ${shown.length}`} on
            </Button>
            <Button variant="secondary" onClick={() => bulk(shown, false)} disabled={shown.length === 0}>
              Turn {shown.length === data.operations.length ? "all" : `these ${shown.length}`} off
            </Button>
          </div>
        ) : null}
      </div>

      {!readOnly ? (
        <div className="flex flex-wrap gap-x-6 gap-y-2 text-sm" role="group" aria-label="Switch by risk level">
          {risks.map((r) => {
            const ofRisk = data.operations.filter((o) => o.risk === r);
            if (ofRisk.length === 0) return null;
            return (
              <div key={r} className="flex items-center gap-2">
                <RiskBadge risk={r} />
                <span className="text-slate-700">{ofRisk.length}</span>
                <Button variant="ghost" className="min-h-8 px-2 py-1" onClick={() => bulk(ofRisk, true)} aria-label={`All on: ${riskWords[r].label.toLowerCase()} operations`}>
                  All on
                </Button>
                <Button variant="ghost" className="min-h-8 px-2 py-1" onClick={() => bulk(ofRisk, false)} aria-label={`All off: ${riskWords[r].label.toLowerCase()} operations`}>
                  All off
                </Button>
              </div>
            );
          })}
        </div>
      ) : null}

      <p className="text-sm text-slate-600" aria-live="polite">
        {shown.length === data.operations.length ? `${shown.length} operations.` : `Showing ${shown.length} of ${data.operations.length} operations.`}
      </p>

      {data.operations.length === 0 ? (
        <EmptyState title="This realm offers no operations" />
      ) : shown.length === 0 ? (
        <EmptyState title="No operation matches">Try other words, or show all risks.</EmptyState>
      ) : (
        <Rows ops={shown} mode={mode} readOnly={readOnly} pending={pending} onToggle={(o, v) => change([{ operation: o.key, enabled: v }])} />
      )}
    </div>
  );
}

function Rows({ ops, mode, readOnly, pending, onToggle }: { ops: OperationView[]; mode: Mode; readOnly: boolean; pending: Set<string>; onToggle: (o: OperationView, v: boolean) => void }) {
  const listId = useId();
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtual = ops.length > VIRTUALIZE_OVER;
  // The virtualizer's functions change with scroll position; this component is re-rendered, not memoized.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: ops.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 96,
    overscan: 8,
    enabled: virtual,
    getItemKey: (i) => ops[i]!.key,
  });

  /** Arrow keys, Home and End move between the switches, scrolling virtual rows into existence first. */
  const moveFocus = (from: number) => (e: KeyboardEvent<HTMLButtonElement>) => {
    const to = e.key === "ArrowDown" ? from + 1 : e.key === "ArrowUp" ? from - 1 : e.key === "Home" ? 0 : e.key === "End" ? ops.length - 1 : null;
    if (to === null || to < 0 || to >= ops.length) return;
    e.preventDefault();
    if (virtual) virtualizer.scrollToIndex(to, { align: "auto" });
    const focus = (tries: number) => {
      const el = document.getElementById(`${listId}-switch-${to}`);
      if (el) el.focus();
      else if (tries > 0) requestAnimationFrame(() => focus(tries - 1));
    };
    focus(5);
  };

  const row = (o: OperationView, i: number) => (
    <OperationRow key={o.key} op={o} index={i} idBase={listId} mode={mode} readOnly={readOnly} pending={pending.has(o.key)} onToggle={onToggle} onKeyDown={moveFocus(i)} />
  );

  if (!virtual) {
    return <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">{ops.map(row)}</ul>;
  }
  return (
    <div ref={scrollRef} className="h-[70vh] overflow-auto rounded-lg border border-slate-200 bg-white" data-testid="operation-scroller">
      <ul aria-label={`${ops.length} operations`} style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((v) => (
          <li
            key={v.key}
            data-index={v.index}
            ref={virtualizer.measureElement}
            aria-setsize={ops.length}
            aria-posinset={v.index + 1}
            className="absolute left-0 top-0 w-full border-b border-slate-200"
            style={{ transform: `translateY(${v.start}px)` }}
          >
            <OperationBody
              op={ops[v.index]!}
              index={v.index}
              idBase={listId}
              mode={mode}
              readOnly={readOnly}
              pending={pending.has(ops[v.index]!.key)}
              onToggle={onToggle}
              onKeyDown={moveFocus(v.index)}
            />
          </li>
        ))}
      </ul>
    </div>
  );
}

type RowProps = {
  op: OperationView;
  index: number;
  idBase: string;
  mode: Mode;
  readOnly: boolean;
  pending: boolean;
  onToggle: (o: OperationView, v: boolean) => void;
  onKeyDown: (e: KeyboardEvent<HTMLButtonElement>) => void;
};

function OperationRow(props: RowProps) {
  return (
    <li>
      <OperationBody {...props} />
    </li>
  );
}

function OperationBody({ op, index, idBase, mode, readOnly, pending, onToggle, onKeyDown }: RowProps) {
  const labelId = `${idBase}-label-${index}`;
  const noteId = `${idBase}-note-${index}`;
  const isBlocked = blocked(op, mode);
  // A blocked operation is off for the reader's agents whatever their own choice says: show it off.
  const value = isBlocked ? false : valueOf(op, mode);
  const note = isBlocked
    ? "Off for the whole workspace by its owner."
    : mode === "choice" && !value
      ? "Off for your agents."
      : mode === "ceiling" && value && !op.choice
        ? "You turned this off for your own agents."
        : null;
  return (
    <div className="flex flex-col gap-3 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-2">
          <span id={labelId} className="font-medium text-slate-900">
            {op.label}
          </span>
          <RiskBadge risk={op.risk} />
          {op.claims.map((c) => (
            <Badge key={c.name} tone="violet" title={`Needs the connected-account permission ${c.name}`}>
              Needs: {c.label}
            </Badge>
          ))}
        </div>
        <p className="mt-0.5 text-sm text-slate-700">{op.description}</p>
        <p className="mt-0.5 break-all text-xs text-slate-600">
          <code>{op.key}</code>
          {op.kinds.length ? <> · on {op.kinds.join(", ")}</> : <> · whole realm</>}
        </p>
      </div>
      <div className="flex items-center gap-3 sm:justify-end">
        {note ? (
          <span id={noteId} className={`text-xs ${isBlocked ? "font-medium text-red-800" : "text-slate-600"}`}>
            {note}
          </span>
        ) : null}
        {readOnly ? (
          <Badge tone={value ? "green" : "slate"}>{value ? "On" : "Off"}</Badge>
        ) : (
          <Switch
            id={`${idBase}-switch-${index}`}
            checked={value}
            labelledBy={labelId}
            describedBy={note ? noteId : undefined}
            disabled={isBlocked}
            busy={pending}
            onChange={(v) => onToggle(op, v)}
            onKeyDown={onKeyDown}
          />
        )}
      </div>
    </div>
  );
}
