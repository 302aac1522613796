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

/**
 * What one folder (or file) may import. `folder` is a path prefix ending in "/" or one file; the longest that
 * matches a file is its rule. Imports inside the same folder are always allowed; packages are not checked.
 */
export type FolderRule = {
  folder: string;
  /** The rule in words (docs/architecture.md shows the same). */
  rule: string;
  /** Path prefixes (folders ending in "/", or files) it may import. "*" allows any repository file. */
  may: string[];
  /** Prefixes it may import for types only (`import type`). */
  typesOnly?: string[];
  /** An extra check for each allowed edge (e.g. realms never import each other): a reason when refused. */
  refuse?: (edge: Edge) => string | null;
};

export type Violation = { file: string; imports: string; rule: string; why: string };

const REPO_ROOTS = /^(lib|db|app|components|test-support|dev|scripts|bench|e2e)\//;
const matches = (path: string, prefix: string) => (prefix.endsWith("/") ? path.startsWith(prefix) : path === prefix);

/** The rule that governs a file: the longest folder (or the file itself) that contains it. */
export function ruleFor(file: string, rules: FolderRule[]): FolderRule | null {
  let best: FolderRule | null = null;
  for (const r of rules) if (matches(file, r.folder) && (!best || r.folder.length > best.folder.length)) best = r;
  return best;
}

/** Every import of a governed file that its rule does not allow. */
export function ruleViolations(edges: Edge[], rules: FolderRule[], governed: (file: string) => boolean): Violation[] {
  const out: Violation[] = [];
  for (const e of edges) {
    if (!governed(e.from)) continue;
    const rule = ruleFor(e.from, rules);
    if (!rule) continue; // reported by uncoveredFiles
    const internal = REPO_ROOTS.test(e.to) || e.specifier.startsWith(".") || e.specifier.startsWith("@/");
    if (!internal) continue;
    const ownFolder = rule.folder.endsWith("/") && e.to.startsWith(rule.folder);
    const allowed =
      ownFolder ||
      rule.may.includes("*") ||
      rule.may.some((p) => matches(e.to, p)) ||
      (e.typeOnly && (rule.typesOnly ?? []).some((p) => matches(e.to, p)));
    if (!allowed) {
      out.push({ file: e.from, imports: e.to, rule: rule.folder, why: `${rule.folder} may import only ${[...rule.may, ...(rule.typesOnly ?? []).map((t) => `${t} (types)`)].join(", ") || "its own folder"}` });
      continue;
    }
    const refused = rule.refuse?.(e);
    if (refused) out.push({ file: e.from, imports: e.to, rule: rule.folder, why: refused });
  }
  return out;
}

/** Governed files no rule covers (a new folder needs its rule, and a line in docs/architecture.md). */
export function uncoveredFiles(files: string[], rules: FolderRule[]): string[] {
  return files.filter((f) => !ruleFor(f, rules));
}
