// Text no field can hold, refused where input enters (JSON bodies, path ids, query parameters, the dispatcher):
// NUL (U+0000), which PostgreSQL text and jsonb cannot store, and lone UTF-16 surrogates (half a character,
// which no encoder can write faithfully). The answer is `invalid_input` naming the field the way zod errors do
// (`details.issues[0].path = "fields.title"`), so such a string never reaches a query, a log line or a provider.
import { AppError } from "@/lib/errors";

/** How deep a JSON value may nest (the body reader refuses deeper text before parsing it). */
export const MAX_JSON_DEPTH = 64;

/** NUL, or a surrogate that is not half of a pair (in a `u` regex a well-formed pair is one code point). */
const BAD = /[\0\uD800-\uDFFF]/u;
const BAD_ALL = /[\0\uD800-\uDFFF]/gu;

/** What is wrong with a string, or null: the first NUL or lone surrogate in it. */
export function textProblem(s: string): { index: number; char: string } | null {
  const index = s.search(BAD);
  if (index < 0) return null;
  return { index, char: `U+${s.charCodeAt(index).toString(16).toUpperCase().padStart(4, "0")}` };
}

const describe = (char: string) => (char === "U+0000" ? "a NUL character (U+0000)" : `an unpaired surrogate (${char})`);

/** A path segment as it can be shown: bad characters written as `\uXXXX`, long keys cut. */
function shown(seg: string | number): string {
  if (typeof seg === "number") return String(seg);
  const cut = seg.length > 64 ? `${seg.slice(0, 63)}…` : seg;
  return cut.replace(BAD_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export type TextIssue = { path: (string | number)[]; char: string; in: "value" | "key" } | { path: (string | number)[]; in: "depth" };

/**
 * The first string value or object key holding a NUL or a lone surrogate, walking arrays and objects no deeper
 * than `maxDepth` (deeper is an issue of its own: such input never passed the body reader).
 */
export function findTextIssue(value: unknown, maxDepth = MAX_JSON_DEPTH, at: (string | number)[] = []): TextIssue | null {
  const walk = (v: unknown, path: (string | number)[], depth: number): TextIssue | null => {
    if (typeof v === "string") {
      const p = textProblem(v);
      return p ? { path, char: p.char, in: "value" } : null;
    }
    if (typeof v !== "object" || v === null) return null;
    if (depth >= maxDepth) return { path, in: "depth" };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const found = walk(v[i], [...path, i], depth + 1);
        if (found) return found;
      }
      return null;
    }
    for (const key of Object.keys(v)) {
      const p = textProblem(key);
      if (p) return { path: [...path, key], char: p.char, in: "key" };
      const found = walk((v as Record<string, unknown>)[key], [...path, key], depth + 1);
      if (found) return found;
    }
    return null;
  };
  return walk(value, at, 0);
}

/** The `invalid_input` for an issue, shaped like `fromZodError`'s. */
export function textIssueError(issue: TextIssue, what: string, maxDepth = MAX_JSON_DEPTH): AppError {
  const path = issue.path.map(shown).join(".") || "(root)";
  const message =
    issue.in === "depth"
      ? `nested deeper than ${maxDepth} levels`
      : issue.in === "key"
        ? `the key contains ${describe(issue.char)}, which no field may hold`
        : `contains ${describe(issue.char)}, which no field may hold`;
  const code = issue.in === "depth" ? "too_big" : issue.in === "key" ? "invalid_key" : "invalid_format";
  return new AppError("invalid_input", `Invalid ${what}: ${path}: ${message}.`, {
    details: { issues: [{ path, message, code }], ...(issue.in === "depth" ? { max_depth: maxDepth } : { character: issue.char }) },
  });
}

/**
 * Refuse a value (a parsed body, a tool's input, a path id, a query parameter) holding a NUL or a lone surrogate
 * in any string or key, with `invalid_input` naming the field. `at` names the value itself (`["id"]`).
 */
export function assertCleanText(value: unknown, what = "input", at: (string | number)[] = [], maxDepth = MAX_JSON_DEPTH): void {
  const issue = findTextIssue(value, maxDepth, at);
  if (issue) throw textIssueError(issue, what, maxDepth);
}
