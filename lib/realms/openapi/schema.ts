// Schema shaping: OpenAPI schema objects → standalone JSON Schema 2020-12. The document's `$ref` targets become
// `$defs`, each converted once per document (and its canonical and JSON text made once), so cyclic refs stay
// refs and 1,000 operations sharing a 200-schema chain convert 200 schemas, not 200,000. All the work counts
// against a CompileBudget when one is given.
import { canonicalJson } from "@/lib/canonical-json";
import type { CompileBudget } from "./budget";
import { isObject, pointerPath, type JsonObject, type LoadedSpec } from "./spec";
import { shortText } from "./text";

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

export type Def = { name: string; schema: unknown; deps: string[]; canon?: string; json?: string };

/**
 * The document's `$ref` targets as JSON Schema 2020-12 `$defs`, each converted once: names are given per
 * document (the pointer's last segment, `_2`, `_3`… on a clash), and each def records the pointers it refers
 * to, so an operation's contract can list exactly the defs it reaches. Conversion is queued, not recursive, so
 * a long chain of refs cannot exhaust the stack.
 */
export class DocSchemas {
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
export class SchemaCompiler {
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
      } else if (k === "required" && !Array.isArray(v)) {
        // `required: true` on a property (Swagger 2.0's habit, in Spotify's official document) is not a schema
        // keyword's value: it would make the whole contract invalid. The property stays optional.
        this.warn(`required: ${JSON.stringify(v)} on a schema is not a list of property names; it is ignored`);
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

function validRegex(p: string): boolean {
  try {
    new RegExp(p, "u");
    return true;
  } catch {
    return false;
  }
}

/** A made-up value for a required field, for a contract's example payload. */
export function exampleFor(schema: unknown, name: string, compiler: SchemaCompiler, depth = 0): unknown {
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

/** A field's type in one word, for a card's input digest. */
export function typeWord(schema: unknown, compiler: SchemaCompiler): string {
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
