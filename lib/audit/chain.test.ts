// A record's hash is taken over `hashedPayload`: it must stay exactly the canonical JSON of the hashed fields as one
// object (what it was first written as), for any record, or records written before would no longer verify.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/canonical-json";
import { hashedPayload, type HashedFields } from "./chain";

/** The first version: the fields as one object, through canonicalJson. */
const firstVersion = (row: HashedFields) =>
  canonicalJson({
    tenant_id: row.tenantId,
    ...(row.lane ? { lane: row.lane } : {}),
    seq: row.seq,
    id: row.id,
    at: row.at.toISOString(),
    event: row.event,
    request_id: row.requestId,
    principal_type: row.principalType,
    user_id: row.userId,
    actor_id: row.actorId,
    namespace: row.namespace,
    operation: row.operation,
    ref: row.ref,
    outcome: row.outcome,
    gate: row.gate,
    reason: row.reason,
    subject_id: row.subjectId,
    details: row.details,
    prev_hash: row.prevHash,
  });

const text = fc.string({ unit: "binary", maxLength: 12 });
const maybe = fc.option(text, { nil: null });
const row: fc.Arbitrary<HashedFields> = fc.record({
  tenantId: text,
  lane: fc.integer({ min: 0, max: 256 }),
  seq: fc.integer({ min: 1 }),
  id: text,
  at: fc.date({ noInvalidDate: true, min: new Date(0), max: new Date("2999-12-31") }),
  event: text,
  requestId: maybe,
  principalType: text,
  userId: maybe,
  actorId: maybe,
  namespace: maybe,
  operation: maybe,
  ref: maybe,
  outcome: text,
  gate: maybe,
  reason: maybe,
  subjectId: maybe,
  details: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 })) as fc.Arbitrary<Record<string, unknown>>,
  prevHash: text,
});

describe("hashedPayload", () => {
  it("is the canonical JSON of the hashed fields as one object, for any record", () => {
    fc.assert(
      fc.property(row, (r) => {
        expect(hashedPayload(r)).toBe(firstVersion(r));
      }),
      { numRuns: 1000 },
    );
  });

  it("leaves lane 0 out, as records hashed before lanes were", () => {
    const r = fc.sample(row, { numRuns: 1, seed: 7 })[0]!;
    expect(JSON.parse(hashedPayload({ ...r, lane: 0 }))).not.toHaveProperty("lane");
    expect(JSON.parse(hashedPayload({ ...r, lane: 3 }))).toMatchObject({ lane: 3 });
  });
});
