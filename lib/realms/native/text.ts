// Small text helpers for labels and summaries.

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
/** Runs of whitespace folded to one space, trimmed. */
export const squash = (s: string) => s.replace(/\s+/g, " ").trim();
/** At most n UTF-16 units, never splitting a surrogate pair. */
export const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).replace(/[\uD800-\uDBFF]$/, "")}…` : s);
/** One line of at most `max` characters, or undefined when there is no text. */
export function preview(text: string, max: number): string | undefined {
  const line = squash(text);
  if (!line) return undefined;
  return cut(line, max);
}
