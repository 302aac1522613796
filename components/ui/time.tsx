// Dates in the reader's own time zone. Server and browser may disagree on the zone, so the text is allowed
// to differ at hydration; the exact instant is always in dateTime and the tooltip.
const absolute = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });
const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

const steps: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

export function relativeTime(iso: string, now = Date.now()): string {
  const diff = new Date(iso).getTime() - now;
  for (const [unit, ms] of steps) if (Math.abs(diff) >= ms) return relative.format(Math.round(diff / ms), unit);
  return diff >= 0 ? "in a moment" : "just now";
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A line's whole value is one instant (`2026-12-10T16:00:00Z`, with its zone): the page shows it as a date and time
 * in the reader's zone, the exact value in its tooltip. A date without a time, or text around it, stays as written.
 */
export const isInstant = (value: string): boolean => INSTANT.test(value) && !Number.isNaN(Date.parse(value));

export function Time({ iso, mode = "absolute" }: { iso: string; mode?: "absolute" | "relative" | "both" }) {
  const abs = absolute.format(new Date(iso));
  const text = mode === "absolute" ? abs : mode === "relative" ? relativeTime(iso) : `${abs} (${relativeTime(iso)})`;
  return (
    <time dateTime={iso} title={new Date(iso).toISOString()} suppressHydrationWarning>
      {text}
    </time>
  );
}
