"use client";
// A read-only value shown once (a signing secret, a registration token) with a Copy button that says whether it
// copied. The field is selectable too, for browsers without clipboard access.
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";

export function CopyField({ label, value, hint }: { label: string; value: string; hint?: string }) {
  const id = useId();
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-900">
        {label}
      </label>
      <div className="mt-1 flex flex-col gap-2 sm:flex-row">
        <input
          id={id}
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
          aria-describedby={hint ? `${id}-hint` : undefined}
          className="block min-h-10 w-full min-w-0 rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-xs text-slate-900"
          spellCheck={false}
          autoComplete="off"
        />
        <Button
          type="button"
          variant="secondary"
          className="shrink-0"
          aria-label={`Copy ${label.toLowerCase()}`}
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(value);
              setCopied("yes");
            } catch {
              setCopied("no");
            }
          }}
        >
          Copy
        </Button>
      </div>
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
      <p role="status" className="mt-1 text-xs text-slate-700">
        {copied === "yes" ? `${label} copied.` : copied === "no" ? "Could not copy: select the field and copy it yourself." : ""}
      </p>
    </div>
  );
}
