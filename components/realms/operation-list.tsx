"use client";
// A realm's operations, each with its mode for agents: off, ask (each call waits for a person's approval of that
// one call) or on — a three-way choice for operations that change things, an on/off switch for reads (a read
// never asks). Owners set the workspace ceiling; everyone but support staff sets their own choices, bounded by
// it: a person may tighten the owner's mode, never loosen it, so what the owner set to ask cannot be turned on
// here and what the owner turned off is shown, not changeable.
//
// Every change says what happened, in words: the control moves at once with "Saving…", then reads "Saved" when
// the server confirmed it, or moves back and reads "Not saved" with a Retry button when it refused; a polite
// live region announces the same. Changing many at once asks first, naming the count, and offers Undo after
// saving (putting exactly those operations back to the modes they had). The realm card's counts follow.
//
// Operations are grouped by the realm's catalog areas (an imported API's tags), with jump links; big realms
// start with their groups collapsed. Searching a big realm ranks the operations with the capability ranker
// agents use (GET …/operations/ranked). Long lists (imported APIs have 1,000+ operations) are virtualized;
// up and down arrows move between rows, left and right between an operation's modes.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { api } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { Field, Input, Select } from "@/components/ui/input";
import { Switch } from "@/components/ui/switch";
import type { OperationMode } from "@/lib/authz/modes";
import type { OperationState } from "@/lib/authz/policy";
import type { Risk } from "@/lib/realms/contract";
import type { OperationView, RankedOperationsView, RealmDetailView } from "@/lib/views/realms";
import { DescriptionMarkdown } from "./markdown";
import { allowed, applyChanges, blocked, countsOf, groupedRows, previousOf, rankedOperations, shownOf, storedOf, type Change, type Row, type Whose } from "./operation-changes";
import { RiskBadge, riskWords } from "./risk-badge";

export type { Whose };
export { applyChanges, filterOperations } from "./operation-changes";

/** Lists longer than this are virtualized, searched by rank and start with their groups collapsed. */
export const BIG_REALM = 60;
/** The API takes at most this many changes per request. */
const CHUNK = 2000;

type Kind = "single" | "bulk" | "undo";
type Save = { whose: Whose; changes: Change[]; kind: Kind; what: string };
type Status = { state: "pending" | "saved" | "failed"; save: Save };
type Undo = { whose: Whose; changes: Change[]; what: string };
type Ask = { save: Save; question: string };

const fmt = (n: number) => n.toLocaleString("en-US");
const MODES: readonly OperationMode[] = ["off", "ask", "on"];
/** A mode as the control's options name it. */
const modeLabel: Record<OperationMode, string> = { off: "Off", ask: "Ask", on: "On" };
/** A mode in a sentence: "“Send an email” set to ask each time for your agents". */
const modeDone: Record<OperationMode, string> = { off: "turned off", ask: "set to ask each time", on: "turned on" };
/** Where a rolled-back operation is: "is back on", "is back to ask each time". */
const modeBack: Record<OperationMode, string> = { off: "back off", ask: "back to ask each time", on: "back on" };

export function realmKey(namespace: string) {
  return ["realm", namespace];
}

export function OperationList({ namespace, initial, initialQuery = "" }: { namespace: string; initial: RealmDetailView; initialQuery?: string }) {
  const qc = useQueryClient();
  const key = realmKey(namespace);
  const detail = useQuery({ queryKey: key, queryFn: () => api<RealmDetailView>(`/api/v1/realms/${namespace}`), initialData: initial });
  const data = detail.data;
  const big = data.operations.length > BIG_REALM;
  const canCeiling = data.can_change.ceiling;
  const canChoice = data.can_change.choice;
  const [whose, setWhose] = useState<Whose>(canChoice ? "choice" : "ceiling");
  const readOnly = whose === "ceiling" ? !canCeiling : !canChoice;
  const [query, setQuery] = useState(initialQuery);
  const [risk, setRisk] = useState<Risk | "all">("all");
  const deferredQuery = useDeferredValue(query.trim());
  const [status, setStatus] = useState<Map<string, Status>>(new Map());
  const [announcement, setAnnouncement] = useState("");
  const [bulkFailure, setBulkFailure] = useState<{ message: string; save: Save } | null>(null);
  const [undo, setUndo] = useState<Undo | null>(null);
  /** The button a bulk change was asked from: the focus goes back to it once the change is saved. */
  const bulkOpener = useRef<HTMLElement | null>(null);
  const [ask, setAsk] = useState<Ask | null>(null);
  const [open, setOpen] = useState<Set<string>>(() => new Set(big ? [] : data.areas.map((a) => a.id)));
  const [jumpTo, setJumpTo] = useState<string | null>(null);

  // Big realms: the capability ranker orders what matches; the instant word filter fills in meanwhile.
  const ranked = useQuery({
    queryKey: ["realm-ranked", namespace, deferredQuery],
    queryFn: () => api<RankedOperationsView>(`/api/v1/realms/${namespace}/operations/ranked?${new URLSearchParams({ query: deferredQuery })}`),
    enabled: big && deferredQuery.length > 0,
    staleTime: 60_000,
  });
  const rankedKeys = useMemo(() => (big && ranked.data && ranked.data.query === deferredQuery ? ranked.data.operations : []), [big, ranked.data, deferredQuery]);
  const shown = useMemo(() => rankedOperations(data.operations, rankedKeys, deferredQuery, risk), [data.operations, rankedKeys, deferredQuery, risk]);
  const searching = deferredQuery.length > 0;
  const rows: Row[] = useMemo(() => (searching ? shown.map((op) => ({ type: "op", op }) as Row) : groupedRows(data.areas, shown, open)), [searching, shown, data.areas, open]);

  const labelOf = (op: string) => data.operations.find((o) => o.key === op)?.label ?? op;
  const mark = (changes: Change[], s: Status | null) =>
    setStatus((m) => {
      const next = new Map(m);
      for (const c of changes) {
        if (s) next.set(c.operation, s);
        else next.delete(c.operation);
      }
      return next;
    });

  const save = useMutation({
    mutationFn: async (v: Save) => {
      let states: OperationState[] = [];
      for (let i = 0; i < v.changes.length; i += CHUNK) {
        const res = await api<{ operations: OperationState[] }>(v.whose === "ceiling" ? "/api/v1/ceiling" : "/api/v1/choices", {
          method: "PATCH",
          body: { namespace, changes: v.changes.slice(i, i + CHUNK) },
        });
        states = res.operations;
      }
      return states;
    },
    onMutate: async (v) => {
      setBulkFailure(null);
      if (v.kind !== "undo") setUndo(null);
      await qc.cancelQueries({ queryKey: key });
      const before = qc.getQueryData<RealmDetailView>(key);
      // Each changed operation's previous saved mode: a rollback or an undo restores just those, so a failure
      // never undoes another change that succeeded meanwhile.
      const previous = previousOf(before?.operations ?? [], v.whose, v.changes);
      const first = before?.operations.find((o) => o.key === v.changes[0]?.operation);
      qc.setQueryData<RealmDetailView>(key, (d) => (d ? withOperations(d, applyChanges(d.operations, v.whose, v.changes)) : d));
      mark(v.changes, { state: "pending", save: v });
      setAnnouncement(`Saving: ${v.what}…`);
      return { previous, firstShown: first ? shownOf(first, v.whose) : null };
    },
    onError: (err, v, ctx) => {
      if (ctx) qc.setQueryData<RealmDetailView>(key, (d) => (d ? withOperations(d, applyChanges(d.operations, v.whose, ctx.previous)) : d));
      // The API's own words, or (no answer at all) api-client's "The server could not be reached. …".
      const why = err.message;
      const back =
        v.changes.length === 1 && ctx?.firstShown
          ? `“${labelOf(v.changes[0]!.operation)}” is ${modeBack[ctx.firstShown]}`
          : `${fmt(v.changes.length)} operations are back as they were`;
      if (v.kind === "single") mark(v.changes, { state: "failed", save: v });
      else mark(v.changes, null);
      setBulkFailure({ message: `Not saved, so ${back}. ${why}`, save: v });
      setAnnouncement(`Not saved: ${back}. ${why}`);
    },
    onSuccess: (states, v, ctx) => {
      const byOp = new Map(states.map((s) => [s.operation as string, s]));
      qc.setQueryData<RealmDetailView>(key, (d) =>
        d
          ? withOperations(
              d,
              d.operations.map((o) => {
                const s = byOp.get(o.key);
                return s ? { ...o, ceiling: s.ceiling, choice: s.choice, effective: s.effective, ceiling_mode: s.ceiling_mode, choice_mode: s.choice_mode, mode: s.mode } : o;
              }),
            )
          : d,
      );
      void qc.invalidateQueries({ queryKey: ["realms"] });
      mark(v.changes, { state: "saved", save: v });
      setBulkFailure((f) => (f && f.save.changes.every((c) => v.changes.some((x) => x.operation === c.operation)) ? null : f));
      if (v.kind === "bulk") setUndo({ whose: v.whose, changes: ctx.previous, what: v.what });
      if (v.kind === "undo") setUndo(null);
      setAnnouncement(v.kind === "undo" ? `Undone: ${fmt(v.changes.length)} operations are back as they were.` : `Saved: ${v.what}.`);
    },
  });

  // What would really change: not what the owner turned off (in "my agents"), never ask for a read, and not what
  // is saved that way already. A bulk "on" under the owner's ask saves "on" (no narrowing of one's own): the
  // agents still ask, as the owner set.
  const realChanges = (changes: Change[]) =>
    changes.filter((c) => {
      const o = data.operations.find((x) => x.key === c.operation);
      return o && !blocked(o, whose) && !(o.risk === "read" && c.mode === "ask") && storedOf(o, whose) !== c.mode;
    });
  const change = (o: OperationView, m: OperationMode) => {
    if (!allowed(o, whose, m)) return;
    const changes = realChanges([{ operation: o.key, mode: m }]);
    const forWhom = whose === "ceiling" ? "for the whole workspace" : "for your agents";
    if (changes.length) save.mutate({ whose, changes, kind: "single", what: `“${o.label}” ${modeDone[m]} ${forWhom}` });
  };
  /** Many at once: asks first, naming how many operations change. */
  const bulk = (ops: OperationView[], m: OperationMode, which: string) => {
    const changes = realChanges(ops.map((o) => ({ operation: o.key, mode: m })));
    const forWhom = whose === "ceiling" ? "for every agent in this workspace" : "for your agents";
    if (!changes.length) {
      const bounded = whose === "choice" && m === "on" && ops.some((o) => o.ceiling_mode === "ask" && o.risk !== "read");
      setAnnouncement(
        `Nothing to change: ${which ? `these ${which} operations are` : "they are"} already ${m === "ask" ? "asking each time" : m}${bounded ? " as far as the workspace owner allows" : ""}.`,
      );
      return;
    }
    const n = `${fmt(changes.length)} ${which ? `${which} ` : ""}operation${changes.length === 1 ? "" : "s"}`;
    const question = m === "ask" ? `Set ${n} to ask each time ${forWhom}?` : `Turn ${m} ${n} ${forWhom}?`;
    bulkOpener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setAsk({ question, save: { whose, changes, kind: "bulk", what: `${n} ${modeDone[m]} ${forWhom}` } });
  };

  const shownModes = data.operations.map((o) => (blocked(o, whose) ? "off" : shownOf(o, whose)));
  const on = shownModes.filter((m) => m === "on").length;
  const asking = shownModes.filter((m) => m === "ask").length;
  const risks: Risk[] = ["read", "write", "destructive"];
  const pendingAny = [...status.values()].some((s) => s.state === "pending");
  // A confirmed bulk change disables its button while it saves, which drops the focus: once saved (or refused),
  // it goes back to the button that asked, unless the person has moved on.
  useEffect(() => {
    const opener = bulkOpener.current;
    if (pendingAny || !opener) return;
    bulkOpener.current = null;
    if (document.activeElement === document.body && opener.isConnected) opener.focus();
  }, [pendingAny]);

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
          ).map(([w, label]) => (
            <label
              key={w}
              className={`relative min-h-10 cursor-pointer rounded-md px-4 py-2 text-sm font-medium has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-600 ${whose === w ? "bg-white text-slate-900 shadow" : "text-slate-700 hover:text-slate-900"}`}
            >
              <input
                type="radio"
                name="settings-mode"
                value={w}
                checked={whose === w}
                onChange={() => {
                  setWhose(w);
                  setUndo(null);
                  setStatus(new Map());
                }}
                className="absolute inset-0 h-full w-full cursor-pointer opacity-0"
              />
              {label}
            </label>
          ))}
        </fieldset>
      ) : null}

      <p className="max-w-3xl text-sm text-slate-700">
        {whose === "ceiling"
          ? readOnly
            ? "What the workspace owner allows agents to use at all. You can review it here; only owners change it."
            : "What any agent in this workspace may use at all. Off here overrides everyone’s own choices; Ask here means each call waits for the approval of the person the agent acts for, and nobody can turn it on for their own agents."
          : "What agents acting for you may use. On: with your grant. Ask: each call waits for your approval of that one call. Off: never. The workspace owner’s settings come first: you can be stricter than the owner, not looser."}{" "}
        <span className="font-medium text-slate-900">
          {fmt(on)} of {fmt(data.operations.length)} on{asking ? `, ${fmt(asking)} ask each time` : ""}.
        </span>
      </p>

      {/* What happened to the last change, for everyone who cannot see the row it happened in. */}
      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>

      {bulkFailure ? (
        <Alert tone="error" title="Change not saved">
          <p>{bulkFailure.message}</p>
          <Button variant="secondary" className="mt-2" onClick={() => save.mutate(bulkFailure.save)}>
            Retry
          </Button>
        </Alert>
      ) : null}
      {undo ? (
        <div className="flex flex-wrap items-center gap-3 rounded-lg border border-green-300 bg-green-50 px-4 py-3 text-sm text-green-900">
          <span>
            <span className="font-semibold">Saved:</span> {undo.what}.
          </span>
          <Button
            variant="secondary"
            disabled={save.isPending}
            onClick={() => save.mutate({ whose: undo.whose, changes: undo.changes, kind: "undo", what: `undo: ${fmt(undo.changes.length)} operations back as they were` })}
          >
            Undo
          </Button>
        </div>
      ) : null}
      {detail.isError ? <Alert tone="error" title="Could not refresh this realm">{detail.error.message}</Alert> : null}
      {ask ? (
        <Confirm
          question={ask.question}
          onCancel={() => {
            bulkOpener.current = null;
            setAsk(null);
          }}
          onConfirm={() => {
            save.mutate(ask.save);
            setAsk(null);
          }}
        />
      ) : null}

      <div className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 lg:flex-row lg:items-end">
        <div role="search" aria-label="Filter operations" className="flex flex-1 flex-col gap-3 sm:flex-row">
          <Field id="op-search" label="Search operations" className="flex-1">
            <Input id="op-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} autoComplete="off" placeholder="e.g. delete repository, comment, send" />
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
          <div className="flex flex-wrap gap-2" role="group" aria-label="Change many at once">
            <Button variant="secondary" onClick={() => bulk(shown, "on", "")} disabled={shown.length === 0 || pendingAny}>
              Turn {shown.length === data.operations.length ? "all" : `these ${fmt(shown.length)}`} on
            </Button>
            {shown.some((o) => o.risk !== "read") ? (
              <Button variant="secondary" onClick={() => bulk(shown, "ask", "")} disabled={pendingAny}>
                Ask for {shown.length === data.operations.length ? "all" : `these ${fmt(shown.length)}`}
              </Button>
            ) : null}
            <Button variant="secondary" onClick={() => bulk(shown, "off", "")} disabled={shown.length === 0 || pendingAny}>
              Turn {shown.length === data.operations.length ? "all" : `these ${fmt(shown.length)}`} off
            </Button>
          </div>
        ) : null}
      </div>

      {!readOnly ? (
        <div className="flex flex-wrap gap-x-6 gap-y-2 text-sm" role="group" aria-label="Change by risk level">
          {risks.map((r) => {
            const ofRisk = data.operations.filter((o) => o.risk === r);
            if (ofRisk.length === 0) return null;
            const word = riskWords[r].label.toLowerCase();
            return (
              <div key={r} className="flex items-center gap-2">
                <RiskBadge risk={r} />
                <span className="text-slate-700">{fmt(ofRisk.length)}</span>
                <Button variant="ghost" className="min-h-8 px-2 py-1" disabled={pendingAny} onClick={() => bulk(ofRisk, "on", word)} aria-label={`All on: ${word} operations`}>
                  All on
                </Button>
                {r !== "read" ? (
                  <Button variant="ghost" className="min-h-8 px-2 py-1" disabled={pendingAny} onClick={() => bulk(ofRisk, "ask", word)} aria-label={`Ask for all: ${word} operations`}>
                    Ask for all
                  </Button>
                ) : null}
                <Button variant="ghost" className="min-h-8 px-2 py-1" disabled={pendingAny} onClick={() => bulk(ofRisk, "off", word)} aria-label={`All off: ${word} operations`}>
                  All off
                </Button>
              </div>
            );
          })}
        </div>
      ) : null}

      {!searching && data.areas.length > 1 ? (
        <nav aria-label="Areas of this realm" className="rounded-lg border border-slate-200 bg-white p-3 text-sm">
          <p className="font-medium text-slate-900">Jump to an area</p>
          <ul className="mt-1 flex max-h-40 flex-wrap gap-x-4 gap-y-1 overflow-y-auto">
            {data.areas.map((a) => (
              <li key={a.id}>
                <a
                  href={`#area-${a.id}`}
                  className="text-brand-700 underline"
                  onClick={(e) => {
                    e.preventDefault();
                    setOpen((s) => new Set([...s, a.id]));
                    setJumpTo(a.id);
                  }}
                >
                  {a.label} ({fmt(a.count)})
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}

      <p className="text-sm text-slate-600" aria-live="polite">
        {searching
          ? `${rankedKeys.length ? "Best matches first. " : ""}Showing ${fmt(shown.length)} of ${fmt(data.operations.length)} operations.`
          : shown.length === data.operations.length
            ? `${fmt(shown.length)} operations${data.areas.length > 1 ? ` in ${data.areas.length} areas` : ""}.`
            : `Showing ${fmt(shown.length)} of ${fmt(data.operations.length)} operations.`}
      </p>

      {data.operations.length === 0 ? (
        <EmptyState title="This realm offers no operations" />
      ) : shown.length === 0 ? (
        <EmptyState title="No operation matches">Try other words, or show all risks.</EmptyState>
      ) : (
        <Rows
          // A new search starts at its best match: a fresh scroller, scrolled to the top.
          key={searching ? `q:${deferredQuery}` : "areas"}
          rows={rows}
          big={big}
          whose={whose}
          canCeiling={canCeiling}
          readOnly={readOnly}
          status={status}
          onChange={change}
          onRetry={(s) => save.mutate(s.save)}
          onArea={(id) => setOpen((s) => (s.has(id) ? new Set([...s].filter((x) => x !== id)) : new Set([...s, id])))}
          jumpTo={jumpTo}
          onJumped={() => setJumpTo(null)}
        />
      )}
    </div>
  );
}

/** The detail with new operation states, and the card's counts recomputed from them (no reload needed). */
function withOperations(d: RealmDetailView, operations: OperationView[]): RealmDetailView {
  return { ...d, operations, card: { ...d.card, operations: countsOf(operations, d.card.operations) } };
}

/**
 * A modal question before changing many operations at once: the dialog element traps focus and Escape cancels.
 * Closed either way, the focus goes back to the button that asked (the dialog leaves the page, so the browser
 * cannot give it back by itself).
 */
function Confirm({ question, onConfirm, onCancel }: { question: string; onConfirm: () => void; onCancel: () => void }) {
  return (
    <ConfirmDialog title={question} confirmLabel={`Yes, ${question.replace(/\?$/, "").replace(/^(Turn|Set)/, (w) => w.toLowerCase())}`} undoable onConfirm={onConfirm} onCancel={onCancel}>
      <p>You can undo this right after it is saved.</p>
    </ConfirmDialog>
  );
}

type RowsProps = {
  rows: Row[];
  big: boolean;
  whose: Whose;
  canCeiling: boolean;
  readOnly: boolean;
  status: Map<string, Status>;
  onChange: (o: OperationView, m: OperationMode) => void;
  onRetry: (s: Status) => void;
  onArea: (id: string) => void;
  jumpTo: string | null;
  onJumped: () => void;
};

function Rows({ rows, big, whose, canCeiling, readOnly, status, onChange, onRetry, onArea, jumpTo, onJumped }: RowsProps) {
  const listId = useId();
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtual = big || rows.length > BIG_REALM;
  // The virtualizer's functions change with scroll position; this component is re-rendered, not memoized.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.type === "area" ? 56 : 96),
    overscan: 8,
    enabled: virtual,
    getItemKey: (i) => {
      const r = rows[i]!;
      return r.type === "area" ? `area:${r.area.id}` : r.op.key;
    },
  });

  const focusId = (id: string) => {
    const go = (tries: number) => {
      const el = document.getElementById(id);
      if (el) el.focus();
      else if (tries > 0) requestAnimationFrame(() => go(tries - 1));
    };
    go(8);
  };

  // A jump link opened an area: bring its heading into view and focus it.
  useEffect(() => {
    if (!jumpTo) return;
    const i = rows.findIndex((r) => r.type === "area" && r.area.id === jumpTo);
    if (i >= 0) {
      if (virtual) virtualizer.scrollToIndex(i, { align: "start" });
      focusId(`area-${jumpTo}`);
    }
    onJumped();
  }, [jumpTo, rows, virtual, virtualizer, onJumped]);

  const opIndexes = rows.flatMap((r, i) => (r.type === "op" ? [i] : []));
  /** Up and down arrows, Home and End move between the rows' controls, scrolling virtual rows into existence first. */
  const moveFocus = (from: number) => (e: KeyboardEvent<HTMLButtonElement>) => {
    const at = opIndexes.indexOf(from);
    const to = e.key === "ArrowDown" ? at + 1 : e.key === "ArrowUp" ? at - 1 : e.key === "Home" ? 0 : e.key === "End" ? opIndexes.length - 1 : null;
    if (to === null || to < 0 || to >= opIndexes.length) return;
    e.preventDefault();
    const row = opIndexes[to]!;
    if (virtual) virtualizer.scrollToIndex(row, { align: "auto" });
    focusId(`${listId}-switch-${row}`);
  };

  const body = (r: Row, i: number) =>
    r.type === "area" ? (
      <AreaHeading row={r} onToggle={() => onArea(r.area.id)} />
    ) : (
      <OperationBody
        op={r.op}
        index={i}
        idBase={listId}
        whose={whose}
        canCeiling={canCeiling}
        readOnly={readOnly}
        status={status.get(r.op.key)}
        onChange={onChange}
        onRetry={onRetry}
        onKeyDown={moveFocus(i)}
      />
    );

  if (!virtual) {
    return (
      <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
        {rows.map((r, i) => (
          <li key={r.type === "area" ? `area:${r.area.id}` : r.op.key}>{body(r, i)}</li>
        ))}
      </ul>
    );
  }
  return (
    <div ref={scrollRef} className="h-[70vh] overflow-auto rounded-lg border border-slate-200 bg-white" data-testid="operation-scroller">
      <ul aria-label={`${rows.length} rows`} style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((v) => (
          <li
            key={v.key}
            data-index={v.index}
            ref={virtualizer.measureElement}
            aria-setsize={rows.length}
            aria-posinset={v.index + 1}
            className="absolute left-0 top-0 w-full border-b border-slate-200"
            style={{ transform: `translateY(${v.start}px)` }}
          >
            {body(rows[v.index]!, v.index)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** An area's heading: a button that opens or closes its operations, with how many it holds. */
function AreaHeading({ row, onToggle }: { row: Extract<Row, { type: "area" }>; onToggle: () => void }) {
  return (
    <h3 className="bg-slate-50">
      <button
        type="button"
        id={`area-${row.area.id}`}
        aria-expanded={row.open}
        onClick={onToggle}
        className="flex min-h-12 w-full items-center justify-between gap-3 px-4 py-2 text-left text-sm font-semibold text-slate-900 hover:bg-slate-100"
      >
        <span>
          {row.area.label} <span className="font-normal text-slate-600">({fmt(row.shown)} operation{row.shown === 1 ? "" : "s"})</span>
        </span>
        <span aria-hidden="true" className="text-slate-600">
          {row.open ? "▾" : "▸"}
        </span>
      </button>
    </h3>
  );
}

type RowProps = {
  op: OperationView;
  index: number;
  idBase: string;
  whose: Whose;
  canCeiling: boolean;
  readOnly: boolean;
  status: Status | undefined;
  onChange: (o: OperationView, m: OperationMode) => void;
  onRetry: (s: Status) => void;
  onKeyDown: (e: KeyboardEvent<HTMLButtonElement>) => void;
};

const statusWords = { pending: "Saving…", saved: "Saved", failed: "Not saved" } as const;
const badgeTone = { off: "slate", ask: "amber", on: "green" } as const;
const rankOf: Record<OperationMode, number> = { off: 0, ask: 1, on: 2 };

/** Why the row's control is bounded or differs from the other side's, in words (null: nothing to say). */
function noteOf(op: OperationView, whose: Whose, canCeiling: boolean): string | null {
  if (blocked(op, whose)) return "Off for the whole workspace by its owner.";
  if (whose === "choice") {
    if (op.ceiling_mode === "ask" && op.risk !== "read")
      return canCeiling ? "You set this to ask for the whole workspace: here you can turn it off, not on." : "The owner set this to ask: you can turn it off, not on.";
    return op.mode === "off" ? "Off for your agents." : null;
  }
  if (op.ceiling_mode === "off" || rankOf[op.choice_mode] >= rankOf[op.ceiling_mode]) return null;
  return op.choice_mode === "off" ? "You turned this off for your own agents." : "Your own agents ask you each time.";
}

function OperationBody({ op, index, idBase, whose, canCeiling, readOnly, status, onChange, onRetry, onKeyDown }: RowProps) {
  const labelId = `${idBase}-label-${index}`;
  const noteId = `${idBase}-note-${index}`;
  const statusId = `${idBase}-status-${index}`;
  const isBlocked = blocked(op, whose);
  // A blocked operation is off for the reader's agents whatever their own choice says: show it off.
  const value: OperationMode = isBlocked ? "off" : shownOf(op, whose);
  const note = noteOf(op, whose, canCeiling);
  const shownStatus = status && status.save.whose === whose ? status : undefined;
  const describedBy = [note ? noteId : null, shownStatus ? statusId : null].filter(Boolean).join(" ") || undefined;
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
        <DescriptionMarkdown text={op.description} className="mt-0.5 break-words text-sm text-slate-700" />
        <p className="mt-0.5 break-all text-xs text-slate-600">
          <code>{op.key}</code>
          {op.kinds.length ? <> · on {op.kinds.join(", ")}</> : <> · whole realm</>}
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-3 sm:max-w-[22rem] sm:justify-end">
        {note ? (
          <span id={noteId} className={`text-xs ${isBlocked ? "font-medium text-red-800" : "text-slate-600"} sm:text-right`}>
            {note}
          </span>
        ) : null}
        {shownStatus ? (
          <span
            id={statusId}
            data-testid="save-status"
            className={`text-xs font-medium ${shownStatus.state === "failed" ? "text-red-800" : shownStatus.state === "saved" ? "text-green-800" : "text-slate-700"}`}
          >
            {statusWords[shownStatus.state]}
          </span>
        ) : null}
        {shownStatus?.state === "failed" && shownStatus.save.kind === "single" ? (
          <Button variant="secondary" className="min-h-8 px-2 py-1 text-xs" onClick={() => onRetry(shownStatus)} aria-label={`Retry: ${op.label}`}>
            Retry
          </Button>
        ) : null}
        {readOnly ? (
          <Badge tone={badgeTone[value]}>{value === "ask" ? "Ask each time" : modeLabel[value]}</Badge>
        ) : op.risk === "read" ? (
          <Switch
            id={`${idBase}-switch-${index}`}
            checked={value !== "off"}
            labelledBy={labelId}
            describedBy={describedBy}
            disabled={isBlocked}
            busy={shownStatus?.state === "pending"}
            onChange={(v) => onChange(op, v ? "on" : "off")}
            onKeyDown={onKeyDown}
          />
        ) : (
          <ModePicker
            focusId={`${idBase}-switch-${index}`}
            value={value}
            labelledBy={labelId}
            describedBy={describedBy}
            isAllowed={(m) => !isBlocked && allowed(op, whose, m)}
            busy={shownStatus?.state === "pending"}
            onChange={(m) => onChange(op, m)}
            onRowKeyDown={onKeyDown}
          />
        )}
      </div>
    </div>
  );
}

const pickedStyle: Record<OperationMode, string> = {
  off: "bg-slate-700 text-white shadow",
  ask: "bg-amber-100 text-amber-950 shadow ring-1 ring-amber-400",
  on: "bg-brand-600 text-white shadow",
};

/**
 * Off / Ask / On for one operation: a radio group of three buttons, named by the operation's label. One tab stop
 * (the picked mode); left and right arrows pick the next mode that may be picked, as in a radio group, while up
 * and down (and Home, End) are left to the list, to move between operations. A mode that may not be picked stays
 * in the group (aria-disabled) so a screen reader still hears that it exists and, from the note, why not.
 */
function ModePicker({
  focusId,
  value,
  labelledBy,
  describedBy,
  isAllowed,
  busy,
  onChange,
  onRowKeyDown,
}: {
  focusId: string;
  value: OperationMode;
  labelledBy: string;
  describedBy?: string;
  isAllowed: (m: OperationMode) => boolean;
  busy: boolean;
  onChange: (m: OperationMode) => void;
  onRowKeyDown: (e: KeyboardEvent<HTMLButtonElement>) => void;
}) {
  const refs = useRef<Partial<Record<OperationMode, HTMLButtonElement | null>>>({});
  const onKeyDown = (from: OperationMode) => (e: KeyboardEvent<HTMLButtonElement>) => {
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!step) return onRowKeyDown(e);
    e.preventDefault();
    // The modes are a scale from strictest to loosest, so the arrows stop at its ends rather than wrap: a right
    // arrow never lands on Off, and each pick is saved at once.
    for (let i = MODES.indexOf(from) + step; i >= 0 && i < MODES.length; i += step) {
      const m = MODES[i]!;
      if (isAllowed(m)) {
        refs.current[m]?.focus();
        onChange(m);
        return;
      }
    }
  };
  return (
    <div
      role="radiogroup"
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      aria-busy={busy || undefined}
      className="inline-flex shrink-0 gap-1 rounded-lg bg-slate-100 p-1 ring-1 ring-inset ring-slate-300"
    >
      {MODES.map((m) => {
        const picked = m === value;
        const can = isAllowed(m);
        return (
          <button
            key={m}
            ref={(el) => {
              refs.current[m] = el;
            }}
            id={picked ? focusId : undefined}
            type="button"
            role="radio"
            aria-checked={picked}
            aria-disabled={!can || undefined}
            tabIndex={picked ? 0 : -1}
            onKeyDown={onKeyDown(m)}
            onClick={() => {
              if (can && !picked) onChange(m);
            }}
            className={`min-h-8 min-w-12 rounded-md px-3 py-1 text-sm font-medium ${
              picked ? pickedStyle[m] : can ? "text-slate-800 hover:bg-slate-200 hover:text-slate-900" : "cursor-not-allowed text-slate-500 line-through"
            }`}
          >
            {modeLabel[m]}
          </button>
        );
      })}
    </div>
  );
}
