// Where each payload field goes in the request: an operation's parameters (path-level ones overridden by its
// own) and its request body become the payload's properties, each with a plan for the request (ParamPlan,
// BodyPlan). Payload field names are parameter names as written; a name used by two locations gets its
// location appended; a body is flat (its properties beside the parameters) when it can be, else one field.
import type { BodyEncoding, BodyPlan, ParamLocation, ParamPlan } from "./operation-types";
import { isHeaderName, specHeaderRefusal } from "./headers";
import { parameterNote } from "./notes";
import { exampleFor, type SchemaCompiler } from "./schema";
import { isObject, type JsonObject, type SpecIssue } from "./spec";
import { shortText } from "./text";

export type Param = { name: string; in: ParamLocation; required: boolean; description?: string; schema: unknown; style?: string; explode?: boolean; content?: unknown; example?: unknown; deprecated?: boolean };

/** The parameters a path item or operation declares (refs resolved); malformed ones are issues. */
export function paramsOf(raw: unknown, resolve: (r: string) => unknown, at: string, issues: SpecIssue[]): Param[] {
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

function mediaExampleOf(media: JsonObject, resolve: (r: string) => unknown): unknown {
  if (media.example !== undefined) return media.example;
  if (isObject(media.examples)) {
    const first = Object.values(media.examples)[0];
    const ex = isObject(first) && typeof first.$ref === "string" ? resolve(first.$ref) : first;
    if (isObject(ex) && ex.value !== undefined) return ex.value;
  }
  return undefined;
}

export type RequestPlan = {
  properties: JsonObject;
  required: string[];
  plans: ParamPlan[];
  example: JsonObject;
  body: BodyPlan | null;
  /** Payload field → what its description gets wrong about a call through Realmgate (notes.ts). */
  fieldNotes: Record<string, string>;
  /** The parameters' descriptions, as written (notes.ts reads them for header advice). */
  paramTexts: string[];
};

/** Where in the document an operation stands, and how its problems are reported: what every step of it reads. */
export type OperationSite = {
  path: string;
  op: JsonObject;
  shared: Param[];
  at: string;
  issues: SpecIssue[];
  warn: (m: string) => void;
  drop: (reason: string) => void;
};

type PlanInput = OperationSite & { compiler: SchemaCompiler; resolve: (ref: string) => unknown };

/** The payload's properties, required fields and example, and the request plan; null when the operation is dropped. */
export function planRequest({ compiler, resolve, path, op, shared, at, issues, warn, drop }: PlanInput): RequestPlan | null {
  // Operation parameters override path-level ones with the same name and location (header names ignore case).
  const own = paramsOf(op.parameters, resolve, `${at}.parameters`, issues);
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
  const fieldNotes: Record<string, string> = {};
  const paramTexts: string[] = [];
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
    const note = parameterNote(p.description, p.in);
    if (note) fieldNotes[field] = note;
    if (p.description) paramTexts.push(p.description);
    if (p.required) {
      required.push(field);
      example[field] = p.example ?? exampleFor(schemaSrc, p.name, compiler);
    }
    const style = p.style ?? (p.in === "query" || p.in === "cookie" ? "form" : "simple");
    plans.push({ name: p.name, in: p.in, field, required: p.required, style, explode: p.explode ?? style === "form", json });
  }

  let body: BodyPlan | null = null;
  const rb = isObject(op.requestBody) && typeof op.requestBody.$ref === "string" ? resolve(op.requestBody.$ref) : op.requestBody;
  if (isObject(rb) && isObject(rb.content)) {
    const picked = pickMedia(rb.content);
    if (picked) {
      const bodyRequired = rb.required === true;
      if (picked.encoding === "unsupported") warn(`request body ${picked.type} is not supported for execution`);
      const flat = picked.encoding === "json" || picked.encoding === "form" ? flatBodyProps(picked.media.schema, compiler, taken) : null;
      const mediaExample = mediaExampleOf(picked.media, resolve);
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

  return { properties, required, plans, example, body, fieldNotes, paramTexts };
}
