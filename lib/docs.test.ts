// The documentation stays inside the repository and says what the code has: every relative link in README.md and
// docs/ names a file that exists, none points outside the repository, and the vocabulary defines the words the
// product is built on.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = process.cwd();
const docs = ["README.md", ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");

describe("the documentation", () => {
  it("links only to files in the repository", () => {
    const broken: string[] = [];
    for (const f of docs) {
      for (const [, target] of read(f).matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // a web address
        const resolved = path.resolve(root, path.dirname(f), target!);
        if (!resolved.startsWith(root + path.sep) || !fs.existsSync(resolved)) broken.push(`${f} → ${target}`);
      }
      for (const outside of ["../shared", "DESIGN.md", "STYLE.md"]) if (read(f).includes(outside)) broken.push(`${f} names ${outside}`);
    }
    expect(broken).toEqual([]);
  });

  it("names only repository paths that exist in docs/adding-a-realm.md (a `<placeholder>` or `*` part: its folder exists)", () => {
    const top = fs.readdirSync(root).filter((f) => !f.startsWith("."));
    const missing: string[] = [];
    for (const [, quoted] of read("docs/adding-a-realm.md").matchAll(/`([^`\s]+)`/g)) {
      const p = quoted!.replace(/^@\//, "").replace(/[.,;:]$/, "");
      if (!quoted!.startsWith("@/") && !top.includes(p.split("/")[0]!)) continue; // not a repository path
      if (!p.includes("/") && !top.includes(p)) continue;
      const fixed = /[<*]/.test(p) ? p.slice(0, p.search(/[<*]/)).replace(/[^/]*$/, "") : p;
      const candidates = quoted!.startsWith("@/") ? [fixed, `${fixed}.ts`, `${fixed}/index.ts`] : [fixed];
      if (!candidates.some((c) => fs.existsSync(path.join(root, c)))) missing.push(quoted!);
    }
    expect(missing).toEqual([]);
  });

  it("defines the product's words in docs/vocabulary.md", () => {
    const vocabulary = read("docs/vocabulary.md");
    const terms = vocabulary.match(/^- \*\*[^*]+\*\*/gm)!.join("\n").toLowerCase();
    const words = ["realm", "kind", "ref", "selector", "action", "operation key", "grant", "ceiling", "choice", "consent request", "gate one", "gate two", "wall", "service card", "capability catalog", "materialized tool", "connection", "account", "provider"];
    expect(words.filter((w) => !terms.includes(`**${w}`) && !terms.includes(`(${w}`) && !terms.includes(` ${w}`))).toEqual([]);
  });
});
