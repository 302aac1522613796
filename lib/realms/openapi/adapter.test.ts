// An imported service keeps no objects, so it has no refs: every ref is refused by its syntax and describes as null.
import { describe, expect, it } from "vitest";
import type { RealmContext } from "@/lib/realms/contract";
import { openApiAdapter } from "./adapter";
import { buildRealm, type RealmRecord } from "./manifest";
import { errorOf } from "@/test-support";

const record: RealmRecord = { id: "oas_test", tenantId: "tnt_test", namespace: "desk", title: "Desk", description: "", keywords: [], baseUrl: "https://desk.example.com", version: 1 };
const adapter = openApiAdapter(record, buildRealm(record, [], new Map()));

describe("refs of an imported service", () => {
  it.each([
    ["a ref of this namespace", "desk:ticket:1", /desk keeps no objects, so it has no refs/],
    ["a result-looking ref", "desk:operation_result:x", /desk keeps no objects/],
    ["another namespace's ref", "docs:doc:doc_00000000000000000000", /not a ref of desk/],
    ["a half-typed ref", "desk:", /a ref is `<namespace>:<rest>`/],
    ["no namespace", "ticket-1", /a ref is `<namespace>:<rest>`/],
    ["a space inside", "desk:a b", /a ref is `<namespace>:<rest>`/],
  ])("parseRef refuses %s as invalid_ref", async (_what, ref, message) => {
    const e = await errorOf(() => adapter.parseRef(ref));
    expect(e.code).toBe("invalid_ref");
    expect(e.message).toMatch(message);
    expect(e.details.ref).toBe(ref);
  });

  it("describeRefs maps every ref to null, in one batch, without touching the database", async () => {
    // The context is never read: nothing here is stored or fetched.
    const ctx = {} as RealmContext;
    expect(await adapter.describeRefs(ctx, ["desk:ticket:1", "docs:doc:x", "nonsense"])).toEqual({ "desk:ticket:1": null, "docs:doc:x": null, nonsense: null });
    expect(await adapter.describeRefs(ctx, [])).toEqual({});
  });
});
