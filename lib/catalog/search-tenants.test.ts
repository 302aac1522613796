// Capability search through object_schema, two tenants that imported different services under the same
// namespace: the index cache (one index per realm version) never lets one tenant's operations answer the
// other's search, and a re-import (a new realm version) is searched as it now is.
import { beforeAll, describe, expect, it } from "vitest";
import { call, makeTenant, type TestTenant } from "@/test-support";
import { importRealm } from "@/lib/openapi-admin/import";
import { dispatch } from "@/lib/tools/dispatch";

type Answer = { mode_ran: string; matches: { namespace: string; operation: string }[] };

const spec = (title: string, ops: [string, string][]) => ({
  openapi: "3.1.0",
  info: { title, version: "1" },
  servers: [{ url: "https://billing.example.com" }],
  paths: Object.fromEntries(ops.map(([id, summary]) => [`/${id}`, { post: { operationId: id, summary } }])),
});

let a: TestTenant;
let b: TestTenant;
const search = async (t: TestTenant, query: string) => {
  const answer = (await dispatch(call(t.users.alice!), "object_schema", { query, search_mode: "lexical", limit: 20 })) as Answer;
  return answer.matches.filter((m) => m.namespace === "billing").map((m) => m.operation);
};

beforeAll(async () => {
  a = await makeTenant();
  b = await makeTenant();
  await importRealm(a.db, call(a.users.alice!), { namespace: "billing", spec: spec("Cards", [["refund", "Refund a card charge"], ["charges", "List card charges"]]), source: "paste" } as never);
  await importRealm(b.db, call(b.users.alice!), { namespace: "billing", spec: spec("Payroll", [["payroll", "Run the payroll for employees"], ["void", "Void a customer invoice"]]), source: "paste" } as never);
});

describe("capability search across tenants", () => {
  it("each tenant finds only its own imported operations, searched in any order", async () => {
    const own = { a: ["object.action.refund", "object.action.charges"], b: ["object.action.payroll", "object.action.void"] };
    for (const q of ["refund a card charge", "run the payroll", "void an invoice", "refund a card charge"]) {
      expect((await search(a, q)).every((op) => own.a.includes(op))).toBe(true);
      expect((await search(b, q)).every((op) => own.b.includes(op))).toBe(true);
    }
    expect((await search(a, "refund a card charge"))[0]).toBe("object.action.refund");
    expect((await search(b, "run the payroll"))[0]).toBe("object.action.payroll");
  });

  it("a re-import is searched as it now is", async () => {
    expect(await search(a, "refund a card charge")).toContain("object.action.refund");
    await importRealm(a.db, call(a.users.alice!), { namespace: "billing", spec: spec("Cards", [["capture", "Capture an authorized card charge"]]), source: "paste" } as never);
    expect(await search(a, "refund a card charge")).not.toContain("object.action.refund");
    expect((await search(a, "capture a card charge"))[0]).toBe("object.action.capture");
    expect((await search(b, "capture a card charge")).every((op) => ["object.action.payroll", "object.action.void"].includes(op))).toBe(true);
  });
});
