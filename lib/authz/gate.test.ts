import { describe, expect, it } from "vitest";
import type { Principal } from "@/lib/realms/contract";
import { gateOne, type ApprovalAsk, type ApprovalFacts, type GateOneInput, type GrantFacts } from "./gate";

const now = new Date("2026-06-01T12:00:00.000Z");
const agent: Principal = { type: "actor", actorId: "act_a", grantorId: "usr_alice", actorKind: "hosted_agent" };
const grant = (over: Partial<GrantFacts> = {}): GrantFacts => ({
  id: "grt_1",
  actorId: "act_a",
  operations: ["object.get", "object.action.reply"],
  allActions: false,
  resourceScope: null,
  suspensions: {},
  expiresAt: null,
  revokedAt: null,
  createdAt: new Date("2026-05-01T00:00:00.000Z"),
  ...over,
});
const input = (over: Partial<GateOneInput> = {}): GateOneInput => ({
  principal: agent,
  namespace: "docs",
  operation: "object.get",
  refs: ["docs:document:doc_x"],
  ceilingMode: null,
  choiceMode: null,
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
    ["the owner ceiling turned it off", { ceilingMode: "off" }, "operation_disabled"],
    ["the grantor's choice turned it off", { choiceMode: "off" }, "operation_disabled"],
    ["no grant at all", { grants: [] }, "consent_required"],
    ["another actor's grant", { grants: [grant({ actorId: "act_other" })] }, "consent_required"],
    ["send is not covered by a grant for reply", { operation: "object.action.send" }, "consent_required"],
    ["a case variant of the action", { operation: "object.action.Reply" }, "consent_required"],
    ["a whitespace variant of the action", { operation: "object.action.reply " as "object.action.reply" }, "consent_required"],
    ["a homoglyph variant of the action (Cyrillic е)", { operation: "object.action.r\u0435ply" }, "consent_required"],
    ["a prefix of the action", { operation: "object.action.rep" }, "consent_required"],
    ["an all-actions grant covers every action", { operation: "object.action.send", grants: [grant({ operations: [], allActions: true })] }, "allow"],
    ["all actions does not cover an action the owner marked exact-grant-only", { operation: "object.action.send", exactOnly: true, grants: [grant({ operations: [], allActions: true })] }, "consent_required"],
    ["an exact grant covers an action marked exact-grant-only", { operation: "object.action.reply", exactOnly: true }, "allow"],
    ["all actions does not cover object.delete", { operation: "object.delete", grants: [grant({ operations: [], allActions: true })] }, "consent_required"],
    ["a grant for an action literally named * (stored as a key) covers only that key, not another action", { operation: "object.action.send", grants: [grant({ operations: ["object.action.*"] })] }, "consent_required"],
    ["a suspended operation is not covered", { operation: "object.action.reply", grants: [grant({ suspensions: { "object.action.reply": { at: "2026-05-31T00:00:00Z", change: "risk read → destructive" } } })] }, "consent_required"],
    ["the same grant's other operations still work while one is suspended", { grants: [grant({ suspensions: { "object.action.reply": { at: "2026-05-31T00:00:00Z", change: "risk read → destructive" } } })] }, "allow"],
    ["a suspended action is not covered by all actions either", { operation: "object.action.send", grants: [grant({ allActions: true, suspensions: { "object.action.send": { at: "2026-05-31T00:00:00Z", change: "endpoint" } } })] }, "consent_required"],
    ["a revoked grant", { grants: [grant({ revokedAt: new Date("2026-05-30T00:00:00Z") })] }, "grant_revoked"],
    ["an expired grant", { grants: [grant({ expiresAt: new Date("2026-05-30T00:00:00Z") })] }, "grant_expired"],
    ["a ref outside the grant's scope", { grants: [grant({ resourceScope: { refs: ["docs:document:doc_y"] } })] }, "consent_required"],
    ["a ref inside a container the grant is scoped to", { refs: ["docs:thread:thr_1"], lineage: { "docs:thread:thr_1": ["docs:document:doc_x"] }, grants: [grant({ resourceScope: { refs: ["docs:document:doc_x"] } })] }, "allow"],
    ["a ref inside another container", { refs: ["docs:thread:thr_2"], lineage: { "docs:thread:thr_2": ["docs:document:doc_y"] }, grants: [grant({ resourceScope: { refs: ["docs:document:doc_x"] } })] }, "consent_required"],
    ["the exact ref the grant names", { grants: [grant({ resourceScope: { refs: ["docs:document:doc_x"] } })] }, "allow"],
    ["a ref that merely starts with the scoped ref (no prefix matching)", { refs: ["docs:document:doc_x2"], grants: [grant({ resourceScope: { refs: ["docs:document:doc_x"] } })] }, "consent_required"],
    ["a scope holding a half-typed ref reaches nothing longer", { refs: ["docs:document:doc_x"], grants: [grant({ resourceScope: { refs: ["docs:d"] } })] }, "consent_required"],
    ["a second named ref outside the scope (attach A's file to B)", { refs: ["docs:file:fil_a", "docs:document:doc_b"], lineage: { "docs:file:fil_a": ["docs:document:doc_a"] }, grants: [grant({ resourceScope: { refs: ["docs:document:doc_a"] } })] }, "consent_required"],
    ["every named ref inside the one grant's scope", { refs: ["docs:file:fil_a", "docs:document:doc_a"], lineage: { "docs:file:fil_a": ["docs:document:doc_a"] }, grants: [grant({ resourceScope: { refs: ["docs:document:doc_a"] } })] }, "allow"],
    ["named refs split over two grants are not covered (one grant must cover all)", { refs: ["docs:document:doc_a", "docs:document:doc_b"], grants: [grant({ id: "g1", resourceScope: { refs: ["docs:document:doc_a"] } }), grant({ id: "g2", resourceScope: { refs: ["docs:document:doc_b"] } })] }, "consent_required"],
    ["a list under a scoped grant (results are narrowed)", { operation: "object.list", refs: [], grants: [grant({ operations: ["object.list"], resourceScope: { refs: ["docs:document:doc_x"] } })] }, "allow"],
    ["a namespace-level write under a ref-scoped grant", { operation: "object.action.reply", refs: [], grants: [grant({ resourceScope: { refs: ["docs:document:doc_x"] } })] }, "consent_required"],
    ["an account scope covers refs in that account", { namespace: "mail", refs: ["mail:gmail:acc_1:message:m1"], parsed: { "mail:gmail:acc_1:message:m1": { kind: "mail.message", account_id: "acc_1" } }, grants: [grant({ resourceScope: { account_id: "acc_1" } })] }, "allow"],
    ["an account scope does not cover another account's refs", { namespace: "mail", refs: ["mail:gmail:acc_2:message:m1"], parsed: { "mail:gmail:acc_2:message:m1": { kind: "mail.message", account_id: "acc_2" } }, grants: [grant({ resourceScope: { account_id: "acc_1" } })] }, "consent_required"],
    ["an expired grant beside a live one", { grants: [grant({ id: "grt_old", expiresAt: new Date("2026-01-01T00:00:00Z") }), grant({ id: "grt_new" })] }, "allow"],
    ["a user acting for themselves", { principal: { type: "user", userId: "usr_alice" }, grants: [], ceilingMode: "off" }, "allow"],
  ])("%s → %s", (_name, over, expected) => expect(outcome(over)).toBe(expected));

  it.each([
    [-1000, "allow"],
    [0, "grant_expired"],
    [1000, "grant_expired"],
  ])("at expiry %+i ms the grant is %s", (offset, expected) => {
    const expiresAt = new Date(now.getTime() - offset);
    expect(outcome({ grants: [grant({ expiresAt })] })).toBe(expected);
  });

  it("says which refs a live grant does not reach, and what changed for a suspended operation", () => {
    const outside = gateOne(input({ refs: ["docs:document:doc_a", "docs:document:doc_b"], grants: [grant({ resourceScope: { refs: ["docs:document:doc_a"] } })] }));
    expect(outside).toMatchObject({ allow: false, code: "consent_required", outsideScope: ["docs:document:doc_b"] });
    const suspended = gateOne(input({ operation: "object.action.reply", grants: [grant({ suspensions: { "object.action.reply": { at: "x", change: "risk read → destructive" } } })] }));
    expect(suspended).toMatchObject({ allow: false, code: "consent_required", suspended: { grantId: "grt_1", change: "risk read → destructive" } });
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

describe("gate one: modes and single-call approvals", () => {
  const send = { operation: "object.action.send" as const, risk: "write" as const, refs: [] };
  const approval = (over: Partial<ApprovalFacts> = {}): ApprovalFacts => ({
    id: "apr_1",
    actorId: "act_a",
    tool: "object_action",
    namespace: "docs",
    operation: "object.action.send",
    ref: null,
    status: "approved",
    payloadDigest: "d1",
    expiresAt: new Date(now.getTime() + 60_000),
    note: null,
    result: null,
    voidReason: null,
    ...over,
  });
  const naming = (row: ApprovalFacts | null, over: Partial<ApprovalAsk> = {}): ApprovalAsk => ({ id: "apr_1", digest: "d1", tool: "object_action", row, ...over });

  it.each<[string, Partial<GateOneInput>, string]>([
    ["ask at the ceiling: a grant does not cover it", { ...send, ceilingMode: "ask", grants: [grant({ operations: ["object.action.send"] })] }, "approval_required"],
    ["ask in the grantor's choice under an owner's on", { ...send, ceilingMode: "on", choiceMode: "ask" }, "approval_required"],
    ["a choice of on does not loosen the owner's ask", { ...send, ceilingMode: "ask", choiceMode: "on" }, "approval_required"],
    ["a choice of off under the owner's ask", { ...send, ceilingMode: "ask", choiceMode: "off" }, "operation_disabled"],
    ["ask needs no grant to be asked", { ...send, ceilingMode: "ask", grants: [] }, "approval_required"],
    ["a destructive operation the owner never set, in a tenant that starts them at ask", { operation: "object.delete", risk: "destructive", destructiveDefault: "ask" }, "approval_required"],
    ["the owner set it on outright", { operation: "object.delete", risk: "destructive", destructiveDefault: "ask", ceilingMode: "on", grants: [grant({ operations: ["object.delete"] })] }, "allow"],
    ["a tenant from before approvals: destructive operations stay on", { operation: "object.delete", risk: "destructive", destructiveDefault: "on", grants: [grant({ operations: ["object.delete"] })] }, "allow"],
    ["a read is never asked, whatever a row says", { operation: "object.get", risk: "read", ceilingMode: "ask" }, "allow"],
    ["approved, live and the same call: runs", { ...send, ceilingMode: "ask", approval: naming(approval()) }, "allow"],
    ["still pending", { ...send, ceilingMode: "ask", approval: naming(approval({ status: "pending" })) }, "approval_required"],
    ["denied", { ...send, ceilingMode: "ask", approval: naming(approval({ status: "denied", note: "not now" })) }, "approval_denied"],
    ["approved but past its expiry", { ...send, ceilingMode: "ask", approval: naming(approval({ expiresAt: new Date(now.getTime() - 1) })) }, "approval_expired"],
    ["voided (its token was revoked)", { ...send, ceilingMode: "ask", approval: naming(approval({ status: "void", voidReason: "token revoked" })) }, "approval_expired"],
    ["another input", { ...send, ceilingMode: "ask", approval: naming(approval(), { digest: "d2" }) }, "approval_mismatch"],
    ["another tool", { ...send, ceilingMode: "ask", approval: naming(approval(), { tool: "upsert_object" }) }, "approval_mismatch"],
    ["another operation", { operation: "object.action.reply", risk: "write", refs: [], ceilingMode: "ask", approval: naming(approval()) }, "approval_mismatch"],
    ["another agent's approval is unknown", { ...send, ceilingMode: "ask", approval: naming(approval({ actorId: "act_other" })) }, "approval_unknown"],
    ["no such approval", { ...send, ceilingMode: "ask", approval: naming(null) }, "approval_unknown"],
    ["turned off after it was approved", { ...send, ceilingMode: "off", approval: naming(approval()) }, "operation_disabled"],
    ["set back to on: an approval does not stand in for a grant", { ...send, ceilingMode: "on", grants: [], approval: naming(approval()) }, "consent_required"],
    ["set back to on: a grant lets the call in, approval_id or not", { ...send, ceilingMode: "on", grants: [grant({ operations: ["object.action.send"] })], approval: naming(approval()) }, "allow"],
    ["set back to on: a call that already ran still replays", { ...send, ceilingMode: "on", grants: [], approval: naming(approval({ status: "consumed", result: 1 })) }, "allow"],
    ["the grantor turned it off after it was approved", { ...send, ceilingMode: "ask", choiceMode: "off", approval: naming(approval()) }, "operation_disabled"],
  ])("%s → %s", (_name, over, expected) => expect(outcome(over)).toBe(expected));

  it("replays a consumed approval's result, even after its expiry, and runs nothing", () => {
    const d = gateOne(input({ ...send, ceilingMode: "ask", approval: naming(approval({ status: "consumed", result: { ok: 1 }, expiresAt: new Date(now.getTime() - 1) })) }));
    expect(d).toMatchObject({ allow: true, replay: { approvalId: "apr_1", result: { ok: 1 } } });
    expect(d.allow && d.approvalId).toBeFalsy();
  });

  it("lets an approved call in by the approval, not by a grant", () => {
    expect(gateOne(input({ ...send, ceilingMode: "ask", approval: naming(approval()) }))).toMatchObject({ allow: true, approvalId: "apr_1", grantId: null });
  });
});
