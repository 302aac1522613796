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

export function Time({ iso, mode = "absolute" }: { iso: string; mode?: "absolute" | "relative" | "both" }) {
  const abs = absolute.format(new Date(iso));
  const text = mode === "absolute" ? abs : mode === "relative" ? relativeTime(iso) : `${abs} (${relativeTime(iso)})`;
  return (
    <time dateTime={iso} title={new Date(iso).toISOString()} suppressHydrationWarning>
      {text}
    </time>
  );
}
