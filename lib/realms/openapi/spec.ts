// Reading an OpenAPI document: JSON or YAML text (or an already-parsed object) → a checked OpenAPI 3.0 / 3.1
// document whose $refs all resolve inside it. Every problem found is reported at once, with where it is, so
// an owner can fix the document in one go; nothing downstream ever sees a half-valid document.
import { createHash } from "node:crypto";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import { parseDocument } from "yaml";
import { canonicalJson } from "@/lib/canonical-json";
import { AppError } from "@/lib/errors";
import type { CompileBudget } from "./budget";

export const MAX_SPEC_BYTES = 50 * 1024 * 1024;
export const MAX_OPERATIONS = 20_000;
/** Deeper than this is not a schema anyone wrote by hand; it is refused before it can exhaust a stack. */
export const MAX_SPEC_DEPTH = 200;
export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
export type LowerMethod = (typeof HTTP_METHODS)[number];

export type JsonObject = Record<string, unknown>;
export type SpecIssue = { path: string; message: string };

export type LoadedSpec = {
  doc: JsonObject;
  /** `3.0` documents get their schema dialect converted (nullable, boolean exclusive bounds). */
  dialect: "3.0" | "3.1";
  version: string;
  /** Follows a local `#/…` pointer (and chains of them); throws `invalid_input` for anything else. */
  resolve: (ref: string) => unknown;
  sha256: string;
  canonical: string;
  operationCount: number;
};

export const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

const MAX_ISSUES = 50;

export function specError(message: string, issues: SpecIssue[]): AppError {
  return new AppError("invalid_input", message, { details: { issues: issues.slice(0, MAX_ISSUES), issue_count: issues.length } });
}

/** JSON (first non-blank character `{`) or YAML, with bounded aliases so a YAML bomb cannot expand. */
export function parseSpecText(text: string): unknown {
  if (Buffer.byteLength(text) > MAX_SPEC_BYTES) {
    throw new AppError("payload_too_large", `The document is larger than ${MAX_SPEC_BYTES / 1024 / 1024} MB.`, { details: { max_bytes: MAX_SPEC_BYTES } });
  }
  const trimmed = text.trimStart();
  if (trimmed === "") throw specError("The document is empty.", [{ path: "(root)", message: "empty" }]);
  if (trimmed.startsWith("{")) {
    try {
      return JSON.parse(trimmed);
    } catch (cause) {
      throw new AppError("invalid_input", `The document is not valid JSON: ${(cause as Error).message}`, {
        cause,
        details: { issues: [{ path: "(root)", message: (cause as Error).message }] },
      });
    }
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    const issues = doc.errors.map((e) => ({ path: e.linePos ? `line ${e.linePos[0].line}` : "(root)", message: e.message.split("\n")[0]! }));
    throw specError(`The document is neither valid JSON nor valid YAML: ${issues[0]!.message}`, issues);
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    throw new AppError("invalid_input", `The YAML document cannot be read: ${(cause as Error).message}`, { cause });
  }
}

function depthOf(v: unknown, limit: number, budget: CompileBudget | undefined): number {
  // Iterative, so a hostile document cannot overflow the stack while we measure it.
  let max = 0;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length) {
    const [node, d] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    budget?.spend();
    if (d > max) max = d;
    if (max > limit) return max;
    for (const child of Object.values(node)) if (typeof child === "object" && child !== null) stack.push([child, d + 1]);
  }
  return max;
}

export const pointerPath = (p: string) => p.replace(/^#\/?/, "").split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~")).join(".");

/** Every `$ref` in the document, with where it sits — except inside vendor extensions (`x-…` members), which are not API surface: their refs are neither followed nor checked. */
function collectRefs(doc: JsonObject, budget: CompileBudget | undefined): { ref: string; at: string }[] {
  const out: { ref: string; at: string }[] = [];
  const stack: [unknown, string][] = [[doc, ""]];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    budget?.spend();
    if (Array.isArray(node)) node.forEach((c, i) => typeof c === "object" && c !== null && stack.push([c, `${at}[${i}]`]));
    else if (isObject(node)) {
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref" && typeof v === "string") out.push({ ref: v, at: at || "(root)" });
        else if (typeof v === "object" && v !== null && !k.startsWith("x-")) stack.push([v, at ? `${at}.${k}` : k]);
      }
    }
  }
  return out;
}

/**
 * Read, check and resolve a document. Throws `invalid_input` listing every problem found. With a budget, every
 * node walked counts against it (`payload_too_large` past it).
 */
export async function loadSpec(input: string | JsonObject, budget?: CompileBudget): Promise<LoadedSpec> {
  const raw = typeof input === "string" ? parseSpecText(input) : input;
  budget?.checkTime();
  if (!isObject(raw)) throw specError("The document is not an object.", [{ path: "(root)", message: "expected an OpenAPI object" }]);
  if (depthOf(raw, MAX_SPEC_DEPTH, budget) > MAX_SPEC_DEPTH) {
    throw specError(`The document is nested deeper than ${MAX_SPEC_DEPTH} levels.`, [{ path: "(root)", message: "too deep" }]);
  }
  if (typeof raw.swagger === "string") {
    throw specError(`This is a Swagger ${raw.swagger} document; convert it to OpenAPI 3.0 or 3.1 first.`, [
      { path: "swagger", message: "Swagger 2.0 is not supported" },
    ]);
  }
  const version = typeof raw.openapi === "string" ? raw.openapi : "";
  const m = /^3\.([01])(\.\d+)?(-.+)?$/.exec(version);
  if (!m) throw specError(`Not an OpenAPI 3.0 or 3.1 document (openapi: ${JSON.stringify(raw.openapi ?? null)}).`, [{ path: "openapi", message: "must be 3.0.x or 3.1.x" }]);

  const issues: SpecIssue[] = [];
  const canonical = canonicalJson(raw);
  budget?.checkTime();
  if (Buffer.byteLength(canonical) > MAX_SPEC_BYTES) {
    throw new AppError("payload_too_large", `The document is larger than ${MAX_SPEC_BYTES / 1024 / 1024} MB.`, { details: { max_bytes: MAX_SPEC_BYTES } });
  }

  // Local refs only here: external ones were bundled in before (spec-refs.ts, from the files given or fetched
  // beside the document); resolving files or URLs named inside a document would let it read this server's disk
  // or reach its network.
  const refs = collectRefs(raw, budget);
  for (const r of refs) {
    if (!r.ref.startsWith("#")) issues.push({ path: r.at, message: `external $ref ${JSON.stringify(r.ref.slice(0, 200))} is not bundled: give its file in spec_files, or import the document from its URL` });
  }
  if (issues.length) throw specError(`The document has ${issues.length} external $ref${issues.length > 1 ? "s" : ""}.`, issues);

  // The ref parser indexes the document (cycles are fine: nothing is expanded); then every distinct pointer
  // is checked, so all the missing ones are reported together.
  const parser = new $RefParser();
  const base = "https://openapi.invalid/openapi.json";
  try {
    await parser.resolve(base, raw as never, { resolve: { file: false, http: false, external: false } });
  } catch (cause) {
    throw new AppError("invalid_input", `The document's $refs cannot be resolved: ${(cause as Error).message.replace(base, "")}`, { cause });
  }
  const found = new Map<string, boolean>();
  for (const r of refs) {
    let ok = found.get(r.ref);
    if (ok === undefined) {
      try {
        parser.$refs.get(`${base}${r.ref}`);
        ok = true;
      } catch {
        ok = false;
      }
      found.set(r.ref, ok);
    }
    if (!ok) issues.push({ path: r.at, message: `$ref ${r.ref.slice(0, 200)} points nowhere` });
  }
  if (issues.length) throw specError(`${issues.length} $ref${issues.length > 1 ? "s point" : " points"} nowhere.`, issues);

  // Each pointer is followed once per document: operations share their schemas, and a compile asks for the
  // same targets thousands of times.
  const resolved = new Map<string, unknown>();
  const resolve = (ref: string): unknown => {
    if (resolved.has(ref)) return resolved.get(ref);
    let current: unknown = { $ref: ref };
    const seen = new Set<string>();
    // A chain of refs ($ref → $ref → …) is followed; a chain that loops is an error, not a hang.
    while (isObject(current) && typeof current.$ref === "string") {
      const next = current.$ref;
      if (!next.startsWith("#")) throw specError(`external $ref ${next} is not supported`, [{ path: pointerPath(ref), message: "external $ref" }]);
      if (seen.has(next)) throw specError(`$ref ${ref} refers to itself.`, [{ path: pointerPath(ref), message: "a $ref chain that loops" }]);
      seen.add(next);
      try {
        current = parser.$refs.get(`${base}${next}`);
      } catch (cause) {
        throw new AppError("invalid_input", `$ref ${next} points nowhere.`, { cause, details: { issues: [{ path: pointerPath(next), message: "missing" }] } });
      }
    }
    resolved.set(ref, current);
    return current;
  };

  const paths = raw.paths;
  if (paths !== undefined && !isObject(paths)) issues.push({ path: "paths", message: "must be an object" });
  let operationCount = 0;
  if (isObject(paths)) {
    for (const [p, item] of Object.entries(paths)) {
      if (!p.startsWith("/")) issues.push({ path: `paths.${p}`, message: "a path must start with /" });
      if (!/^[\x21-\x7e]+$/.test(p)) issues.push({ path: `paths.${p}`, message: "a path must be printable ASCII without spaces" });
      const pathItem = isObject(item) && typeof item.$ref === "string" ? safeResolve(resolve, item.$ref, `paths.${p}`, issues) : item;
      if (!isObject(pathItem)) {
        issues.push({ path: `paths.${p}`, message: "must be a Path Item object" });
        continue;
      }
      for (const method of HTTP_METHODS) if (pathItem[method] !== undefined) operationCount++;
    }
  }
  if (operationCount > MAX_OPERATIONS) issues.push({ path: "paths", message: `${operationCount} operations; at most ${MAX_OPERATIONS} are imported` });
  if (!issues.length && operationCount === 0) issues.push({ path: "paths", message: "the document declares no operations" });
  if (issues.length) throw specError(`The document cannot be imported: ${issues[0]!.path}: ${issues[0]!.message}.`, issues);

  return {
    doc: raw,
    dialect: m[1] === "0" ? "3.0" : "3.1",
    version,
    resolve,
    canonical,
    sha256: createHash("sha256").update(canonical).digest("hex"),
    operationCount,
  };
}

function safeResolve(resolve: (r: string) => unknown, ref: string, at: string, issues: SpecIssue[]): unknown {
  try {
    return resolve(ref);
  } catch (e) {
    issues.push({ path: at, message: (e as Error).message });
    return undefined;
  }
}
