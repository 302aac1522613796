import { describe, expect, it } from "vitest";
import type { Principal } from "@/lib/realms/contract";
import { gateOne, type GateOneInput, type GrantFacts } from "./gate";

const now = new Date("2026-06-01T12:00:00.000Z");
const agent: Principal = { type: "actor", actorId: "act_a", grantorId: "usr_alice", actorKind: "hosted_agent" };
const grant = (over: Partial<GrantFacts> = {}): GrantFacts => ({
  id: "grt_1",
  actorId: "act_a",
  operations: ["object.get", "object.action.reply"],
  resourceScope: null,
  expiresAt: null,
  revokedAt: null,
  createdAt: new Date("2026-05-01T00:00:00.000Z"),
  ...over,
});
const input = (over: Partial<GateOneInput> = {}): GateOneInput => ({
  principal: agent,
  namespace: "docs",
  operation: "object.get",
  ref: "docs:document:doc_x",
  ceilingEnabled: null,
  choiceEnabled: null,
  grants: [grant()],
  now,
  ...over,
});
const outcome = (over: Partial<GateOneInput>) => {
  const d = gateOne(input(over));
  return d.allow ? "allow" : d.code;
};

describe("gate one", () => {
  it.each<[string, Partial<GateOneInput>, string]>([
    ["a live grant for the exact operation", {}, "allow"],
    ["the owner ceiling turned it off", { ceilingEnabled: false }, "operation_disabled"],
    ["the grantor's choice turned it off", { choiceEnabled: false }, "operation_disabled"],
    ["no grant at all", { grants: [] }, "consent_required"],
    ["another actor's grant", { grants: [grant({ actorId: "act_other" })] }, "consent_required"],
    ["send is not covered by a grant for reply", { operation: "object.action.send" }, "consent_required"],
    ["a case variant of the action", { operation: "object.action.Reply" }, "consent_required"],
    ["a whitespace variant of the action", { operation: "object.action.reply " as "object.action.reply" }, "consent_required"],
    ["a homoglyph variant of the action (Cyrillic е)", { operation: "object.action.r\u0435ply" }, "consent_required"],
    ["a prefix of the action", { operation: "object.action.rep" }, "consent_required"],
    ["an explicit object.action.* covers every action", { operation: "object.action.send", grants: [grant({ operations: ["object.action.*"] })] }, "allow"],
    ["object.action.* does not cover an action the owner marked for explicit approval", { operation: "object.action.send", exactOnly: true, grants: [grant({ operations: ["object.action.*"] })] }, "consent_required"],
    ["an exact grant covers an action marked for explicit approval", { operation: "object.action.reply", exactOnly: true }, "allow"],
    ["object.action.* does not cover object.delete", { operation: "object.delete", grants: [grant({ operations: ["object.action.*"] })] }, "consent_required"],
    ["a revoked grant", { grants: [grant({ revokedAt: new Date("2026-05-30T00:00:00Z") })] }, "grant_revoked"],
    ["an expired grant", { grants: [grant({ expiresAt: new Date("2026-05-30T00:00:00Z") })] }, "grant_expired"],
    ["a ref outside the grant's scope", { grants: [grant({ resourceScope: { ref_prefix: "docs:document:doc_y" } })] }, "consent_required"],
    ["a ref inside a container the grant is scoped to", { ref: "docs:thread:thr_1", lineage: ["docs:document:doc_x"], grants: [grant({ resourceScope: { ref_prefix: "docs:document:doc_x" } })] }, "allow"],
    ["a ref inside another container", { ref: "docs:thread:thr_2", lineage: ["docs:document:doc_y"], grants: [grant({ resourceScope: { ref_prefix: "docs:document:doc_x" } })] }, "consent_required"],
    ["a ref inside the grant's scope", { grants: [grant({ resourceScope: { ref_prefix: "docs:document:doc_x" } })] }, "allow"],
    ["a list under a scoped grant (results are narrowed)", { operation: "object.list", ref: null, grants: [grant({ operations: ["object.list"], resourceScope: { ref_prefix: "docs:" } })] }, "allow"],
    ["an expired grant beside a live one", { grants: [grant({ id: "grt_old", expiresAt: new Date("2026-01-01T00:00:00Z") }), grant({ id: "grt_new" })] }, "allow"],
    ["a user acting for themselves", { principal: { type: "user", userId: "usr_alice" }, grants: [], ceilingEnabled: false }, "allow"],
  ])("%s → %s", (_name, over, expected) => expect(outcome(over)).toBe(expected));

  it.each([
    [-1000, "allow"],
    [0, "grant_expired"],
    [1000, "grant_expired"],
  ])("at expiry %+i ms the grant is %s", (offset, expected) => {
    const expiresAt = new Date(now.getTime() - offset);
    expect(outcome({ grants: [grant({ expiresAt })] })).toBe(expected);
  });

  it("names the grant that ended most recently", () => {
    const d = gateOne(
      input({
        grants: [
          grant({ id: "grt_expired", expiresAt: new Date("2026-05-31T00:00:00Z") }),
          grant({ id: "grt_revoked", revokedAt: new Date("2026-05-20T00:00:00Z") }),
        ],
      }),
    );
    expect(d).toMatchObject({ allow: false, code: "grant_expired", grantId: "grt_expired" });
  });
});
