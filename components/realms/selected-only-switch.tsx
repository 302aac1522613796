"use client";
// The owner's per-realm setting "agents act only on operations they selected": an agent's object_action on an
// action it has not added to its working set (object_schema with materialize) is refused with
// operation_not_selected. Off by default. Saved at once; the switch shows the saved state, rolls back with a
// message when the server refuses, and says when the change is saved.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api, ApiError } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Switch } from "@/components/ui/switch";

export function SelectedOnlySwitch({ namespace, title, initial }: { namespace: string; title: string; initial: boolean }) {
  const qc = useQueryClient();
  const [on, setOn] = useState(initial);
  const [status, setStatus] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const labelId = useId();
  const helpId = useId();
  const save = useMutation({
    mutationFn: (next: boolean) => api<{ selected_only: boolean }>("/api/v1/ceiling", { method: "PATCH", body: { namespace, selected_only: next } }),
    onMutate: (next) => {
      setStatus(null);
      setOn(next);
      return { previous: on };
    },
    onError: (err, _next, ctx) => {
      if (ctx) setOn(ctx.previous);
      setStatus({ tone: "error", text: `Not saved: ${err instanceof ApiError ? err.message : "the server could not be reached."}` });
    },
    onSuccess: (res) => {
      setOn(res.selected_only);
      setStatus({
        tone: "ok",
        text: res.selected_only
          ? `Saved: in ${title}, agents now act only on actions they added to their working set.`
          : `Saved: in ${title}, agents may call any action they are granted, selected or not.`,
      });
      void qc.invalidateQueries({ queryKey: ["realms"] });
    },
  });
  return (
    <div className="mt-4 rounded-md border border-slate-200 p-3">
      <div className="flex items-start justify-between gap-3">
        <div>
          <p id={labelId} className="text-sm font-medium text-slate-900">
            Agents act only on operations they selected
          </p>
          <p id={helpId} className="mt-1 text-sm text-slate-700">
            An agent must add an action to its working set before calling it.
          </p>
        </div>
        <Switch checked={on} onChange={(next) => save.mutate(next)} labelledBy={labelId} describedBy={helpId} busy={save.isPending} />
      </div>
      <div aria-live="polite" className="mt-2 text-sm">
        {status?.tone === "ok" ? <p className="text-green-800">{status.text}</p> : null}
        {status?.tone === "error" ? <Alert tone="error">{status.text}</Alert> : null}
      </div>
    </div>
  );
}
