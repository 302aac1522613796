// Validate an action payload against its contract (JSON Schema) with ajv; failures name the field path.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { AppError } from "@/lib/errors";

// Ajv keeps every schema it compiles; imported realms make new contract objects on each re-import or
// curation. So compile into a bounded generation and start a fresh Ajv (dropping the old one) when it fills.
const GENERATION = 2000;
const newAjv = () => {
  const a = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, useDefaults: true });
  addFormats(a);
  return a;
};
let ajv = newAjv();
let compiledCount = 0;
let compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
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

export function validatePayload(schema: Record<string, unknown>, payload: unknown, what: string): Record<string, unknown> {
  const validate = validatorFor(schema);
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
