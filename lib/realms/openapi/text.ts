// Plain text from an OpenAPI document's markdown, for cards, catalog nodes and schema descriptions.

/** One-paragraph, plain-text description: markdown links and emphasis dropped, bounded. */
export function shortText(md: unknown, max = 280): string {
  if (typeof md !== "string") return "";
  const para = md.trim().split(/\n\s*\n/)[0] ?? "";
  const plain = para
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`]{1,3}([^*_`]+)[*_`]{1,3}/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > max ? `${plain.slice(0, max - 1).replace(/\s+\S*$/, "")}…` : plain;
}
