import { describe, expect, it } from "vitest";
import { fileStem, inline, markdownToHtml, renderDocument, toHtml } from "./render";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("docs export rendering", () => {
  const doc = {
    title: "Q3 planning",
    tabs: [
      { title: "Goals", body: "- Ship it\n- Keep it **safe**" },
      { title: "Timeline", body: "Beta in August." },
    ],
  };

  it("renders markdown and text with the title and every tab in order", () => {
    const md = renderDocument(doc, "markdown");
    expect(md.name).toBe("q3-planning.md");
    expect(md.contentType).toBe("text/markdown; charset=utf-8");
    expect(text(md.bytes)).toBe("# Q3 planning\n\n## Goals\n\n- Ship it\n- Keep it **safe**\n\n## Timeline\n\nBeta in August.\n");
    const txt = renderDocument(doc, "text");
    expect(txt.name).toBe("q3-planning.txt");
    expect(text(txt.bytes)).toBe("Q3 planning\n===========\n\nGoals\n-----\n\n- Ship it\n- Keep it **safe**\n\nTimeline\n--------\n\nBeta in August.\n");
  });

  it("renders HTML with structure from the markdown", () => {
    const html = text(renderDocument(doc, "html").bytes);
    expect(html).toContain("<title>Q3 planning</title>");
    expect(html).toContain("<h1>Q3 planning</h1>");
    expect(html).toContain("<h2>Goals</h2>\n<ul>\n<li>Ship it</li>\n<li>Keep it <strong>safe</strong></li>\n</ul>");
    expect(html.indexOf("<h2>Goals</h2>")).toBeLessThan(html.indexOf("<h2>Timeline</h2>"));
    expect(markdownToHtml("# Inside\n\n1. one\n2. two\n\n> quoted\n\n```\n<b>code</b>\n```")).toBe(
      "<h3>Inside</h3>\n<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n<blockquote><p>quoted</p></blockquote>\n<pre><code>&lt;b&gt;code&lt;/b&gt;</code></pre>\n",
    );
  });

  it("escapes every piece of text in HTML, titles included", () => {
    const html = toHtml({
      title: `<script>alert("t")</script> & 'co'`,
      tabs: [{ title: "<img src=x onerror=alert(1)>", body: `Hello <b>world</b> & "friends"\n\n<iframe src="//evil">` }],
    });
    expect(html).not.toMatch(/<script|<img|<iframe|<b>/);
    expect(html).toContain("<title>&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt; &amp; &#39;co&#39;</title>");
    expect(html).toContain("<h2>&lt;img src=x onerror=alert(1)&gt;</h2>");
    expect(html).toContain("<p>Hello &lt;b&gt;world&lt;/b&gt; &amp; &quot;friends&quot;</p>");
  });

  it("links only safe targets and escapes link text and URLs", () => {
    expect(inline("see [the site](https://example.com/?a=1&b=2)")).toBe('see <a href="https://example.com/?a=1&amp;b=2">the site</a>');
    expect(inline("[click](javascript:alert(1))")).not.toContain("<a");
    expect(inline('[x](data:text/html,<script>)')).not.toContain("<a");
    expect(inline("[<b>bold</b>](https://x.test)")).toBe('<a href="https://x.test">&lt;b&gt;bold&lt;/b&gt;</a>');
    expect(inline("`<code>` and *em* and snake_case_name")).toBe("<code>&lt;code&gt;</code> and <em>em</em> and snake_case_name");
  });

  it("makes plain file names", () => {
    expect(fileStem("Ünïcode: Plan / Q3 ✓")).toBe("unicode-plan-q3");
    expect(fileStem("✓✓")).toBe("document");
  });
});
