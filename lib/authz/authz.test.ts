import { describe, expect, it } from "vitest";
import { call, codeOf, makeActor, makeTenant } from "@/test-support";
import { actorForToken, createActor, issueActorToken, revokeActor, revokeActorToken } from "./actors";
import { createGrant, listGrants, revokeGrant } from "./grants";
import { changeCeiling, changeChoices, operationStates } from "./policy";


describe("roles", () => {
  it("support staff cannot create actors' grants, revoke grants, or change the ceiling or choices", async () => {
    const t = await makeTenant();
    const agent = await makeActor(t, t.users.alice!);
    const sam = t.users.sam!;
    expect(await codeOf(createGrant(t.db, call(sam), { actor_id: agent.actorId, namespace: "docs", operations: ["object.get"], resource_scope: null, expires: "1d" }))).toBe("forbidden");
    const g = await createGrant(t.db, call(t.users.alice!), { actor_id: agent.actorId, namespace: "docs", operations: ["object.get"], resource_scope: null, expires: "1d" });
    expect(await codeOf(revokeGrant(t.db, call(sam), g.id, "no"))).toBe("forbidden");
    expect(await codeOf(changeCeiling(t.db, call(sam), { namespace: "docs", changes: [{ operation: "object.get", enabled: false }] }))).toBe("forbidden");
    expect(await codeOf(changeChoices(t.db, call(sam), { namespace: "docs", changes: [{ operation: "object.get", enabled: false }] }))).toBe("forbidden");
    // …but they read the whole tenant's grants.
    expect((await listGrants(t.db, call(sam), { scope: "tenant", status: "all" })).map((x) => x.id)).toContain(g.id);
  });

  it("members cannot change the ceiling, nor grant to someone else's actor", async () => {
    const t = await makeTenant();
    const alicesAgent = await makeActor(t, t.users.alice!);
    expect(await codeOf(changeCeiling(t.db, call(t.users.bob!), { namespace: "docs", changes: [{ operation: "object.get", enabled: false }] }))).toBe("forbidden");
    expect(await codeOf(createGrant(t.db, call(t.users.bob!), { actor_id: alicesAgent.actorId, namespace: "docs", operations: ["object.get"], resource_scope: null, expires: "1d" }))).toBe("not_found");
  });

  it("a user's choices are bounded by the ceiling", async () => {
    const t = await makeTenant();
    await changeCeiling(t.db, call(t.users.alice!), { namespace: "memory", changes: [{ operation: "object.delete", enabled: false }] });
    await changeChoices(t.db, call(t.users.bob!), { namespace: "memory", changes: [{ operation: "object.delete", enabled: true }, { operation: "object.upsert", enabled: false }] });
    const states = Object.fromEntries((await operationStates(t.db, t.tenantId, t.users.bob!.userId, "memory")).map((s) => [s.operation, s]));
    expect(states["object.delete"]).toMatchObject({ ceiling: false, choice: true, effective: false });
    expect(states["object.upsert"]).toMatchObject({ ceiling: true, choice: false, effective: false });
    expect(states["object.get"]).toMatchObject({ effective: true });
  });
});

describe("grants name exact operations", () => {
  it.each([
    ["object.action.Reply_comment"],
    ["object.action.reply_comment "],
    ["object.action.r\u0435ply_comment"],
    ["object.*"],
    ["*"],
    ["object.action.send"],
  ])("refuses %j", async (op) => {
    const t = await makeTenant({ alice: "owner" });
    const agent = await makeActor(t, t.users.alice!);
    expect(await codeOf(createGrant(t.db, call(t.users.alice!), { actor_id: agent.actorId, namespace: "docs", operations: [op], resource_scope: null, expires: "1d" }))).toBe("invalid_input");
  });

  it("reads an explicit object.action.* as the all-actions flag, never as a stored key", async () => {
    const t = await makeTenant({ alice: "owner" });
    const agent = await makeActor(t, t.users.alice!);
    const g = await createGrant(t.db, call(t.users.alice!), { actor_id: agent.actorId, namespace: "board", operations: ["object.action.*"], resource_scope: null, expires: "never" });
    expect(g).toMatchObject({ operations: [], all_actions: true, expires_at: null, status: "live" });
    const flag = await createGrant(t.db, call(t.users.alice!), { actor_id: agent.actorId, namespace: "board", operations: [], all_actions: true, resource_scope: null, expires: "never" });
    expect(flag).toMatchObject({ operations: [], all_actions: true });
  });
});

describe("actor tokens", () => {
  it("are shown once, authenticate as the actor (not the user), rotate, and die with their actor", async () => {
    const t = await makeTenant({ alice: "owner" });
    const alice = call(t.users.alice!);
    const { actor, token } = await createActor(t.db, alice, { name: "Bot", kind: "automation", issue_token: true, token_expires_in_days: null });
    const ctx = await actorForToken(t.db, token!.token);
    expect(ctx).toMatchObject({ kind: "actor", actorId: actor.id, grantorId: t.users.alice!.userId, actorKind: "automation" });
    expect(ctx).not.toHaveProperty("userId");

    const rotated = await issueActorToken(t.db, alice, actor.id, { expires_in_days: null, revoke_others: true });
    expect(await actorForToken(t.db, token!.token)).toBeNull();
    expect(await actorForToken(t.db, rotated.token)).not.toBeNull();

    await revokeActorToken(t.db, alice, actor.id, rotated.id);
    expect(await actorForToken(t.db, rotated.token)).toBeNull();

    const third = await issueActorToken(t.db, alice, actor.id, { expires_in_days: 1, revoke_others: false });
    expect(await actorForToken(t.db, third.token, new Date(Date.now() + 2 * 86_400_000))).toBeNull(); // expired
    await revokeActor(t.db, alice, actor.id, "retired");
    expect(await actorForToken(t.db, third.token)).toBeNull();
    expect(await codeOf(issueActorToken(t.db, alice, actor.id, { expires_in_days: null, revoke_others: false }))).toBe("conflict");
  });

  it("revoking an actor revokes its grants, with the reason", async () => {
    const t = await makeTenant({ alice: "owner" });
    const agent = await makeActor(t, t.users.alice!);
    const g = await createGrant(t.db, call(t.users.alice!), { actor_id: agent.actorId, namespace: "docs", operations: ["object.get"], resource_scope: null, expires: "1d" });
    await revokeActor(t.db, call(t.users.alice!), agent.actorId, "compromised");
    const [after] = await listGrants(t.db, call(t.users.alice!), { actor_id: agent.actorId, status: "all", scope: "mine" });
    expect(after).toMatchObject({ id: g.id, status: "revoked", revoke_reason: "actor revoked: compromised" });
  });
});
