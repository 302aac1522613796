// Validate an action payload against its contract (JSON Schema) with ajv; failures name the field path.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { AppError } from "@/lib/errors";

const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, useDefaults: true });
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

export function validatePayload(schema: Record<string, unknown>, payload: unknown, what: string): Record<string, unknown> {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  const copy = structuredClone(payload ?? {});
  if (!validate(copy)) {
    const issues = (validate.errors ?? []).slice(0, 20).map((e) => {
      const path = [e.instancePath.replace(/^\//, "").replace(/\//g, "."), e.params && "additionalProperty" in e.params ? String(e.params.additionalProperty) : "", e.params && "missingProperty" in e.params ? String(e.params.missingProperty) : ""]
        .filter(Boolean)
        .join(".");
      return { path: path || "(root)", message: e.message ?? "is invalid" };
    });
    const first = issues[0]!;
    throw new AppError("invalid_input", `Invalid payload for ${what}: ${first.path} ${first.message}.`, { details: { issues } });
  }
  return copy as Record<string, unknown>;
}
