// lib/net is the only way out: no other source file in lib/ or app/ opens an HTTP connection itself (a
// global fetch, node's http/https/net/tls, undici). Libraries that call out are handed netFetch.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const OUTBOUND_MODULE = /from\s+["'](?:node:)?(?:http|https|net|tls|http2)["']|from\s+["']undici["']|require\(["'](?:node:)?(?:http|https|undici)["']\)/;
const GLOBAL_FETCH = /(?<![\w.$])fetch\s*\(|globalThis\.fetch|window\.fetch/;

/** The lines of a source text that open a connection outside lib/net. */
function outboundLines(text: string): string[] {
  return text
    .split("\n")
    .filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l))
    .filter((l) => OUTBOUND_MODULE.test(l) || GLOBAL_FETCH.test(l))
    .map((l) => l.trim());
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|tsx)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !p.includes(`${path.sep}fixtures${path.sep}`) ? [p] : [];
  });
}

describe("the only way out", () => {
  it("no source file outside lib/net opens a connection (server code in lib/ and app/)", () => {
    const root = process.cwd();
    const found: Record<string, string[]> = {};
    for (const file of [...sourceFiles(path.join(root, "lib")), ...sourceFiles(path.join(root, "app"))]) {
      const rel = path.relative(root, file);
      if (rel.startsWith(`lib${path.sep}net${path.sep}`)) continue;
      // Client components run in the browser and call our own API, not the outside world.
      const text = fs.readFileSync(file, "utf8");
      if (/^\s*["']use client["']/.test(text)) continue;
      const lines = outboundLines(text);
      if (lines.length) found[rel] = lines;
    }
    expect(found).toEqual({});
  });

  it("the check sees a global fetch, node's http and undici, and not a method named fetch", () => {
    expect(outboundLines('const r = await fetch("https://x");')).toHaveLength(1);
    expect(outboundLines('import https from "node:https";')).toHaveLength(1);
    expect(outboundLines('import { request } from "undici";')).toHaveLength(1);
    expect(outboundLines("const row = await loader.fetch(ctx, id);\n// fetch(ignored) in a comment")).toEqual([]);
  });
});
