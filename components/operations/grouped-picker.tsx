"use client";
// The grouped operation picker: operations by realm and catalog area, each area collapsed with its counts by
// risk, select all / none per area and per realm, and long areas shown a page at a time. The risk is a badge
// beside the checkbox's label (its description), never part of its name. In a plain form (`name`), the choice
// is submitted as hidden inputs, so collapsed areas and unshown pages count too.
import { useId, useMemo, useState } from "react";
import { Badge } from "@/components/ui/badge";
import type { PickerGroup, PickerOperation, PickerRealm } from "@/lib/views/agents";
import type { Risk } from "@/lib/realms/contract";

const PAGE = 50;
/** A realm with more areas than this starts with its areas hidden. */
const OPEN_REALM_MAX_AREAS = 6;
/** A realm offering at most this many operations starts with its areas open (nothing to fold away), unless the whole picker is big. */
const OPEN_GROUPS_MAX_OPERATIONS = 30;
/** A picker holding more than this starts with every area collapsed. */
const OPEN_PICKER_MAX_OPERATIONS = 200;

const riskText: Record<Risk, string> = { read: "reads", write: "changes data", destructive: "deletes data" };
const riskTone = { read: "blue", write: "amber", destructive: "red" } as const;

type Counts = PickerGroup["counts"];

function countsText(c: Counts): string {
  const parts = [c.read ? `${c.read} read` : null, c.write ? `${c.write} change data` : null, c.destructive ? `${c.destructive} delete data` : null].filter(Boolean);
  return parts.join(" · ") || "none";
}

const total = (c: Counts) => c.read + c.write + c.destructive;

/** What a bulk "select all" ticks: what is not held already and not for exact grants only. */
const bulk = (ops: PickerOperation[]) => ops.filter((o) => !o.approved && !o.exactOnly).map((o) => o.value);

export function initialSelection(realms: PickerRealm[]): Set<string> {
  return new Set(realms.flatMap((r) => r.groups.flatMap((g) => g.operations.filter((o) => o.checked && !o.approved).map((o) => o.value))));
}

export function GroupedPicker({
  realms,
  name,
  selected: controlled,
  onChange,
  label = "Operations",
}: {
  realms: PickerRealm[];
  /** Form field name: the selection is submitted as hidden inputs with this name. */
  name?: string;
  selected?: Set<string>;
  onChange?: (next: Set<string>) => void;
  label?: string;
}) {
  const [own, setOwn] = useState<Set<string>>(() => initialSelection(realms));
  const selected = controlled ?? own;
  const offered = realms.reduce((n, r) => n + r.groups.reduce((m, g) => m + g.operations.length, 0), 0);
  const set = (next: Set<string>) => {
    if (!controlled) setOwn(next);
    onChange?.(next);
  };
  const change = (values: string[], on: boolean) => {
    const next = new Set(selected);
    for (const v of values) {
      if (on) next.add(v);
      else next.delete(v);
    }
    set(next);
  };
  return (
    <div role="group" aria-label={label} className="flex flex-col gap-4">
      {realms.map((r) => (
        <RealmSection key={r.namespace} realm={r} selected={selected} change={change} small={offered <= OPEN_PICKER_MAX_OPERATIONS} />
      ))}
      {name ? [...selected].map((v) => <input key={v} type="hidden" name={name} value={v} />) : null}
    </div>
  );
}

function RealmSection({ realm, selected, change, small }: { realm: PickerRealm; selected: Set<string>; change: (values: string[], on: boolean) => void; small: boolean }) {
  const id = useId();
  const [open, setOpen] = useState(realm.groups.length <= OPEN_REALM_MAX_AREAS);
  const all = useMemo(() => realm.groups.flatMap((g) => g.operations), [realm]);
  const chosen = all.filter((o) => selected.has(o.value) || o.approved).length;
  return (
    <section aria-labelledby={`${id}-title`} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-realm={realm.namespace}>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <h3 id={`${id}-title`} className="text-base font-semibold">
            {realm.title}
          </h3>
          <p className="text-sm text-slate-700">
            {total(realm.counts)} operations in {realm.title}: {countsText(realm.counts)}. <span className="font-medium">{chosen} chosen.</span>
          </p>
        </div>
        <div className="flex shrink-0 gap-2">
          <button type="button" className={smallButton} onClick={() => change(bulk(all), true)} aria-label={`Select all in ${realm.title}`}>
            Select all
          </button>
          <button type="button" className={smallButton} onClick={() => change(all.map((o) => o.value), false)} aria-label={`Select none in ${realm.title}`}>
            None
          </button>
        </div>
      </div>
      {realm.groups.length > OPEN_REALM_MAX_AREAS ? (
        <button type="button" className={`${smallButton} mt-2`} aria-expanded={open} aria-controls={`${id}-areas`} onClick={() => setOpen((o) => !o)}>
          {open ? `Hide the ${realm.groups.length} areas` : `Show the ${realm.groups.length} areas`} of {realm.title}
        </button>
      ) : null}
      {open ? (
        <ul id={`${id}-areas`} className="mt-2 divide-y divide-slate-100">
          {realm.groups.map((g) => (
            <li key={g.id}>
              <Group realm={realm} group={g} selected={selected} change={change} startOpen={small && all.length <= OPEN_GROUPS_MAX_OPERATIONS} />
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

const smallButton =
  "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-700";

function Group({
  realm,
  group,
  selected,
  change,
  startOpen,
}: {
  realm: PickerRealm;
  group: PickerGroup;
  selected: Set<string>;
  change: (values: string[], on: boolean) => void;
  startOpen: boolean;
}) {
  const id = useId();
  const [open, setOpen] = useState(startOpen);
  const [shown, setShown] = useState(PAGE);
  const ops = group.operations;
  const chosen = ops.filter((o) => selected.has(o.value) || o.approved).length;
  return (
    <div className="py-1.5" data-group={group.area}>
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 pl-0">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={`${id}-ops`}
          onClick={() => setOpen((o) => !o)}
          className="flex w-full min-w-0 items-start gap-2 rounded px-1 py-1 text-left text-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-sky-700 sm:w-auto sm:flex-1"
        >
          <span aria-hidden="true" className="w-3 shrink-0 text-slate-500">
            {open ? "▾" : "▸"}
          </span>
          <span className="flex min-w-0 flex-col sm:flex-row sm:flex-wrap sm:gap-x-2">
            <span className="font-medium text-slate-900">{group.area}</span>
            <span className="text-slate-600">
              {countsText(group.counts)} · {chosen} of {ops.length} chosen
            </span>
          </span>
        </button>
        <button type="button" className={smallButton} onClick={() => change(bulk(ops), true)} aria-label={`Select all in ${group.area} (${realm.title})`}>
          All
        </button>
        <button type="button" className={smallButton} onClick={() => change(ops.map((o) => o.value), false)} aria-label={`Select none in ${group.area} (${realm.title})`}>
          None
        </button>
      </div>
      {open ? (
        <div id={`${id}-ops`} className="mt-1 pl-6">
          <ul className="flex flex-col gap-1.5">
            {ops.slice(0, shown).map((o, i) => (
              <li key={o.value} className="flex flex-wrap items-center gap-2 text-sm">
                <input
                  id={`${id}-op-${i}`}
                  type="checkbox"
                  className="h-4 w-4"
                  checked={o.approved || selected.has(o.value)}
                  disabled={o.approved}
                  onChange={(e) => change([o.value], e.target.checked)}
                  aria-describedby={`${id}-risk-${i}`}
                />
                <label htmlFor={`${id}-op-${i}`}>{o.label}</label>
                <span id={`${id}-risk-${i}`} className="inline-flex items-center gap-1">
                  <Badge tone={riskTone[o.risk]}>{riskText[o.risk]}</Badge>
                  {o.approved ? <span className="text-xs text-slate-600">(already approved)</span> : null}
                  {o.exactOnly && !o.approved ? <span className="text-xs text-slate-600">approve explicitly (not in select all)</span> : null}
                </span>
              </li>
            ))}
          </ul>
          {ops.length > shown ? (
            <button type="button" className={`${smallButton} mt-2`} onClick={() => setShown((s) => s + PAGE)}>
              Show {Math.min(PAGE, ops.length - shown)} more of {ops.length - shown} in {group.area}
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
