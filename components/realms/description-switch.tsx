"use client";
// The owner's per-realm setting "agents may read this realm's description without asking" (provider_about and
// object_schema without a grant). Saved at once; the switch shows the saved state, rolls back with a message when
// the server refuses, and says when the change is saved.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api, ApiError } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Switch } from "@/components/ui/switch";

export function DescriptionSwitch({ namespace, title, initial }: { namespace: string; title: string; initial: boolean }) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(initial);
  const [status, setStatus] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const labelId = useId();
  const helpId = useId();
  const save = useMutation({
    mutationFn: (next: boolean) => api<{ open_description: boolean }>("/api/v1/ceiling", { method: "PATCH", body: { namespace, open_description: next } }),
    onMutate: (next) => {
      setStatus(null);
      setOpen(next);
      return { previous: open };
    },
    onError: (err, _next, ctx) => {
      if (ctx) setOpen(ctx.previous);
      setStatus({ tone: "error", text: `Not saved: ${err instanceof ApiError ? err.message : "the server could not be reached."}` });
    },
    onSuccess: (res) => {
      setOpen(res.open_description);
      setStatus({ tone: "ok", text: res.open_description ? `Saved: agents may read what ${title} offers without asking.` : `Saved: agents now ask before reading what ${title} offers.` });
      void qc.invalidateQueries({ queryKey: ["realms"] });
    },
  });
  return (
    <div className="mt-4 rounded-md border border-slate-200 p-3">
      <div className="flex items-start justify-between gap-3">
        <div>
          <p id={labelId} className="text-sm font-medium text-slate-900">
            Agents may read this realm&apos;s description without asking
          </p>
          <p id={helpId} className="mt-1 text-sm text-slate-700">
            What {title} is and what it offers (provider_about, object_schema). Using it still needs your people&apos;s approval.
          </p>
        </div>
        <Switch checked={open} onChange={(next) => save.mutate(next)} labelledBy={labelId} describedBy={helpId} busy={save.isPending} />
      </div>
      <div aria-live="polite" className="mt-2 text-sm">
        {status?.tone === "ok" ? <p className="text-green-800">{status.text}</p> : null}
        {status?.tone === "error" ? <Alert tone="error">{status.text}</Alert> : null}
      </div>
    </div>
  );
}
