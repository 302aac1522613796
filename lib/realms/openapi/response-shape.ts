// What an operation answers on success, at its top level only: the first 2xx response's status, media type and
// shape — an object's properties by type (`{id: "integer", title: "string", genres: "object[]"}`), an array's
// item type (and, for objects, their properties). Enough for an agent to know what comes back without the whole
// schema, bounded in bytes: a response schema can be megabytes.
import type { ResponseShape, ShapeSummary, TypeWord } from "./operation-types";
import { isObject, type JsonObject } from "./spec";

/** The longest a shape may be, as JSON; past it, properties are left out and counted in `more_properties`. */
export const MAX_SHAPE_BYTES = 1536;
const MAX_PROPERTIES = 60;

type Resolve = (ref: string) => unknown;

/** A schema with its `$ref` followed (a chain of them too, bounded). */
function deref(node: unknown, resolve: Resolve): JsonObject {
  let n = node;
  for (let i = 0; i < 20 && isObject(n) && typeof n.$ref === "string"; i++) {
    try {
      n = resolve(n.$ref);
    } catch {
      return {};
    }
  }
  return isObject(n) ? n : {};
}

/** An object schema's properties and required names, `allOf` members merged (one level). */
function propertiesOf(s: JsonObject, resolve: Resolve): { props: [string, unknown][]; required: string[] } {
  const props = new Map<string, unknown>();
  const required = new Set<string>();
  const parts = [s, ...(Array.isArray(s.allOf) ? s.allOf.map((m) => deref(m, resolve)) : [])];
  for (const part of parts) {
    if (isObject(part.properties)) for (const [k, v] of Object.entries(part.properties)) if (!props.has(k)) props.set(k, v);
    if (Array.isArray(part.required)) for (const r of part.required) if (typeof r === "string") required.add(r);
  }
  return { props: [...props.entries()], required: [...required].filter((r) => props.has(r)) };
}

function typeOf(s: JsonObject): { type: string; nullable: boolean } {
  const types = Array.isArray(s.type) ? s.type.filter((t): t is string => typeof t === "string") : typeof s.type === "string" ? [s.type] : [];
  const nullable = s.nullable === true || types.includes("null");
  const t = types.filter((x) => x !== "null");
  if (t.length) return { type: t.join("|"), nullable };
  if (isObject(s.properties) || s.allOf !== undefined) return { type: "object", nullable };
  if (s.items !== undefined) return { type: "array", nullable };
  if (s.oneOf !== undefined || s.anyOf !== undefined) return { type: "one of several", nullable };
  if (Array.isArray(s.enum) && s.enum.length) return { type: typeof s.enum[0] === "number" ? "number" : typeof s.enum[0], nullable };
  return { type: "any", nullable };
}

/** A property's type in one word; arrays as `<item type>[]`. */
function word(node: unknown, resolve: Resolve): TypeWord {
  const s = deref(node, resolve);
  const { type, nullable } = typeOf(s);
  const w = type === "array" ? `${typeOf(deref(s.items, resolve)).type}[]` : type;
  return nullable ? `${w}|null` : w;
}

function propertyWords(s: JsonObject, resolve: Resolve): { properties: Record<string, TypeWord>; required: string[]; more: number } {
  const { props, required } = propertiesOf(s, resolve);
  const properties: Record<string, TypeWord> = {};
  let bytes = 2;
  let more = 0;
  for (const [k, v] of props) {
    const w = word(v, resolve);
    const cost = JSON.stringify(k).length + JSON.stringify(w).length + 2;
    if (Object.keys(properties).length >= MAX_PROPERTIES || bytes + cost > MAX_SHAPE_BYTES - 200) {
      more++;
      continue;
    }
    properties[k] = w;
    bytes += cost;
  }
  return { properties, required: required.filter((r) => Object.hasOwn(properties, r)), more };
}

/** The top-level shape of a schema. */
export function shapeOf(schema: unknown, resolve: Resolve): ShapeSummary {
  const s = deref(schema, resolve);
  const { type, nullable } = typeOf(s);
  if (type === "object") {
    const { properties, required, more } = propertyWords(s, resolve);
    return { type: "object", properties, ...(required.length ? { required } : {}), ...(more ? { more_properties: more } : {}) };
  }
  if (type === "array") {
    const item = deref(s.items, resolve);
    const itemType = typeOf(item).type;
    if (itemType === "object") {
      const { properties, more } = propertyWords(item, resolve);
      return { type: "array", items: "object", item_properties: properties, ...(more ? { more_properties: more } : {}) };
    }
    return { type: "array", items: itemType === "array" ? `${typeOf(deref(item.items, resolve)).type}[]` : itemType };
  }
  return { type: nullable ? `${type}|null` : type };
}

const JSONISH = /^application\/(?:[\w.+-]+\+)?json\b/i;

/** The first 2xx response's status, media type and top-level shape; null when the document declares none. */
export function responseShape(responses: unknown, resolve: Resolve): ResponseShape | null {
  if (!isObject(responses)) return null;
  const codes = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort((a, b) => (a.toUpperCase() < b.toUpperCase() ? -1 : a > b ? 1 : 0));
  const code = codes[0];
  if (!code) return null;
  const resp = deref(responses[code], resolve);
  const status = /^\d+$/.test(code) ? Number(code) : code.toUpperCase();
  const content = isObject(resp.content) ? resp.content : {};
  const types = Object.keys(content);
  const type = types.find((t) => JSONISH.test(t)) ?? types[0] ?? null;
  const media = type ? content[type] : undefined;
  if (!type || !isObject(media) || media.schema === undefined) return { status, content_type: type, shape: null };
  return { status, content_type: type, shape: shapeOf(media.schema, resolve) };
}
