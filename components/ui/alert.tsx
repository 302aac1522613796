import type { ReactNode, Ref } from "react";

const tones = {
  error: "border-red-300 bg-red-50 text-red-900",
  info: "border-sky-300 bg-sky-50 text-sky-900",
  success: "border-emerald-300 bg-emerald-50 text-emerald-900",
  warning: "border-amber-300 bg-amber-50 text-amber-900",
} as const;
export type AlertTone = keyof typeof tones;

export function Alert({ tone = "info", title, children }: { tone?: AlertTone; title?: string; children?: ReactNode }) {
  return (
    <div role={tone === "error" ? "alert" : "status"} className={`rounded-md border px-4 py-3 text-sm ${tones[tone]}`}>
      {title ? <p className="font-semibold">{title}</p> : null}
      {children ? <div className={title ? "mt-1" : ""}>{children}</div> : null}
    </div>
  );
}

export type Notice = { tone: "success" | "warning"; title: string; text?: string };

/**
 * The outcome of a change that removes its own button (a revoke, a disconnect): a polite live region that is in
 * the page before anything is said, because screen readers often skip a region inserted together with its text.
 * It can take focus (tabIndex -1) so the keyboard has somewhere to land when the control it used is gone. Kept
 * in the page while empty (it has no height then): hiding it would make it a new region again.
 */
export function LiveNotice({ notice, ref, className = "" }: { notice: Notice | null; ref?: Ref<HTMLDivElement>; className?: string }) {
  return (
    <div ref={ref} role="status" aria-live="polite" tabIndex={-1} className="rounded-md">
      {notice ? (
        <div className={`rounded-md border px-4 py-3 text-sm ${tones[notice.tone]} ${className}`}>
          <p className="font-semibold">{notice.title}</p>
          {notice.text ? <p className="mt-1">{notice.text}</p> : null}
        </div>
      ) : null}
    </div>
  );
}
