"use client";
// An on/off switch: a real button with role="switch", its state in words as well as in colour. A switch that
// cannot be changed stays focusable (aria-disabled) so a keyboard user still hears why.
import type { KeyboardEvent } from "react";

export function Switch({
  checked,
  onChange,
  labelledBy,
  label,
  describedBy,
  disabled = false,
  busy = false,
  onKeyDown,
  id,
}: {
  checked: boolean;
  onChange: (next: boolean) => void;
  /** The id of the element naming what the switch turns on and off (or give `label`). */
  labelledBy?: string;
  label?: string;
  describedBy?: string;
  disabled?: boolean;
  busy?: boolean;
  onKeyDown?: (e: KeyboardEvent<HTMLButtonElement>) => void;
  id?: string;
}) {
  return (
    <button
      id={id}
      type="button"
      role="switch"
      aria-checked={checked}
      aria-labelledby={labelledBy}
      aria-label={labelledBy ? undefined : label}
      aria-describedby={describedBy}
      aria-disabled={disabled || undefined}
      aria-busy={busy || undefined}
      onKeyDown={onKeyDown}
      onClick={() => {
        if (!disabled) onChange(!checked);
      }}
      className={`group inline-flex min-h-10 shrink-0 items-center gap-2 rounded-full px-1 text-sm font-medium ${disabled ? "cursor-not-allowed text-slate-500" : "text-slate-800"}`}
    >
      <span
        aria-hidden="true"
        className={`relative inline-flex h-6 w-11 items-center rounded-full transition-colors ${
          checked ? (disabled ? "bg-slate-400" : "bg-brand-600") : disabled ? "bg-slate-200" : "bg-slate-300 group-hover:bg-slate-400"
        }`}
      >
        <span className={`inline-block h-5 w-5 rounded-full bg-white shadow transition-transform ${checked ? "translate-x-5" : "translate-x-0.5"}`} />
      </span>
      <span aria-hidden="true" className="w-7 text-left">
        {checked ? "On" : "Off"}
      </span>
    </button>
  );
}
