// Property: whatever an agent sends to any of the nine tools, the answer is a result or a documented error
// (never a 500), and a failed call leaves nothing written.
import fc from "fast-check";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { call } from "@/db/test-actors";
import { makeTenant, type TestTenant } from "@/db/test-fixtures";
import { AppError, errorCodes } from "@/lib/errors";
import { dispatch } from "./dispatch";
import { toolNames } from "./schemas";

let t: TestTenant;

beforeAll(async () => {
  t = await makeTenant({ alice: "owner" });
  await dispatch(call(t.users.alice!), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Prop doc" } });
});

const rowCount = async () => {
  const r = await t.db.execute<{ n: number }>(
    sql`select (select count(*) from docs_documents where tenant_id = ${t.tenantId}) + (select count(*) from memory_items where tenant_id = ${t.tenantId}) + (select count(*) from boards where tenant_id = ${t.tenantId}) + (select count(*) from files where tenant_id = ${t.tenantId}) as n`,
  );
  return Number((r as unknown as { rows: { n: number }[] }).rows[0]!.n);
};

const plausibleValue = fc.oneof(
  fc.constantFrom("docs", "memory", "board", "nowhere", "docs:document:doc_aaaaaaaaaaaaaaaaaaaa", "docs.document", "memory.item", "reply_comment", "export", "../../etc", "\u0000", ""),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);
const plausibleInput = fc.dictionary(
  fc.constantFrom("namespace", "ref", "kind", "query", "action", "payload", "fields", "filter", "cursor", "limit", "selector", "full", "schema_path", "operation", "name", "content_type", "content_base64", "idempotency_key", "extra"),
  plausibleValue,
  { maxKeys: 6 },
);

describe("the nine tools under random input", () => {
  it.each(toolNames)("%s answers with a result or a documented 4xx, and writes nothing when it fails", async (tool) => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(plausibleInput, fc.anything()), async (input) => {
        const before = await rowCount();
        try {
          await dispatch(call(t.users.alice!), tool, input);
        } catch (err) {
          expect(err, String(err)).toBeInstanceOf(AppError);
          const e = err as AppError;
          expect(Object.keys(errorCodes)).toContain(e.code);
          expect(e.status).toBeLessThan(500);
          expect(await rowCount()).toBe(before);
        }
      }),
      { numRuns: 60 },
    );
  });
});
