// Validate an action payload against its contract (JSON Schema) with ajv, and what a kind declares for its
// fields, filters and selectors; failures name the field path.
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { AppError } from "@/lib/errors";
import type { KindDef } from "@/lib/realms/contract";

// Ajv keeps every schema it compiles; imported realms make new contract objects on each re-import or
// curation. So compile into a bounded generation and start a fresh Ajv (dropping the old one) when it fills.
const GENERATION = 2000;
const newAjv = () => {
  // verbose: an error carries the schema node it failed, so a pattern can say what it means (patternMessage).
  const a = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, useDefaults: true, verbose: true });
  addFormats(a);
  return a;
};
let ajv = newAjv();
let compiledCount = 0;
let compiled = new WeakMap<object, ValidateFunction>();

/** The validator of one schema object, compiled once. */
export function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    if (++compiledCount > GENERATION) {
      ajv = newAjv();
      compiled = new WeakMap();
      compiledCount = 1;
    }
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Validate a copy of `value` (defaults filled in); `prefix` starts each issue's path (`fields`, `filter`). */
function validateAgainst(schema: Record<string, unknown>, value: unknown, what: string, prefix?: string): Record<string, unknown> {
  const validate = validatorFor(schema);
  const copy = structuredClone(value ?? {});
  if (!validate(copy)) {
    const issues = (validate.errors ?? []).slice(0, 20).map((e) => {
      const path = [prefix ?? "", e.instancePath.replace(/^\//, "").replace(/\//g, "."), e.params && "additionalProperty" in e.params ? String(e.params.additionalProperty) : "", e.params && "missingProperty" in e.params ? String(e.params.missingProperty) : ""]
        .filter(Boolean)
        .join(".");
      return { path: path || "(root)", message: messageOf(e) };
    });
    const first = issues[0]!;
    throw new AppError("invalid_input", `Invalid ${what}: ${first.path} ${first.message}.`, { details: { issues } });
  }
  return copy as Record<string, unknown>;
}

/**
 * What an issue says. A regex is no message for an agent: a string schema may carry `patternMessage` (zod:
 * `.meta({ patternMessage })`), said instead of "must match pattern …".
 */
function messageOf(e: ErrorObject): string {
  const node = e.parentSchema as { patternMessage?: unknown; properties?: Record<string, unknown> } | undefined;
  if (e.keyword === "pattern" && typeof node?.patternMessage === "string") return node.patternMessage;
  // The path already names the property: say what is wrong with it, and for an unknown one, what is known.
  if (e.keyword === "required") return "is required";
  if (e.keyword === "additionalProperties") {
    const known = Object.keys(node?.properties ?? {});
    return known.length ? `is not known here (known: ${known.slice(0, 30).join(", ")})` : "is not known here (nothing may be given)";
  }
  if (e.keyword === "enum" && Array.isArray(e.params?.allowedValues)) return `must be one of ${(e.params.allowedValues as unknown[]).slice(0, 30).map((v) => JSON.stringify(v)).join(", ")}`;
  return e.message ?? "is invalid";
}

export function validatePayload(schema: Record<string, unknown>, payload: unknown, what: string): Record<string, unknown> {
  return validateAgainst(schema, payload, `payload for ${what}`);
}

/** Which of a kind's schemas checks an input: upsert fields (create, patch), list and search filters, selectors. */
export type KindSchemaUse = "create" | "patch" | "filter" | "selector";

/** Checks `value` against the kind's declared schema for this use, when it declares one (the value itself is passed on unchanged). */
export function checkKindSchema(kind: KindDef, use: KindSchemaUse, value: Record<string, unknown>, prefix: string): void {
  const schema = kind.schemas?.[use];
  if (schema) validateAgainst(schema, value, `${prefix} for ${kind.name}`, prefix);
}
