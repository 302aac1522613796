/**
 * Canonical JSON: object keys sorted at every depth (by UTF-16 code units), `undefined` members left out, a Date as
 * its ISO string, so the same record always hashes the same. Every audit record's hash is taken over this text
 * (lib/audit/chain.ts): its output must never change (`canonical-json.test.ts` holds it to the first version's).
 * Written as plain loops: it runs on every tool call, and the first version's entries/filter/sort/map/join arrays
 * were most of its cost.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i) out += ",";
      // A hole is written as nothing, as `map` and `join` did.
      if (i in value) out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    out += `${first ? "" : ","}${JSON.stringify(key)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}
