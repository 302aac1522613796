import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { approvals, auditEvents } from "@/db/schema";
import { makeTenant, type TestTenant } from "@/test-support";
import { createActor } from "@/lib/authz/actors";
import { decideConsentRequest, listConsentRequests } from "@/lib/authz/consent";
import type { ActorContext } from "@/lib/authz/context";
import { createGrant, createGrantTx, revokeGrant } from "@/lib/authz/grants";
import { newId } from "@/lib/ids";
import { dispatch } from "@/lib/tools/dispatch";
import { auditDirectory, verifyAuditChainAs } from "@/lib/audit/directory";
import { call, errorOf, makeActor } from "@/test-support";
import { decideApproval } from "@/lib/approvals/decide";
import { approvalTimeline, grantTimeline, stageOf } from "./timeline";

async function bobsAgent(t: TestTenant) {
  const { actor } = await createActor(t.db, t.users.bob!, { name: "Helper bot", kind: "hosted_agent", issue_token: false, token_expires_in_days: null });
  const ctx: ActorContext = {
    kind: "actor",
    tenantId: t.tenantId,
    actorId: actor.id,
    actorKind: "hosted_agent",
    actorName: actor.name,
    grantorId: t.users.bob!.userId,
    via: "actor_token",
    credentialId: newId("tok"),
    requestId: newId("req"),
  };
  return { actor, ctx };
}

const listMemory = { namespace: "memory", kind: "memory.item" };

async function supportViews(t: TestTenant, view: string) {
  const rows = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "support.viewed")));
  return rows.filter((r) => r.details.view === view);
}

describe("a grant's timeline", () => {
  it("reads requested → created (approved) → used → revoked → denied, oldest first, with names", async () => {
    const t = await makeTenant();
    const { actor, ctx } = await bobsAgent(t);
    await expect(dispatch(ctx, "list_objects", listMemory)).rejects.toMatchObject({ code: "consent_required" });
    const [request] = await listConsentRequests(t.db, t.users.bob!, { status: "pending" });
    const { grant } = await decideConsentRequest(t.db, t.users.bob!, request!.id, { decision: "approve", expires: "1d", scope_to_ref: false });
    await dispatch(ctx, "list_objects", listMemory);
    await dispatch(ctx, "list_objects", listMemory);
    await revokeGrant(t.db, t.users.bob!, grant!.id, "no longer needed");
    await expect(dispatch(ctx, "list_objects", listMemory)).rejects.toMatchObject({ code: "grant_revoked" });

    const tl = await grantTimeline(t.db, t.users.sam!, grant!.id);
    // Approval creates the grant and then records the decision, in one transaction.
    expect(tl.entries.map((e) => e.stage)).toEqual(["requested", "created", "approved", "used", "used", "revoked", "denied"]);
    expect(tl.summary).toMatchObject({ uses: 2, denials: 1, errors: 0, last_used_at: expect.any(String) });
    expect(tl.grant).toMatchObject({ status: "revoked", revoke_reason: "no longer needed", revoked_by_name: "bob", actor: { id: actor.id, name: "Helper bot", kind: "hosted_agent" }, grantor: { name: "bob" } });
    const revoked = tl.entries.find((e) => e.stage === "revoked")!;
    expect(revoked.who).toMatchObject({ type: "user", user: "bob", actor: null });
    expect(revoked.event?.reason).toBe("no longer needed");
    const used = tl.entries.find((e) => e.stage === "used")!;
    expect(used.who).toMatchObject({ type: "actor", actor: "Helper bot", user: "bob" });
    expect(used.event).toMatchObject({ operation: "object.list", namespace: "memory" });
  });

  it("is readable by the grantor, owners and support; anyone else gets not_found", async () => {
    const t = await makeTenant({ alice: "owner", bob: "member", carol: "member", sam: "support" });
    const { actor } = await bobsAgent(t);
    const grant = await createGrant(t.db, t.users.bob!, { actor_id: actor.id, namespace: "memory", operations: ["object.list"], resource_scope: null, expires: "30d" });
    for (const who of ["bob", "alice", "sam"]) expect((await grantTimeline(t.db, t.users[who]!, grant.id)).grant.id).toBe(grant.id);
    await expect(grantTimeline(t.db, t.users.carol!, grant.id)).rejects.toMatchObject({ code: "not_found" });
    const other = await makeTenant();
    await expect(grantTimeline(other.db, other.users.alice!, grant.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("audits a support person's view of it, and only theirs", async () => {
    const t = await makeTenant();
    const { actor } = await bobsAgent(t);
    const grant = await createGrant(t.db, t.users.bob!, { actor_id: actor.id, namespace: "memory", operations: ["object.list"], resource_scope: null, expires: "30d" });
    await grantTimeline(t.db, t.users.bob!, grant.id);
    await grantTimeline(t.db, t.users.alice!, grant.id);
    expect(await supportViews(t, "grant.timeline")).toHaveLength(0);
    await grantTimeline(t.db, t.users.sam!, grant.id);
    const views = await supportViews(t, "grant.timeline");
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ userId: t.users.sam!.userId, subjectId: grant.id });
  });

  it("shows an expiry where it falls, and none when the grant was revoked first", async () => {
    const t = await makeTenant();
    const { actor } = await bobsAgent(t);
    const past = new Date(Date.now() - 60_000);
    const g = await t.db.transaction((tx) =>
      createGrantTx(tx, t.users.bob!, { actorId: actor.id, namespace: "memory", operations: ["object.list"], resourceScope: null, expiresAt: past }),
    );
    const tl = await grantTimeline(t.db, t.users.bob!, g.id);
    // The grant row was created after its expiry moment (it was born expired), so expiry comes first.
    expect(tl.entries.map((e) => e.stage)).toEqual(["expired", "created"]);
    expect(tl.entries[0]!.event).toBeNull();

    const later = new Date(Date.now() + 3_600_000);
    const h = await t.db.transaction((tx) =>
      createGrantTx(tx, t.users.bob!, { actorId: actor.id, namespace: "memory", operations: ["object.get"], resourceScope: null, expiresAt: later }),
    );
    await revokeGrant(t.db, t.users.bob!, h.id, "done");
    const afterExpiry = new Date(later.getTime() + 1000);
    expect((await grantTimeline(t.db, t.users.bob!, h.id, { now: afterExpiry })).entries.map((e) => e.stage)).toEqual(["created", "revoked"]);
  });

  it("lists only the newest events when there are many, and says so", async () => {
    const t = await makeTenant();
    const { actor, ctx } = await bobsAgent(t);
    await createGrant(t.db, t.users.bob!, { actor_id: actor.id, namespace: "memory", operations: ["object.list"], resource_scope: null, expires: "30d" });
    for (let i = 0; i < 4; i++) await dispatch(ctx, "list_objects", listMemory);
    const [grant] = await t.db.select({ id: auditEvents.subjectId }).from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "grant.created")));
    const tl = await grantTimeline(t.db, t.users.bob!, grant!.id!, { limit: 3 });
    expect(tl.truncated).toBe(true);
    expect(tl.entries.map((e) => e.stage)).toEqual(["used", "used", "used"]);
    expect(tl.summary.uses).toBe(4);
  });
});

describe("stages", () => {
  it.each([
    ["tool.call", "allow", "used"],
    ["tool.call", "deny", "denied"],
    ["tool.call", "error", "failed"],
    ["grant.revoked", "ok", "revoked"],
    ["consent.denied", "ok", "refused"],
    ["url.minted", "ok", "other"],
  ])("%s/%s is %s", (event, outcome, stage) => {
    expect(stageOf({ event, outcome })).toBe(stage);
  });
});

describe("directory and chain verification", () => {
  it("names the workspace's people and actors, for owners and support only", async () => {
    const t = await makeTenant();
    const { actor } = await bobsAgent(t);
    const dir = await auditDirectory(t.db, t.users.sam!);
    expect(dir.users.map((u) => u.name).sort()).toEqual(["alice", "bob", "sam"]);
    expect(dir.actors).toEqual([{ id: actor.id, name: "Helper bot", kind: "hosted_agent", grantor_id: t.users.bob!.userId, revoked: false }]);
    await expect(auditDirectory(t.db, t.users.bob!)).rejects.toMatchObject({ code: "forbidden" });
  });

  it("records who verified the chain and what they found", async () => {
    const t = await makeTenant();
    await bobsAgent(t);
    const result = await verifyAuditChainAs(t.db, t.users.sam!);
    expect(result).toMatchObject({ ok: true, checked: 1, verified_at: expect.any(String) });
    const [rec] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "audit.verified")));
    expect(rec).toMatchObject({ userId: t.users.sam!.userId, details: { ok: true, checked: 1, viewer_role: "support" } });
    expect(await verifyAuditChainAs(t.db, t.users.alice!)).toMatchObject({ ok: true, checked: 2 });
    await expect(verifyAuditChainAs(t.db, t.users.bob!)).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("an approval's timeline", () => {
  it("reads asked → approved (who, the note) → ran, for the grantor, owners and support (recorded), and no one else", async () => {
    const t = await makeTenant({ alice: "owner", bob: "member", carol: "member", sam: "support" }, { destructiveDefault: "ask" });
    const bob = t.users.bob!;
    const doc = (await dispatch(call(bob), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Retro notes" } })) as { ref: string };
    const agent = await makeActor(t, bob, "Sweeper");
    const id = (await errorOf(dispatch(call(agent), "delete_object", { ref: doc.ref }))).details.approval_id as string;
    await decideApproval(t.db, bob, id, { decision: "approve", note: "old copy" });
    await dispatch(call(agent), "delete_object", { ref: doc.ref, approval_id: id });

    const tl = await approvalTimeline(t.db, t.users.sam!, id);
    expect(tl.approval).toMatchObject({ id, status: "consumed", actor: { name: "Sweeper" } });
    expect(tl.entries.map((e) => [e.stage, e.who.actor ?? e.who.user])).toEqual([
      ["requested", "Sweeper"],
      ["approved", "bob"],
      ["ran", "Sweeper"],
    ]);
    expect(tl.entries[1]!.event?.details).toMatchObject({ note: "old copy", items: [{ ref: doc.ref, label: "Retro notes", visible: true }] });
    expect(await supportViews(t, "approval.timeline")).toHaveLength(1);
    for (const who of ["bob", "alice"]) expect((await approvalTimeline(t.db, t.users[who]!, id)).approval.id).toBe(id);
    await expect(approvalTimeline(t.db, t.users.carol!, id)).rejects.toMatchObject({ code: "not_found" });
    const other = await makeTenant();
    await expect(approvalTimeline(other.db, other.users.alice!, id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("an approval nobody decided in time reads asked → expired", async () => {
    const t = await makeTenant(undefined, { destructiveDefault: "ask" });
    const bob = t.users.bob!;
    const doc = (await dispatch(call(bob), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Scratch" } })) as { ref: string };
    const agent = await makeActor(t, bob, "Sweeper");
    const id = (await errorOf(dispatch(call(agent), "delete_object", { ref: doc.ref }))).details.approval_id as string;
    await t.db.update(approvals).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(approvals.id, id));
    expect((await approvalTimeline(t.db, bob, id)).entries.map((e) => e.stage)).toEqual(["requested", "expired"]);
  });
});
