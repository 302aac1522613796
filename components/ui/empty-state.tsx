import type { ReactNode } from "react";

/** What a person sees when a list has nothing in it yet: what it would hold, and what to do next. */
export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="rounded-lg border border-dashed border-slate-300 bg-white px-4 py-8 text-center">
      <p className="font-medium text-slate-900">{title}</p>
      {children ? <div className="mx-auto mt-1 max-w-prose text-sm text-slate-600">{children}</div> : null}
      {action ? <div className="mt-4">{action}</div> : null}
    </div>
  );
}
