// "The request that asked for this": the one call that made the consent request, as its realm presents it
// (names the deciding person can see, the text the agent wants to write). Text only: React escapes every value.
import { isInstant, Time } from "@/components/ui/time";
import type { PresentedCall } from "@/lib/views/consent";

/** A presented call's lines, `label: value`, as text (the consent and approval pages alike); an instant as a date and time. */
export function PresentedLines({ lines, className = "" }: { lines: { label: string; value: string }[]; className?: string }) {
  if (!lines.length) return null;
  return (
    <dl className={`grid gap-x-4 gap-y-2 text-sm sm:grid-cols-[minmax(6rem,auto)_1fr] ${className}`}>
      {lines.map((l, i) => (
        <div key={`${l.label}-${i}`} className="contents">
          <dt className="font-medium text-slate-700">{l.label}</dt>
          <dd className="min-w-0 whitespace-pre-wrap break-words text-slate-900">{isInstant(l.value) ? <Time iso={l.value} mode="both" /> : l.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function PresentedCallSection({ presented }: { presented: PresentedCall | null }) {
  return (
    <section aria-labelledby="asked-heading" className="rounded-lg border border-slate-200 bg-white p-5">
      <h2 id="asked-heading" className="font-semibold">
        The request that asked for this
      </h2>
      <p className="mt-1 text-sm text-slate-600">What the agent tried to do just now. Nothing has happened yet: it runs only if you approve and the agent retries.</p>
      {presented === null ? (
        <p className="mt-3 text-sm text-slate-700">The details of this call were not kept.</p>
      ) : presented.kind === "too_large" ? (
        <p className="mt-3 text-sm text-slate-700">
          The call was too large to keep here ({Math.ceil(presented.bytes / 1024)} KB); what the grant allows is below.
        </p>
      ) : (
        <>
          <p className="mt-3 font-medium text-slate-900">{presented.title}</p>
          <PresentedLines lines={presented.lines} className="mt-2" />
        </>
      )}
    </section>
  );
}
