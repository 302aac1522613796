// From a checked OpenAPI document to one light card and one exact contract per operation. The card is what
// capability search and people read (id, method + path, group, summary, risk, input field names, a digest);
// the contract is what execution needs (a self-contained JSON Schema of the payload, and where each payload
// field goes in the request). Shared component schemas become `$defs`, so cyclic refs stay refs.
//
// Cost: each `$ref` target is converted once per document (and its canonical and JSON text made once), then
// every operation's contract lists the `$defs` it reaches — so 1,000 operations sharing a 200-schema chain
// convert 200 schemas, not 200,000. All the work counts against a CompileBudget when one is given.
import { createHash } from "node:crypto";
import { canonicalJson } from "@/lib/canonical-json";
import { actionNameSchema, type Risk } from "@/lib/realms/contract";
import type { CompileBudget } from "./budget";
import { isHeaderName, specHeaderRefusal } from "./headers";
import { HTTP_METHODS, isObject, pointerPath, type JsonObject, type LoadedSpec, type LowerMethod, type SpecIssue, specError } from "./spec";

export type HttpMethod = Uppercase<LowerMethod>;
export type ParamLocation = "path" | "query" | "header" | "cookie";

export type OperationCard = {
  /** The action name: the operationId as written, or `METHOD/path` where it has none (or an unusable one). */
  action: string;
  operation_id: string | null;
  method: HttpMethod;
  path: string;
  tag: string | null;
  /** Vendor categories (`x-github.category` / `x-category`), when the document has them. */
  category: string | null;
  subcategory: string | null;
  /** The tag's description from the document, for the catalog node. */
  group_description: string;
  summary: string;
  description: string;
  risk: Risk;
  deprecated: boolean;
  input_fields: string[];
  required_fields: string[];
  /** `owner*: string, per_page: integer, …` — what the input looks like, in one line. */
  input_digest: string;
  /** Hash of the exact contract: re-imports compare it to say an operation changed. */
  input_hash: string;
  scopes: string[];
};

export type ParamPlan = { name: string; in: ParamLocation; field: string; required: boolean; style: string; explode: boolean; json: boolean };
export type BodyEncoding = "json" | "form" | "text" | "unsupported";
/** `flat`: the body's properties sit beside the parameters; `wrapped`: the whole body is one field. */
export type BodyPlan = { mode: "flat" | "wrapped"; field: string | null; fields: string[]; contentType: string; encoding: BodyEncoding; required: boolean };
export type OperationContract = {
  method: HttpMethod;
  path: string;
  params: ParamPlan[];
  body: BodyPlan | null;
  input_schema: JsonObject;
  example: JsonObject;
  /** Media types of the success response, for choosing `Accept`. */
  accepts: string[];
};
export type CompiledOperation = { card: OperationCard; contract: OperationContract };
export type CompiledSpec = {
  title: string;
  description: string;
  servers: string[];
  tags: Map<string, string>;
  operations: CompiledOperation[];
  warnings: SpecIssue[];
  /** Operations left out of the realm (e.g. a header parameter whose name is not an HTTP header name). */
  dropped: { at: string; reason: string }[];
};

const MAX_WARNINGS = 200;
const MAX_SCHEMA_DEPTH = 64;
/** Formats ajv-formats knows; others are annotations we drop so validation never logs "unknown format". */
const KNOWN_FORMATS = new Set([
  "date", "time", "date-time", "iso-time", "iso-date-time", "duration", "uri", "uri-reference", "uri-template", "url", "email", "hostname",
  "ipv4", "ipv6", "regex", "uuid", "json-pointer", "json-pointer-uri-fragment", "relative-json-pointer", "byte", "int32", "int64", "float", "double",
  "password", "binary",
]);
/** Keywords that only annotate or belong to OpenAPI, not to validation: left out of contracts to keep them small. */
const DROPPED = new Set(["example", "examples", "xml", "externalDocs", "discriminator", "$id", "$schema", "$anchor", "$dynamicAnchor", "$comment", "$dynamicRef"]);
const SCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_ONE = ["additionalProperties", "items", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"];

const ACTION_NAME_MAX = 200;

/**
 * The action name of an operation that has no usable operationId: `METHOD/path` with no space, made to match
 * ACTION_NAME_PATTERN — braces of path templates dropped (`GET /repos/{owner}/{repo}` → `GET/repos/owner/repo`),
 * any other character the rule forbids replaced by `_`, runs of `_` and of `/` collapsed, at most 200 characters.
 * With `taken`, a name already used gets `-2`, `-3`… Pure: the same input always gives the same name (a start-up
 * step renames legacy `METHOD /path` names with it).
 */
export function fallbackActionName(method: string, path: string, taken?: ReadonlySet<string>): string {
  const verb = method.toUpperCase().replace(/[^A-Z0-9]/g, "") || "OP";
  const rest = `/${path}`
    .replace(/[{}]/g, "")
    .replace(/[^A-Za-z0-9_.\-/]/g, "_")
    .replace(/_+/g, "_")
    .replace(/\/+/g, "/");
  const base = `${verb}${rest}`.slice(0, ACTION_NAME_MAX);
  if (!taken?.has(base)) return base;
  for (let i = 2; ; i++) {
    const suffix = `-${i}`;
    const name = `${base.slice(0, ACTION_NAME_MAX - suffix.length)}${suffix}`;
    if (!taken.has(name)) return name;
  }
}

export const riskOfMethod = (m: HttpMethod): Risk => (m === "GET" || m === "HEAD" || m === "OPTIONS" || m === "TRACE" ? "read" : m === "DELETE" ? "destructive" : "write");

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

type Def = { name: string; schema: unknown; deps: string[]; canon?: string; json?: string };

/**
 * The document's `$ref` targets as JSON Schema 2020-12 `$defs`, each converted once: names are given per
 * document (the pointer's last segment, `_2`, `_3`… on a clash), and each def records the pointers it refers
 * to, so an operation's contract can list exactly the defs it reaches. Conversion is queued, not recursive, so
 * a long chain of refs cannot exhaust the stack.
 */
class DocSchemas {
  readonly defs = new Map<string, Def>();
  private readonly names = new Set<string>();
  private readonly pending: string[] = [];

  constructor(
    readonly spec: LoadedSpec,
    private readonly warnAt: (path: string, message: string) => void,
    readonly budget: CompileBudget | undefined,
  ) {}

  private defName(pointer: string): string {
    const last = decodeURIComponent(pointer.split("/").pop() ?? "def").replace(/~1/g, "/").replace(/~0/g, "~");
    const base = last.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 80) || "def";
    let name = base;
    for (let i = 2; this.names.has(name); i++) name = `${base}_${i}`;
    this.names.add(name);
    return name;
  }

  /** The def of a pointer (registered and queued for conversion on first sight). */
  def(pointer: string): Def {
    let def = this.defs.get(pointer);
    if (!def) {
      def = { name: this.defName(pointer), schema: {}, deps: [] };
      this.defs.set(pointer, def);
      this.pending.push(pointer);
    }
    return def;
  }

  /** Convert every queued def (and those they reach). */
  drain(): void {
    while (this.pending.length) {
      const pointer = this.pending.pop()!;
      const def = this.defs.get(pointer)!;
      const deps = new Set<string>();
      const where = pointerPath(pointer);
      const conv = new SchemaCompiler(this, (m) => this.warnAt(where, m), deps);
      def.schema = conv.convert(this.spec.resolve(pointer), 0);
      def.deps = [...deps];
    }
  }

  /** Every def reachable from `direct`, depth first in the order they are referred to. */
  closure(direct: Iterable<string>): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    const stack = [...direct].reverse();
    while (stack.length) {
      const p = stack.pop()!;
      if (seen.has(p)) continue;
      seen.add(p);
      out.push(p);
      this.budget?.spend();
      const deps = this.defs.get(p)!.deps;
      for (let i = deps.length - 1; i >= 0; i--) if (!seen.has(deps[i]!)) stack.push(deps[i]!);
    }
    return out;
  }

  canonOf(pointer: string): string {
    const def = this.defs.get(pointer)!;
    return (def.canon ??= canonicalJson(def.schema));
  }

  jsonOf(pointer: string): string {
    const def = this.defs.get(pointer)!;
    return (def.json ??= JSON.stringify(def.schema));
  }
}

/** Converts OpenAPI schema objects into standalone JSON Schema 2020-12; `$ref`s become refs into `$defs`. */
class SchemaCompiler {
  constructor(
    private readonly doc: DocSchemas,
    private readonly warn: (message: string) => void,
    /** The pointers this compiler's output refers to directly. */
    readonly deps: Set<string>,
  ) {}

  ref(pointer: string): JsonObject {
    this.deps.add(pointer);
    return { $ref: `#/$defs/${this.doc.def(pointer).name}` };
  }

  /** The schema a `$ref` points at, for looking inside it (readOnly, flat bodies). */
  deref(node: unknown): unknown {
    return isObject(node) && typeof node.$ref === "string" ? this.doc.spec.resolve(node.$ref) : node;
  }

  convert(node: unknown, depth: number): unknown {
    if (typeof node === "boolean") return node;
    if (!isObject(node)) return {};
    if (depth > MAX_SCHEMA_DEPTH) return {};
    this.doc.budget?.spend();
    if (typeof node.$ref === "string") {
      const out = this.ref(node.$ref);
      if (typeof node.description === "string") out.description = shortText(node.description, 200);
      return out;
    }
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) {
      if (DROPPED.has(k) || k.startsWith("x-")) continue;
      if (SCHEMA_MAPS.includes(k) && isObject(v)) {
        const map: JsonObject = {};
        for (const [pk, pv] of Object.entries(v)) map[pk] = this.convert(pv, depth + 1);
        out[k] = map;
      } else if (SCHEMA_LISTS.includes(k) && Array.isArray(v)) {
        out[k] = v.map((s) => this.convert(s, depth + 1));
      } else if (SCHEMA_ONE.includes(k) && (isObject(v) || typeof v === "boolean")) {
        out[k] = this.convert(v, depth + 1);
      } else if (k === "format") {
        if (typeof v === "string" && KNOWN_FORMATS.has(v)) out.format = v;
      } else if (k === "pattern") {
        if (typeof v === "string" && validRegex(v)) out.pattern = v;
        else this.warn(`pattern ${JSON.stringify(String(v).slice(0, 80))} is not a valid regular expression; it is not enforced`);
      } else if (k === "description") {
        if (typeof v === "string") out.description = shortText(v, 200);
      } else if (k === "type" && v === "file") {
        out.type = "string";
      } else {
        out[k] = v;
      }
    }
    // Request schemas: readOnly properties are the server's to set, never the caller's.
    if (isObject(out.properties)) {
      const props = out.properties;
      for (const [pk, pv] of Object.entries(isObject(node.properties) ? node.properties : {})) {
        const target = this.safeDeref(pv);
        if (isObject(target) && target.readOnly === true) {
          delete props[pk];
          if (Array.isArray(out.required)) out.required = out.required.filter((r) => r !== pk);
        }
      }
    }
    if (this.doc.spec.dialect === "3.0") this.from30(out);
    return out;
  }

  private safeDeref(node: unknown): unknown {
    try {
      return this.deref(node);
    } catch {
      return node;
    }
  }

  /** OpenAPI 3.0's schema dialect → JSON Schema 2020-12. */
  private from30(s: JsonObject) {
    if (s.nullable === true) {
      if (typeof s.type === "string") s.type = [s.type, "null"];
      if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
    }
    delete s.nullable;
    for (const [ex, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
      if (s[ex] === true && typeof s[bound] === "number") {
        s[ex] = s[bound];
        delete s[bound];
      } else if (typeof s[ex] === "boolean") delete s[ex];
    }
  }
}

/**
 * How a contract is made of shared parts: the input schema without `$defs`, and the pointers of the defs it
 * lists. Kept beside each compiled contract so its canonical hash and its JSON are assembled from each def's
 * text, made once per document.
 */
type ContractParts = { doc: DocSchemas; schema: JsonObject; defs: string[] };
const partsOf = new WeakMap<OperationContract, ContractParts>();

/** `{"$defs":{…},` + the rest: canonical JSON sorts keys, and `$` sorts before every letter. */
function canonicalInputSchema(parts: ContractParts): string {
  const rest = canonicalJson(parts.schema);
  if (!parts.defs.length) return rest;
  const entries = parts.defs.map((p) => [parts.doc.defs.get(p)!.name, p] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{"$defs":{${entries.map(([name, p]) => `${JSON.stringify(name)}:${parts.doc.canonOf(p)}`).join(",")}},${rest.slice(1)}`;
}

/**
 * The contract as JSON text, the same as `JSON.stringify(contract)` but with each shared def's text made
 * once per document (a contract repeats every def it reaches, so this is most of the bytes).
 */
export function contractJson(contract: OperationContract): string {
  const parts = partsOf.get(contract);
  if (!parts || !parts.defs.length) return JSON.stringify(contract);
  const { input_schema: _schema, example, accepts, ...head } = contract;
  const schema = JSON.stringify(parts.schema);
  const defs = parts.defs.map((p) => `${JSON.stringify(parts.doc.defs.get(p)!.name)}:${parts.doc.jsonOf(p)}`).join(",");
  const inputSchema = `${schema.slice(0, -1)},"$defs":{${defs}}}`;
  return `${JSON.stringify(head).slice(0, -1)},"input_schema":${inputSchema},"example":${JSON.stringify(example)},"accepts":${JSON.stringify(accepts)}}`;
}

function validRegex(p: string): boolean {
  try {
    new RegExp(p, "u");
    return true;
  } catch {
    return false;
  }
}

type Param = { name: string; in: ParamLocation; required: boolean; description?: string; schema: unknown; style?: string; explode?: boolean; content?: unknown; example?: unknown; deprecated?: boolean };

function paramsOf(raw: unknown, resolve: (r: string) => unknown, at: string, issues: SpecIssue[]): Param[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    issues.push({ path: at, message: "parameters must be a list" });
    return [];
  }
  const out: Param[] = [];
  raw.forEach((p, i) => {
    const v = isObject(p) && typeof p.$ref === "string" ? resolve(p.$ref) : p;
    if (!isObject(v) || typeof v.name !== "string" || !["path", "query", "header", "cookie"].includes(String(v.in))) {
      issues.push({ path: `${at}[${i}]`, message: "a parameter needs a name and `in` (path, query, header or cookie)" });
      return;
    }
    out.push({
      name: v.name,
      in: v.in as ParamLocation,
      required: v.in === "path" ? true : v.required === true,
      description: typeof v.description === "string" ? v.description : undefined,
      schema: v.schema,
      style: typeof v.style === "string" ? v.style : undefined,
      explode: typeof v.explode === "boolean" ? v.explode : undefined,
      content: v.content,
      example: v.example,
      deprecated: v.deprecated === true,
    });
  });
  return out;
}

function exampleFor(schema: unknown, name: string, compiler: SchemaCompiler, depth = 0): unknown {
  const s = compiler.deref(schema);
  if (!isObject(s) || depth > 3) return `<${name}>`;
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  if (type === "integer" || type === "number") return typeof s.minimum === "number" ? s.minimum : 1;
  if (type === "boolean") return true;
  if (type === "array") return [exampleFor(s.items, name, compiler, depth + 1)];
  if (type === "object" || isObject(s.properties)) {
    const out: JsonObject = {};
    const req = Array.isArray(s.required) ? s.required : [];
    for (const [k, v] of Object.entries(isObject(s.properties) ? s.properties : {})) if (req.includes(k)) out[k] = exampleFor(v, k, compiler, depth + 1);
    return out;
  }
  return `<${name}>`;
}

function typeWord(schema: unknown, compiler: SchemaCompiler): string {
  if (isObject(schema) && typeof schema.$ref === "string") return schema.$ref.split("/").pop() ?? "object";
  const s = isObject(schema) ? schema : {};
  if (Array.isArray(s.enum)) return s.enum.length <= 4 ? s.enum.map((e) => JSON.stringify(e)).join("|") : "enum";
  const t = Array.isArray(s.type) ? s.type.filter((x) => x !== "null").join("|") : typeof s.type === "string" ? s.type : "";
  if (t === "array") return `${typeWord(s.items, compiler)}[]`;
  if (t) return t;
  if (s.oneOf || s.anyOf) return "one of several";
  if (s.allOf) return "object";
  return "any";
}

const BODY_PREFERENCE: [RegExp, BodyEncoding][] = [
  [/^application\/json$/i, "json"],
  [/^application\/[\w.+-]+\+json$/i, "json"],
  [/^application\/x-www-form-urlencoded$/i, "form"],
  [/^text\/plain$/i, "text"],
];

function pickMedia(content: JsonObject): { type: string; encoding: BodyEncoding; media: JsonObject } | null {
  const entries = Object.entries(content).filter((e): e is [string, JsonObject] => isObject(e[1]));
  for (const [re, encoding] of BODY_PREFERENCE) {
    const hit = entries.find(([t]) => re.test(t.split(";")[0]!.trim()));
    if (hit) return { type: hit[0], encoding, media: hit[1] };
  }
  const first = entries[0];
  return first ? { type: first[0], encoding: "unsupported", media: first[1] } : null;
}

/** Flat when the body is a plain object whose property names do not clash with the parameters. */
function flatBodyProps(schema: unknown, compiler: SchemaCompiler, taken: Set<string>): JsonObject | null {
  const s = compiler.deref(schema);
  if (!isObject(s) || !isObject(s.properties)) return null;
  if (s.type !== undefined && s.type !== "object") return null;
  for (const k of ["allOf", "anyOf", "oneOf", "not", "patternProperties", "if", "dependentSchemas", "unevaluatedProperties"]) if (s[k] !== undefined) return null;
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return null;
  if (Object.keys(s.properties).some((k) => taken.has(k))) return null;
  return s;
}

function scopesOf(security: unknown): string[] {
  if (!Array.isArray(security)) return [];
  const out = new Set<string>();
  for (const req of security) if (isObject(req)) for (const v of Object.values(req)) if (Array.isArray(v)) for (const s of v) if (typeof s === "string") out.add(s);
  return [...out];
}

function serverUrls(doc: JsonObject): string[] {
  if (!Array.isArray(doc.servers)) return [];
  const out: string[] = [];
  for (const s of doc.servers) {
    if (!isObject(s) || typeof s.url !== "string") continue;
    // Server variables take their defaults.
    const vars = isObject(s.variables) ? s.variables : {};
    out.push(s.url.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = vars[name];
      return isObject(v) && typeof v.default === "string" ? v.default : "";
    }));
  }
  return out;
}

/**
 * Cards and contracts for every operation. Fatal problems throw `invalid_input`; quirks become warnings; an
 * operation that cannot be called safely is dropped, with a warning. With a budget, the work counts against it.
 */
export function compileSpec(spec: LoadedSpec, budget?: CompileBudget): CompiledSpec {
  const doc = spec.doc;
  const issues: SpecIssue[] = [];
  const warnings: SpecIssue[] = [];
  const dropped: { at: string; reason: string }[] = [];
  const warnAt = (path: string, message: string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push({ path, message });
  };
  const schemas = new DocSchemas(spec, warnAt, budget);
  const info = isObject(doc.info) ? doc.info : {};
  const tags = new Map<string, string>();
  if (Array.isArray(doc.tags)) for (const t of doc.tags) if (isObject(t) && typeof t.name === "string") tags.set(t.name, shortText(t.description, 200));

  const operations: CompiledOperation[] = [];
  const usedActions = new Set<string>();
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = (isObject(rawItem) && typeof rawItem.$ref === "string" ? spec.resolve(rawItem.$ref) : rawItem) as JsonObject;
    const shared = paramsOf(item.parameters, spec.resolve, `paths.${path}.parameters`, issues);
    for (const lower of HTTP_METHODS) {
      const op = item[lower];
      if (op === undefined) continue;
      const at = `paths.${path}.${lower}`;
      if (!isObject(op)) {
        issues.push({ path: at, message: "must be an Operation object" });
        continue;
      }
      const method = lower.toUpperCase() as HttpMethod;
      const warn = (message: string) => warnAt(at, message);
      const drop = (reason: string) => {
        dropped.push({ at, reason });
        warn(`${reason}; the operation is not imported`);
      };
      const compiled = compileOperation({ schemas, path, method, op, shared, at, issues, warn, drop, usedActions, tags });
      if (compiled) operations.push(compiled);
    }
  }
  if (issues.length) throw specError(`The document cannot be imported: ${issues[0]!.path}: ${issues[0]!.message}.`, issues);
  return {
    title: typeof info.title === "string" && info.title.trim() ? info.title.trim().slice(0, 80) : "Imported service",
    description: shortText(info.description, 300),
    servers: serverUrls(doc),
    tags,
    operations,
    warnings,
    dropped,
  };
}

type OpInput = {
  schemas: DocSchemas;
  path: string;
  method: HttpMethod;
  op: JsonObject;
  shared: Param[];
  at: string;
  issues: SpecIssue[];
  warn: (m: string) => void;
  drop: (reason: string) => void;
  usedActions: Set<string>;
  tags: Map<string, string>;
};

function compileOperation({ schemas, path, method, op, shared, at, issues, warn, drop, usedActions, tags: tagDocs }: OpInput): CompiledOperation | null {
  const spec = schemas.spec;
  const deps = new Set<string>();
  const compiler = new SchemaCompiler(schemas, warn, deps);
  // Operation parameters override path-level ones with the same name and location (header names ignore case).
  const own = paramsOf(op.parameters, spec.resolve, `${at}.parameters`, issues);
  const byKey = new Map<string, Param>();
  for (const p of [...shared, ...own]) byKey.set(`${p.in} ${p.in === "header" ? p.name.toLowerCase() : p.name}`, p);
  // A header the request could not carry makes the operation uncallable: it is left out, not half-imported.
  const badHeader = [...byKey.values()].find((p) => p.in === "header" && !isHeaderName(p.name));
  if (badHeader) {
    drop(`header parameter ${JSON.stringify(badHeader.name.slice(0, 80))} is not a valid HTTP header name (RFC 9110 token)`);
    return null;
  }
  // Headers that frame or route the request, and those Realmgate sets, are never taken from the document.
  const params = [...byKey.values()].filter((p) => {
    const refusal = p.in === "header" ? specHeaderRefusal(p.name) : null;
    if (refusal) warn(`header parameter ${p.name} is dropped: ${refusal}`);
    return !refusal;
  });

  const templateNames = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  for (const n of templateNames) {
    if (!params.some((p) => p.in === "path" && p.name === n)) issues.push({ path: at, message: `path parameter {${n}} is not declared` });
  }
  for (const p of params) if (p.in === "path" && !templateNames.includes(p.name)) warn(`path parameter ${p.name} is not in the path; it is ignored`);
  const usable = params.filter((p) => p.in !== "path" || templateNames.includes(p.name));

  // Payload field names: parameter names as written; a name used by two locations gets its location appended.
  const properties: JsonObject = {};
  const required: string[] = [];
  const plans: ParamPlan[] = [];
  const example: JsonObject = {};
  const taken = new Set<string>();
  for (const p of usable.sort((a, b) => (a.in === "path" ? 0 : 1) - (b.in === "path" ? 0 : 1))) {
    const field = taken.has(p.name) ? `${p.name}_${p.in}` : p.name;
    taken.add(field);
    let schemaSrc = p.schema;
    let json = false;
    if (schemaSrc === undefined && isObject(p.content)) {
      const media = Object.values(p.content).find(isObject);
      schemaSrc = media?.schema;
      json = true;
    }
    const converted = compiler.convert(schemaSrc ?? {}, 0);
    const schema = isObject(converted) ? { ...converted } : {};
    if (p.description && !schema.description) schema.description = shortText(p.description, 200);
    if (p.deprecated) schema.deprecated = true;
    properties[field] = schema;
    if (p.required) {
      required.push(field);
      example[field] = p.example ?? exampleFor(schemaSrc, p.name, compiler);
    }
    const style = p.style ?? (p.in === "query" || p.in === "cookie" ? "form" : "simple");
    plans.push({ name: p.name, in: p.in, field, required: p.required, style, explode: p.explode ?? style === "form", json });
  }

  let body: BodyPlan | null = null;
  const rb = isObject(op.requestBody) && typeof op.requestBody.$ref === "string" ? spec.resolve(op.requestBody.$ref) : op.requestBody;
  if (isObject(rb) && isObject(rb.content)) {
    const picked = pickMedia(rb.content);
    if (picked) {
      const bodyRequired = rb.required === true;
      if (picked.encoding === "unsupported") warn(`request body ${picked.type} is not supported for execution`);
      const flat = picked.encoding === "json" || picked.encoding === "form" ? flatBodyProps(picked.media.schema, compiler, taken) : null;
      const mediaExample = mediaExampleOf(picked.media, spec.resolve);
      if (flat) {
        const props = isObject(flat.properties) ? flat.properties : {};
        const fields: string[] = [];
        const bodyReq = Array.isArray(flat.required) ? flat.required.filter((r): r is string => typeof r === "string") : [];
        for (const [k, v] of Object.entries(props)) {
          const target = compiler.deref(v);
          if (isObject(target) && target.readOnly === true) continue;
          properties[k] = compiler.convert(v, 1);
          fields.push(k);
          // An optional body's required fields cannot be required of the payload: leaving the body out is allowed.
          if (bodyRequired && bodyReq.includes(k)) {
            required.push(k);
            example[k] = isObject(mediaExample) && mediaExample[k] !== undefined ? mediaExample[k] : exampleFor(v, k, compiler);
          }
        }
        body = { mode: "flat", field: null, fields, contentType: picked.type, encoding: picked.encoding, required: bodyRequired };
      } else {
        const field = taken.has("body") ? "request_body" : "body";
        const converted = compiler.convert(picked.media.schema ?? {}, 0);
        properties[field] = isObject(converted) || typeof converted === "boolean" ? converted : {};
        if (bodyRequired) {
          required.push(field);
          example[field] = mediaExample ?? exampleFor(picked.media.schema, field, compiler);
        }
        body = { mode: "wrapped", field, fields: [field], contentType: picked.type, encoding: picked.encoding, required: bodyRequired };
      }
    }
  }

  const schemaParts: JsonObject = { type: "object", additionalProperties: false, properties, ...(required.length ? { required } : {}) };
  // Every def this operation reaches, converted once per document and shared by every contract that lists it.
  schemas.drain();
  const defPointers = schemas.closure(deps);
  const inputSchema: JsonObject = { ...schemaParts };
  if (defPointers.length) inputSchema.$defs = Object.fromEntries(defPointers.map((p) => [schemas.defs.get(p)!.name, schemas.defs.get(p)!.schema]));

  // The action name: operationId as written; `METHOD/path` when absent, unusable, or already taken.
  const rawId = typeof op.operationId === "string" ? op.operationId : null;
  let action: string;
  if (rawId !== null && actionNameSchema.safeParse(rawId).success && !usedActions.has(rawId)) {
    action = rawId;
  } else {
    action = fallbackActionName(method, path, usedActions);
    if (rawId !== null) {
      if (usedActions.has(rawId)) warn(`operationId ${rawId} is used twice; this operation is named ${action}`);
      else warn(`operationId ${JSON.stringify(rawId.slice(0, 80))} is not a usable action name (a letter or digit, then letters, digits, _ . - or /); the operation is named ${action}`);
    }
  }
  if (!actionNameSchema.safeParse(action).success || usedActions.has(action)) {
    issues.push({ path: at, message: `the operation cannot be named (${JSON.stringify(action.slice(0, 80))})` });
    return null;
  }
  usedActions.add(action);

  const vendor = isObject(op["x-github"]) ? op["x-github"] : {};
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
  const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === "string") : [];
  const summary = shortText(op.summary, 160) || shortText(op.description, 160) || `${method} ${path}`;
  const fields = Object.keys(properties);
  const digest = fields
    .map((f) => `${f}${required.includes(f) ? "*" : ""}: ${typeWord(properties[f], compiler)}`)
    .join(", ");
  const contract: OperationContract = {
    method,
    path,
    params: plans,
    body,
    input_schema: inputSchema,
    example,
    accepts: successMedia(op.responses, spec.resolve),
  };
  const parts: ContractParts = { doc: schemas, schema: schemaParts, defs: defPointers };
  partsOf.set(contract, parts);
  const card: OperationCard = {
    action,
    operation_id: rawId,
    method,
    path,
    tag: tags[0] ?? null,
    category: str(vendor.category) ?? str(op["x-category"]),
    subcategory: str(vendor.subcategory) ?? str(op["x-subcategory"]),
    group_description: (tags[0] && tagDocs.get(tags[0])) || "",
    summary,
    description: shortText(op.description),
    risk: riskOfMethod(method),
    deprecated: op.deprecated === true,
    input_fields: fields,
    required_fields: required,
    input_digest: digest.length > 400 ? `${digest.slice(0, 399)}…` : digest,
    // = sha256(canonicalJson({ s: inputSchema, p: plans, b: body })), with each def's canonical text made once.
    input_hash: createHash("sha256").update(`{"b":${canonicalJson(body)},"p":${canonicalJson(plans)},"s":${canonicalInputSchema(parts)}}`).digest("hex").slice(0, 16),
    scopes: scopesOf(op.security ?? spec.doc.security),
  };
  return { card, contract };
}

function mediaExampleOf(media: JsonObject, resolve: (r: string) => unknown): unknown {
  if (media.example !== undefined) return media.example;
  if (isObject(media.examples)) {
    const first = Object.values(media.examples)[0];
    const ex = isObject(first) && typeof first.$ref === "string" ? resolve(first.$ref) : first;
    if (isObject(ex) && ex.value !== undefined) return ex.value;
  }
  return undefined;
}

function successMedia(responses: unknown, resolve: (r: string) => unknown): string[] {
  if (!isObject(responses)) return [];
  const out = new Set<string>();
  for (const [code, r] of Object.entries(responses)) {
    if (!/^2/.test(code)) continue;
    const resp = isObject(r) && typeof r.$ref === "string" ? resolve(r.$ref) : r;
    if (isObject(resp) && isObject(resp.content)) for (const t of Object.keys(resp.content)) out.add(t);
  }
  return [...out].slice(0, 8);
}
