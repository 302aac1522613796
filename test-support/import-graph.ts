// Import graph of the repository's own TypeScript, read with the TypeScript compiler API (no bundler, no
// resolution of packages): every `import`, `export … from`, `import type`, dynamic `import()`,
// `vi.mock`/`vi.importActual` specifier and `import("…")` type reference, with whether it is type-only.
// Used by lib/architecture.test.ts; pure functions over file contents so the checker can test itself.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export type Edge = { from: string; to: string; specifier: string; typeOnly: boolean };
export type SourceFiles = Record<string, string>;

const EXTENSIONS = [".ts", ".tsx", "/index.ts", "/index.tsx"];

/** Specifiers a file names, with whether each is type-only. */
export function specifiersOf(fileName: string, text: string): { specifier: string; typeOnly: boolean }[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!c.namedBindings && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly)));
      out.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ specifier: node.argument.literal.text, typeOnly: true });
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0]!)) {
      const callee = node.expression;
      const isDynamic = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isVi = ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === "vi" && ["mock", "doMock", "importActual"].includes(callee.name.text);
      if (isDynamic || isVi) out.push({ specifier: (node.arguments[0] as ts.StringLiteral).text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The repository file a specifier names (`@/…` or relative), or null for a package. */
export function resolveSpecifier(from: string, specifier: string, exists: (file: string) => boolean): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith("./") || specifier.startsWith("../")) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  else return null;
  if (exists(base)) return base;
  for (const ext of EXTENSIONS) if (exists(base + ext)) return base + ext;
  return base; // unresolved: reported as is
}

export function edgesOf(files: SourceFiles): Edge[] {
  const exists = (f: string) => Object.hasOwn(files, f);
  const edges: Edge[] = [];
  for (const [from, text] of Object.entries(files)) {
    for (const { specifier, typeOnly } of specifiersOf(from, text)) {
      const to = resolveSpecifier(from, specifier, exists) ?? specifier;
      edges.push({ from, to, specifier, typeOnly });
    }
  }
  return edges;
}

/** Every elementary strongly connected component of more than one file (or a file importing itself). */
export function cycles(edges: Edge[], within: (file: string) => boolean): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!within(e.from) || !within(e.to)) continue;
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    graph.get(e.from)!.add(e.to);
    if (!graph.has(e.to)) graph.set(e.to, new Set());
  }
  // Tarjan's algorithm.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || graph.get(v)!.has(v)) out.push(comp.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) strong(v);
  return out;
}

/** The repository's TypeScript under the given folders, keyed by path relative to the root. */
export function readSources(root: string, folders: string[]): SourceFiles {
  const files: SourceFiles = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(rel);
      } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) files[rel] = fs.readFileSync(path.join(root, rel), "utf8");
    }
  };
  for (const f of folders) if (fs.existsSync(path.join(root, f))) walk(f);
  return files;
}
