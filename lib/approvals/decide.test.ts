// The person's side of single-call approvals, over the real path: an ask-mode tenant, an agent's delete_object
// answered approval_required, then the grantor reading and deciding it.
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { approvals, auditEvents, connectedAccounts } from "@/db/schema";
import { changeCeiling } from "@/lib/authz/policy";
import { newId } from "@/lib/ids";
import { call, errorOf, makeActor, makeTenant, roundTrips, type TestTenant } from "@/test-support";
import { dispatch } from "@/lib/tools/dispatch";
import { decideApproval, decideApprovalBody, getApproval, listApprovals } from "./decide";

type Json = Record<string, unknown>;

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant(undefined, { destructiveDefault: "ask" });
});

/** A docs document of alice's, and an agent of hers whose delete of it waits for her approval. */
async function askToDelete(title = "Q3 planning", agentName = "Tidy Bot") {
  const alice = t.users.alice!;
  const doc = (await dispatch(call(alice), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title } })) as Json;
  const agent = await makeActor(t, alice, agentName);
  const asked = await errorOf(dispatch(call(agent), "delete_object", { ref: doc.ref }));
  expect(asked.code).toBe("approval_required");
  return { agent, ref: doc.ref as string, id: asked.details.approval_id as string };
}

/** The approval's own audit records (the agent's refused and allowed calls name it too). */
const auditOf = async (id: string) =>
  (await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.subjectId, id))).orderBy(auditEvents.seq)).filter((e) => e.event.startsWith("approval."));

describe("getApproval", () => {
  it("names who asks, the action in words and what a delete destroys, by name", async () => {
    const { id, ref } = await askToDelete("Launch checklist");
    const a = await getApproval(t.db, t.users.alice!, id);
    expect(a).toMatchObject({ status: "pending", actor: { name: "Tidy Bot", kind: "hosted_agent" }, operation: "object.delete", risk: "destructive", ref, target: { ref, label: "Launch checklist", visible: true } });
    expect(a.operation_label).not.toBe("object.delete");
    expect(a.call).toMatchObject({ kind: "presented", title: a.operation_label });
    const destroys = a.call?.kind === "presented" ? a.call.lines.find((l) => l.label === "Destroys") : undefined;
    expect(destroys?.value).toContain("Launch checklist");
    expect(a.payload_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("presents mail and a patch as the consent page does: recipients and body; before → after", async () => {
    const alice = t.users.alice!;
    await changeCeiling(t.db, call(alice), { namespace: "mail", changes: [{ operation: "object.action.send", mode: "ask" }] });
    await changeCeiling(t.db, call(alice), { namespace: "docs", changes: [{ operation: "object.upsert", mode: "ask" }] });
    const accountId = newId("acc");
    await t.db.insert(connectedAccounts).values({ id: accountId, tenantId: t.tenantId, userId: alice.userId, provider: "devmail", api: "gmail", externalId: accountId, email: "alice@mail.test", label: "Work", claims: ["gmail:read", "gmail:send"], scopes: [], status: "active" });
    const agent = await makeActor(t, alice, "Mailer");
    const send = { namespace: "mail", action: "send", payload: { to: ["dana@client.test"], subject: "Offsite", body: "See you Thursday.", account: "Work" } };
    const mail = await errorOf(dispatch(call(agent), "object_action", send));
    expect(mail.code, JSON.stringify([mail.message, mail.details])).toBe("approval_required");
    const shown = await getApproval(t.db, alice, mail.details.approval_id as string);
    expect(shown.call).toMatchObject({ kind: "presented", title: "Send an email" });
    const lines = shown.call?.kind === "presented" ? Object.fromEntries(shown.call.lines.map((l) => [l.label, l.value])) : {};
    expect(lines).toMatchObject({ To: expect.stringContaining("dana@client.test"), Subject: "Offsite", Message: "See you Thursday." });

    const doc = (await dispatch(call(alice), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Draft plan" } })) as Json;
    const patch = await errorOf(dispatch(call(agent), "upsert_object", { namespace: "docs", kind: "docs.document", ref: doc.ref, fields: { title: "Final plan" } }));
    expect(patch.code, patch.message).toBe("approval_required");
    const change = await getApproval(t.db, alice, patch.details.approval_id as string);
    expect(change.target).toMatchObject({ label: "Draft plan" });
    expect(JSON.stringify(change.call)).toContain("Draft plan → Final plan");
  });

  it("is not found for another member, another tenant's people and support staff", async () => {
    const { id } = await askToDelete();
    await expect(getApproval(t.db, t.users.bob!, id)).rejects.toMatchObject({ code: "not_found" });
    await expect(getApproval(t.db, t.users.sam!, id)).rejects.toMatchObject({ code: "not_found" });
    const other = await makeTenant();
    await expect(getApproval(other.db, other.users.alice!, id)).rejects.toMatchObject({ code: "not_found" });
    await expect(decideApproval(other.db, other.users.alice!, id, { decision: "approve" })).rejects.toMatchObject({ code: "not_found" });
    await expect(decideApproval(t.db, t.users.bob!, id, { decision: "approve" })).rejects.toMatchObject({ code: "not_found" });
    expect((await getApproval(t.db, t.users.alice!, id)).status).toBe("pending");
  });
});

describe("listApprovals", () => {
  it("lists the grantor's own, those still waiting first, then the rest newest first; past their time they read expired", async () => {
    const own = await makeTenant(undefined, { destructiveDefault: "ask" });
    const saved = t;
    t = own;
    try {
      const first = await askToDelete("First");
      const second = await askToDelete("Second");
      const third = await askToDelete("Third");
      await decideApproval(t.db, t.users.alice!, second.id, { decision: "deny" });
      const all = await listApprovals(t.db, t.users.alice!, { status: "all" });
      // Waiting ones by how soon they lapse (first asked lapses first), then the decided one.
      expect(all.map((a) => a.id)).toEqual([first.id, third.id, second.id]);
      expect((await listApprovals(t.db, t.users.alice!, { status: "pending" })).map((a) => a.id)).toEqual([first.id, third.id]);
      expect(await listApprovals(t.db, t.users.bob!, { status: "all" })).toEqual([]);
      const later = new Date(Date.now() + 24 * 3600_000);
      expect(await listApprovals(t.db, t.users.alice!, { status: "pending" }, later)).toEqual([]);
      expect((await listApprovals(t.db, t.users.alice!, { status: "all" }, later)).map((a) => [a.id, a.status])).toEqual([
        [third.id, "expired"],
        [second.id, "denied"],
        [first.id, "expired"],
      ]);
    } finally {
      t = saved;
    }
  });
});

describe("decideApproval", () => {
  it("approves exactly this call: the retry runs once, a second retry replays its result", async () => {
    const { id, agent, ref } = await askToDelete("Old draft");
    const trips = roundTrips();
    const decided = await decideApproval(t.db, t.users.alice!, id, { decision: "approve", note: "  fine, it is a duplicate  " });
    const sql = trips.stop().map((s) => s.toLowerCase());
    expect(decided).toMatchObject({ status: "approved", note: "fine, it is a duplicate", decided_by: { name: "alice" } });
    // The decision and its audit record are one transaction: locked, changed and recorded between BEGIN and COMMIT.
    const begin = sql.findIndex((s) => s === "begin");
    const commit = sql.findIndex((s, i) => i > begin && s === "commit");
    const inside = sql.slice(begin, commit);
    expect(inside.some((s) => s.startsWith("select") && s.includes('"approvals"') && s.includes("for update"))).toBe(true);
    expect(inside.some((s) => s.startsWith('update "approvals"'))).toBe(true);
    expect(inside.some((s) => s.includes("insert into audit_events"))).toBe(true);

    const events = await auditOf(id);
    expect(events.map((e) => e.event)).toEqual(["approval.requested", "approval.approved"]);
    expect(events[1]!.details).toMatchObject({ approval_id: id, note: "fine, it is a duplicate", items: [{ ref, label: "Old draft", visible: true }] });

    const ran = await dispatch(call(agent), "delete_object", { ref, approval_id: id });
    const again = await dispatch(call(agent), "delete_object", { ref, approval_id: id });
    expect(again).toEqual(ran);
    expect((await auditOf(id)).filter((e) => e.event === "approval.consumed")).toHaveLength(1);
    // What it destroyed can no longer be described; the page names it as alice read it when she approved.
    expect(await getApproval(t.db, t.users.alice!, id)).toMatchObject({ status: "consumed", target: { ref, label: "Old draft", visible: true } });
  });

  it("a second decision is a conflict naming the first: what, by whom and when", async () => {
    const { id } = await askToDelete();
    const first = await decideApproval(t.db, t.users.alice!, id, { decision: "approve" });
    const again = await errorOf(decideApproval(t.db, t.users.alice!, id, { decision: "deny", note: "changed my mind" }));
    expect(again.code).toBe("conflict");
    expect(again.details).toMatchObject({ status: "approved", decision: "approved", decided_by: "alice", decided_at: first.decided_at });
    expect((await getApproval(t.db, t.users.alice!, id)).note).toBeNull();
  });

  it("a denial keeps the note, and the agent's retry is told it", async () => {
    const { id, agent, ref } = await askToDelete();
    const denied = await decideApproval(t.db, t.users.alice!, id, { decision: "deny", note: "Keep it, we still need it." });
    expect(denied).toMatchObject({ status: "denied", note: "Keep it, we still need it." });
    expect((await auditOf(id)).at(-1)).toMatchObject({ event: "approval.denied", details: expect.objectContaining({ note: "Keep it, we still need it." }) });
    const retry = await errorOf(dispatch(call(agent), "delete_object", { ref, approval_id: id }));
    expect(retry.code).toBe("approval_denied");
    expect(retry.details.note).toBe("Keep it, we still need it.");
    const twice = await errorOf(decideApproval(t.db, t.users.alice!, id, { decision: "approve" }));
    expect(twice.details).toMatchObject({ status: "denied", decision: "denied", decided_by: "alice" });
  });

  it("past its time it is refused as expired, and marked so once, audited", async () => {
    const { id } = await askToDelete();
    await t.db.update(approvals).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(approvals.id, id));
    const late = await errorOf(decideApproval(t.db, t.users.alice!, id, { decision: "approve" }));
    expect(late.code).toBe("conflict");
    expect(late.details).toMatchObject({ status: "expired" });
    const [row] = await t.db.select().from(approvals).where(eq(approvals.id, id));
    expect(row).toMatchObject({ status: "expired", decidedAt: null });
    expect(await errorOf(decideApproval(t.db, t.users.alice!, id, { decision: "deny" }))).toMatchObject({ code: "conflict", details: expect.objectContaining({ status: "expired" }) });
    expect((await auditOf(id)).map((e) => e.event)).toEqual(["approval.requested", "approval.expired"]);
  });

  it("support staff may not decide, and the body is bounded", async () => {
    const { id } = await askToDelete();
    expect(await errorOf(decideApproval(t.db, t.users.sam!, id, { decision: "approve" }))).toMatchObject({ code: "forbidden" });
    expect(decideApprovalBody.safeParse({ decision: "approve", note: "x".repeat(501) }).success).toBe(false);
    expect(decideApprovalBody.safeParse({ decision: "approve", note: `  ${"x".repeat(500)}  ` }).success).toBe(true);
    expect(decideApprovalBody.safeParse({ decision: "maybe" }).success).toBe(false);
    expect(decideApprovalBody.safeParse({ decision: "approve", expires: "1d" }).success).toBe(false);
    expect((await getApproval(t.db, t.users.alice!, id)).status).toBe("pending");
  });
});
