import type { ReactNode } from "react";

const tones = {
  slate: "bg-slate-100 text-slate-800 ring-slate-300",
  blue: "bg-sky-50 text-sky-900 ring-sky-300",
  green: "bg-emerald-50 text-emerald-900 ring-emerald-300",
  amber: "bg-amber-50 text-amber-900 ring-amber-300",
  red: "bg-red-50 text-red-800 ring-red-300",
  violet: "bg-violet-50 text-violet-900 ring-violet-300",
} as const;
export type BadgeTone = keyof typeof tones;

export function Badge({ tone = "slate", children, title }: { tone?: BadgeTone; children: ReactNode; title?: string }) {
  return (
    <span title={title} className={`inline-flex items-center whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}>
      {children}
    </span>
  );
}
