// Rendering a document (title + tabs) to the export formats. Pure functions: no database, no delivery.
// HTML is built from escaped text only; the markdown subset understood is small on purpose, and anything
// outside it comes out as escaped text rather than as markup.

export type RenderFormat = "markdown" | "html" | "text";
export type RenderInput = { title: string; tabs: { title: string; body: string }[] };
export type Rendered = { name: string; contentType: string; bytes: Uint8Array };

const formats: Record<RenderFormat, { ext: string; contentType: string; render: (d: RenderInput) => string }> = {
  markdown: { ext: "md", contentType: "text/markdown; charset=utf-8", render: toMarkdown },
  html: { ext: "html", contentType: "text/html; charset=utf-8", render: toHtml },
  text: { ext: "txt", contentType: "text/plain; charset=utf-8", render: toText },
};

export function renderDocument(doc: RenderInput, format: RenderFormat): Rendered {
  const f = formats[format];
  return { name: `${fileStem(doc.title)}.${f.ext}`, contentType: f.contentType, bytes: new TextEncoder().encode(f.render(doc)) };
}

/** A safe, readable file name stem: lower-case ASCII words joined by dashes. */
export function fileStem(title: string): string {
  const stem = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return stem || "document";
}

export function toMarkdown(doc: RenderInput): string {
  const parts = [`# ${doc.title}`];
  for (const tab of doc.tabs) {
    parts.push(`## ${tab.title}`);
    if (tab.body.trim()) parts.push(tab.body.trim());
  }
  return parts.join("\n\n") + "\n";
}

export function toText(doc: RenderInput): string {
  const underline = (s: string, ch: string) => `${s}\n${ch.repeat(Math.max(3, [...s].length))}`;
  const parts = [underline(doc.title, "=")];
  for (const tab of doc.tabs) {
    parts.push(underline(tab.title, "-"));
    if (tab.body.trim()) parts.push(tab.body.trim());
  }
  return parts.join("\n\n") + "\n";
}

export function toHtml(doc: RenderInput): string {
  const sections = doc.tabs.map((tab) => `<section>\n<h2>${escapeHtml(tab.title)}</h2>\n${markdownToHtml(tab.body)}</section>\n`).join("");
  return (
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${escapeHtml(doc.title)}</title>\n</head>\n` +
    `<body>\n<article>\n<h1>${escapeHtml(doc.title)}</h1>\n${sections}</article>\n</body>\n</html>\n`
  );
}

const htmlEscapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => htmlEscapes[c]!);

/**
 * Block-level markdown: headings (shifted below the tab's h2), bullet and numbered lists, block quotes,
 * fenced code, rules and paragraphs.
 */
export function markdownToHtml(md: string): string {
  const lines = md.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let para: string[] = [];
  let list: { tag: "ul" | "ol"; items: string[] } | null = null;
  let quote: string[] = [];

  const flush = () => {
    if (para.length) out.push(`<p>${para.map(inline).join("\n")}</p>`);
    if (list) out.push(`<${list.tag}>\n${list.items.map((i) => `<li>${inline(i)}</li>`).join("\n")}\n</${list.tag}>`);
    if (quote.length) out.push(`<blockquote><p>${quote.map(inline).join("\n")}</p></blockquote>`);
    para = [];
    list = null;
    quote = [];
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      while (++i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) code.push(lines[i]!);
      out.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      const level = Math.min(6, heading[1]!.length + 2);
      out.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      out.push("<hr>");
      continue;
    }
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d{1,9}[.)]\s+(.*)$/.exec(line);
    const item = bullet ?? numbered;
    if (item) {
      const tag = bullet ? "ul" : "ol";
      if (!list || list.tag !== tag || para.length || quote.length) flush();
      list ??= { tag, items: [] };
      list.items.push(item[1]!);
      continue;
    }
    const quoted = /^\s{0,3}>\s?(.*)$/.exec(line);
    if (quoted) {
      if (para.length || list) flush();
      quote.push(quoted[1]!);
      continue;
    }
    if (list) list.items[list.items.length - 1] += ` ${line.trim()}`;
    else if (quote.length) quote.push(line.trim());
    else para.push(line.trim());
  }
  flush();
  return out.length ? out.join("\n") + "\n" : "";
}

/** Links only to web, mail and in-page targets: never `javascript:` or `data:`. */
const safeHref = (url: string) => /^(https?:\/\/|mailto:|#|\/(?!\/))/i.test(url);

/** Inline markdown: `code`, [links](url), **strong**, *em* / _em_. Text is escaped before markup is added. */
export function inline(text: string): string {
  let out = "";
  const token = /`([^`]+)`|\[([^\]]+)\]\(([^()\s]+)\)/g;
  let last = 0;
  for (let m = token.exec(text); m; m = token.exec(text)) {
    out += emphasis(escapeHtml(text.slice(last, m.index)));
    if (m[1] !== undefined) out += `<code>${escapeHtml(m[1])}</code>`;
    else if (safeHref(m[3]!)) out += `<a href="${escapeHtml(m[3]!)}">${emphasis(escapeHtml(m[2]!))}</a>`;
    else out += emphasis(escapeHtml(m[0]));
    last = m.index + m[0].length;
  }
  return out + emphasis(escapeHtml(text.slice(last)));
}

/** Applied to already-escaped text: the markers are ASCII punctuation that escaping leaves alone. */
function emphasis(escaped: string): string {
  return escaped
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*\w])\*(?=\S)(.+?)(?<=\S)\*(?![*\w])/g, "$1<em>$2</em>")
    .replace(/(^|[^\w])_(?=\S)(.+?)(?<=\S)_(?!\w)/g, "$1<em>$2</em>");
}
