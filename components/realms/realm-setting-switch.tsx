"use client";
// One owner's per-realm setting as a switch (PATCH /api/v1/ceiling with `{namespace, [field]: next}`): saved at
// once; the switch shows the saved state, rolls back with a message when the server refuses, and says when the
// change is saved. The description switch and the selected-only switch are two of these.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type ReactNode } from "react";
import { api, ApiError } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Switch } from "@/components/ui/switch";

export type RealmSettingField = "open_description" | "selected_only";

export function RealmSettingSwitch({
  namespace,
  field,
  initial,
  label,
  help,
  saved,
}: {
  namespace: string;
  field: RealmSettingField;
  initial: boolean;
  label: ReactNode;
  help: ReactNode;
  /** What was saved, in a sentence, for the new value. */
  saved: (value: boolean) => string;
}) {
  const qc = useQueryClient();
  const [on, setOn] = useState(initial);
  const [status, setStatus] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const labelId = useId();
  const helpId = useId();
  const save = useMutation({
    mutationFn: (next: boolean) => api<Partial<Record<RealmSettingField, boolean>>>("/api/v1/ceiling", { method: "PATCH", body: { namespace, [field]: next } }),
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
      const value = res[field] === true;
      setOn(value);
      setStatus({ tone: "ok", text: saved(value) });
      void qc.invalidateQueries({ queryKey: ["realms"] });
    },
  });
  return (
    <div className="mt-4 rounded-md border border-slate-200 p-3">
      <div className="flex items-start justify-between gap-3">
        <div>
          <p id={labelId} className="text-sm font-medium text-slate-900">
            {label}
          </p>
          <p id={helpId} className="mt-1 text-sm text-slate-700">
            {help}
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
