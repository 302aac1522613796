// An operation's description as its author wrote it (imported APIs write Markdown), rendered safely: no raw
// HTML (it is dropped, never parsed), no images, links only to http(s) and opened without the opener or referrer.
import Markdown, { type Components, type UrlTransform } from "react-markdown";

/** Only http(s) links survive; anything else (javascript:, data:, relative paths) loses its target. */
export const safeUrl: UrlTransform = (url) => {
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : "";
  } catch {
    return "";
  }
};

const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a href={href} target="_blank" rel="noopener noreferrer" className="text-brand-700 underline">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  p: ({ children }) => <p className="mt-0.5 first:mt-0">{children}</p>,
  ul: ({ children }) => <ul className="mt-0.5 list-disc pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="mt-0.5 list-decimal pl-5">{children}</ol>,
  code: ({ children }) => <code className="rounded bg-slate-100 px-1 text-[0.85em]">{children}</code>,
  pre: ({ children }) => <pre className="mt-1 overflow-x-auto whitespace-pre-wrap break-words">{children}</pre>,
  // Headings inside one operation's description would break the page's outline: shown as strong text.
  h1: ({ children }) => <strong className="block">{children}</strong>,
  h2: ({ children }) => <strong className="block">{children}</strong>,
  h3: ({ children }) => <strong className="block">{children}</strong>,
  h4: ({ children }) => <strong className="block">{children}</strong>,
  h5: ({ children }) => <strong className="block">{children}</strong>,
  h6: ({ children }) => <strong className="block">{children}</strong>,
};

export function DescriptionMarkdown({ text, className }: { text: string; className?: string }) {
  return (
    <div className={className}>
      <Markdown skipHtml disallowedElements={["img"]} unwrapDisallowed={false} urlTransform={safeUrl} components={components}>
        {text}
      </Markdown>
    </div>
  );
}
