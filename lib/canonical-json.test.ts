// canonicalJson's text is what every audit record's hash is taken over: it must stay byte for byte what the first
// version wrote, for any value, or records written before would no longer verify.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";

/** The first version, kept as the reference. */
function firstVersion(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(firstVersion).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${firstVersion(v)}`).join(",")}}`;
}

const key = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom("a", "B", "_", "é", "\u{1F600}", "\uD800", "10", "2", "__proto__x"));
const leaf = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.double(),
  fc.integer(),
  fc.string({ unit: "binary" }),
  fc.date({ noInvalidDate: true }),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 5 }),
  object: fc.dictionary(key, tie("value"), { maxKeys: 6 }),
}));

describe("canonicalJson", () => {
  it("writes exactly what the first version wrote, for any JSON-like value", () => {
    fc.assert(fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(firstVersion(v));
      }), { numRuns: 2000 });
  });

  it("sorts keys at every depth and leaves out undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined }], c: new Date(0) }, u: undefined })).toBe(
      '{"a":{"c":"1970-01-01T00:00:00.000Z","d":[3,{"z":1}]},"b":1}',
    );
  });

  it("writes holes and undefined array members as the first version did", () => {
    const sparse = [1, , undefined, null];
    expect(canonicalJson(sparse)).toBe(firstVersion(sparse));
    expect(canonicalJson(sparse)).toBe("[1,,null,null]");
  });
});
