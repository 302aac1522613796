// Plain text from an OpenAPI document's markdown, for cards, catalog nodes and schema descriptions.

/** Markdown (and HTML) markup dropped: images and links keep their text, emphasis and code their content. */
export function plainText(md: string): string {
  return md
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/!?\[([^\]]*)\]\[[^\]]*\]/g, "$1")
    .replace(/`{1,3}([^`]+)`{1,3}/g, "$1")
    .replace(/([*_]{1,3})([^*_]+)\1/g, "$2")
    .replace(/<[^>]+>/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

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

/** The longest purpose a realm keeps (the import body's `description` bound). */
export const MAX_PURPOSE = 300;

/**
 * A service's purpose from its `info.description`: the first sentence of the first paragraph that is prose —
 * headings, rules, tables, code fences, block quotes' markers and list bullets skipped or dropped — with markdown
 * stripped (links keep their text, emphasis and code their content), at most `max` characters. "" when there
 * is no prose.
 */
export function firstSentence(md: unknown, max = MAX_PURPOSE): string {
  if (typeof md !== "string") return "";
  const text = md.replace(/\r\n?/g, "\n").replace(/```[\s\S]*?(```|$)/g, "\n\n");
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block
      .split("\n")
      .map((l) => l.trim())
      // Headings (ATX and setext underlines), rules and table rows are not prose.
      .filter((l) => l && !/^#{1,6}(\s|$)/.test(l) && !/^([-=*_]\s*){3,}$/.test(l) && !/^\|/.test(l))
      .map((l) => l.replace(/^>\s?/, "").replace(/^([-*+]|\d+[.)])\s+/, ""));
    const plain = plainText(lines.join(" "));
    if (!/[\p{L}\p{N}]/u.test(plain)) continue;
    // A sentence ends at . ! or ? followed by a space and a capital, digit or quote (so "e.g. this" and
    // "v1.2" do not end one), or at the end of the paragraph.
    const m = /^(.+?[.!?])(?=\s+["'(\p{Lu}\p{N}])/u.exec(plain);
    const sentence = (m ? m[1]! : plain).trim();
    return sentence.length > max ? `${sentence.slice(0, max - 1).replace(/\s+\S*$/, "")}…` : sentence;
  }
  return "";
}
