"use client";
// One registered provider: its realm, URL and state (unavailable with the reason, calls paused by the breaker),
// its manifest, how it was registered; "Check manifest now" says what happened in a live region beside it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { api } from "@/components/api-client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Time } from "@/components/ui/time";
import { plural, providersKey, type Checked, type ProviderView } from "./types";

type CheckNotice = { tone: "success" | "info" | "error"; title: string; problems?: string[] };

const noticeTones = {
  success: "border-emerald-300 bg-emerald-50 text-emerald-900",
  info: "border-sky-300 bg-sky-50 text-sky-900",
  error: "border-red-300 bg-red-50 text-red-900",
} as const;

function noticeOf(c: Checked): CheckNotice {
  if (c.status === "unchanged") return { tone: "info", title: `Manifest unchanged (version ${c.provider.manifest_version}); ${c.provider.title} is ${c.provider.status === "active" ? "active" : "unavailable"}.` };
  if (c.status === "unreachable") return { tone: "error", title: `Could not read ${c.provider.title}'s manifest; nothing changed.`, problems: c.problems ?? [] };
  if (c.status === "changed") return { tone: "success", title: `Manifest updated: version ${c.provider.manifest_version} is in use from the next call.` };
  return { tone: "error", title: `${c.provider.title} is now unavailable: its manifest does not pass.`, problems: c.problems ?? [] };
}

const viaWords = (via: string) => (via === "token" ? "Registered itself (one-time token)" : via === "owner" ? "By URL" : via);

export function ProviderItem({ provider: p, onRemove }: { provider: ProviderView; onRemove: (p: ProviderView) => void }) {
  const qc = useQueryClient();
  const headingId = useId();
  const [notice, setNotice] = useState<CheckNotice | null>(null);
  const check = useMutation({
    mutationFn: () => api<Checked>(`/api/v1/remote-providers/${encodeURIComponent(p.id)}/check`, { method: "POST" }),
    onMutate: () => setNotice(null),
    onSuccess: (c) => {
      setNotice(noticeOf(c));
      void qc.invalidateQueries({ queryKey: providersKey });
    },
    onError: (err) => setNotice({ tone: "error", title: `The check did not run: ${err.message}` }),
  });
  const unavailable = p.status === "unavailable";
  return (
    <li aria-labelledby={headingId} className={`rounded-md border p-4 ${unavailable ? "border-red-300" : "border-slate-200"}`}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 id={headingId} className="font-semibold">
          <Link className="text-brand-700 underline" href={`/realms/${p.namespace}`}>
            {p.title}
          </Link>{" "}
          <code className="text-xs font-normal text-slate-700">{p.namespace}</code>
        </h3>
        <Badge tone={unavailable ? "red" : "green"}>{unavailable ? "Unavailable" : "Active"}</Badge>
      </div>
      {unavailable ? (
        <div className="mt-2 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
          <p className="font-semibold">Agents cannot use it until its manifest passes again.</p>
          {p.status_reason ? <p className="mt-1 break-words">Why: {p.status_reason}</p> : null}
        </div>
      ) : null}
      {p.breaker === "open" ? (
        <p className="mt-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm font-medium text-amber-900">
          Calls paused after repeated failures: Realmgate tries again in a moment, and one successful call resumes them.
        </p>
      ) : null}
      <dl className="mt-3 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="text-slate-600">URL</dt>
        <dd className="break-all">{p.url}</dd>
        <dt className="text-slate-600">Manifest</dt>
        <dd>
          version <code>{p.manifest_version}</code> · {plural(p.kinds, "kind")} · {plural(p.actions, "action")}
        </dd>
        <dt className="text-slate-600">Registered</dt>
        <dd>
          {viaWords(p.registered_via)}, <Time iso={p.created_at} mode="both" />
        </dd>
      </dl>
      <div className="mt-3 flex flex-wrap gap-2">
        {/* aria-disabled, not disabled, while it runs: a disabled button drops the keyboard focus to the page. */}
        <Button type="button" variant="secondary" aria-disabled={check.isPending} onClick={() => (check.isPending ? undefined : check.mutate())}>
          {check.isPending ? "Checking…" : "Check manifest now"}
          <span className="sr-only"> for {p.title}</span>
        </Button>
        <Button type="button" variant="danger" onClick={() => onRemove(p)}>
          Remove<span className="sr-only"> {p.title}</span>
        </Button>
      </div>
      {/* In the page before anything is said (screen readers skip a live region inserted with its text). */}
      <div role="status" aria-live="polite" className="mt-3 empty:mt-0">
        {notice ? (
          <div className={`rounded-md border px-3 py-2 text-sm ${noticeTones[notice.tone]}`}>
            <p className="font-medium">{notice.title}</p>
            {notice.problems?.length ? (
              <ul className="mt-1 list-disc space-y-1 pl-5 break-words">
                {notice.problems.slice(0, 20).map((x, i) => (
                  <li key={i}>{x}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
      </div>
    </li>
  );
}
