// Ask each time, end to end through the dispatcher: an operation in ask mode answers approval_required with an
// approval bound to the exact input; approved, the retry naming it runs once and later retries replay; a changed
// input, a denial, an expiry, a revoke or the operation turned off each give their own answer.
import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { approvals, auditEvents } from "@/db/schema";
import { decideApproval, getApproval } from "@/lib/approvals/decide";
import { payloadDigest } from "@/lib/approvals/record";
import { revokeActor, revokeActorToken } from "@/lib/authz/actors";
import { changeCeiling, changeChoices, operationStates } from "@/lib/authz/policy";
import { canonicalJson } from "@/lib/canonical-json";
import { dispatch } from "@/lib/tools/dispatch";
import { redeemSignedUrl } from "@/lib/tools/files";
import { call, codeOf, errorOf, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";

type Json = Record<string, unknown>;
let t: TestTenant;

beforeAll(async () => {
  t = await makeTenant(undefined, { destructiveDefault: "ask" });
});

const newDoc = async (title: string) => ((await dispatch(call(t.users.alice!), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title } })) as Json).ref as string;
const exists = async (ref: string) => (await codeOf(dispatch(call(t.users.alice!), "get_object", { ref }))) === "ok";

/** The person approves (or denies) this call, as the approval page does. */
async function decide(id: string, status: "approved" | "denied", note: string | null = null) {
  const [row] = await t.db.select({ grantorId: approvals.grantorId }).from(approvals).where(eq(approvals.id, id));
  const grantor = Object.values(t.users).find((u) => u.userId === row!.grantorId)!;
  await decideApproval(t.db, call(grantor), id, { decision: status === "approved" ? "approve" : "deny", ...(note ? { note } : {}) });
}

const events = (event: string, subjectId: string) =>
  t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, event as never), eq(auditEvents.subjectId, subjectId)));

describe("an operation in ask mode", () => {
  it("answers approval_required with the approval of this exact call, and nothing runs", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const ref = await newDoc("Ask before deleting");
    const e = await errorOf(dispatch(call(agent), "delete_object", { ref }));
    expect(e.code).toBe("approval_required");
    expect(e.status).toBe(403);
    const id = e.details.approval_id as string;
    expect(id).toMatch(/^apr_/);
    expect(e.details).toMatchObject({ wall: "approval", retry_hint: "retry_after_approval", operation: "object.delete", namespace: "docs", ref });
    expect(e.details.approval_url).toMatch(new RegExp(`^https?://[^/]+/approvals/${id}$`));
    expect(new Date(e.details.expires_at as string).getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
    // The digest is of the input (without approval_id and idempotency_key: payloadDigest's own test).
    expect(e.details.payload_digest).toBe(createHash("sha256").update(canonicalJson({ ref })).digest("hex"));
    expect(payloadDigest({ ref, approval_id: "apr_x", idempotency_key: "k-00000001" })).toBe(e.details.payload_digest);
    expect(payloadDigest({ ref: `${ref}x` })).not.toBe(e.details.payload_digest);
    expect(String(e.details.instructions)).toContain(`"approval_id": "${id}"`);
    expect(await exists(ref)).toBe(true);
    expect(await events("approval.requested", id)).toHaveLength(1);

    // Asking again before the person decided: the same approval, not a second one.
    const again = await errorOf(dispatch(call(agent), "delete_object", { ref }));
    expect(again.details.approval_id).toBe(id);
    const rows = await t.db.select().from(approvals).where(and(eq(approvals.tenantId, t.tenantId), eq(approvals.actorId, agent.actorId)));
    expect(rows).toHaveLength(1);
    // Naming it while it waits: still waiting.
    expect(await errorOf(dispatch(call(agent), "delete_object", { ref, approval_id: id }))).toMatchObject({ code: "approval_required", details: { approval_id: id } });
  });

  it("runs once when approved: consumed with the effect, later retries replay the result", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const ref = await newDoc("Delete me once");
    const id = (await errorOf(dispatch(call(agent), "delete_object", { ref }))).details.approval_id as string;
    await decide(id, "approved");
    const first = await dispatch(call(agent), "delete_object", { ref, approval_id: id });
    expect(await exists(ref)).toBe(false);
    const [row] = await t.db.select().from(approvals).where(eq(approvals.id, id));
    expect(row).toMatchObject({ status: "consumed" });
    expect(row!.consumedAt).not.toBeNull();
    // The same call again: the same answer, and nothing runs (a second delete would be not_found).
    expect(await dispatch(call(agent), "delete_object", { ref, approval_id: id })).toEqual(first);
    expect(await events("approval.consumed", id)).toHaveLength(1);
    const calls = await t.db
      .select({ outcome: auditEvents.outcome, details: auditEvents.details })
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, agent.actorId), eq(auditEvents.event, "tool.call"), eq(auditEvents.outcome, "allow")));
    expect(calls.map((c) => (c.details as Json).via ?? ((c.details as Json).replayed ? "replay" : null))).toEqual(["approval", "replay"]);
  });

  it("a different input with the approval is approval_mismatch; a denied one says the person's note", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const a = await newDoc("Keep A");
    const b = await newDoc("Keep B");
    const id = (await errorOf(dispatch(call(agent), "delete_object", { ref: a }))).details.approval_id as string;
    await decide(id, "approved");
    const mismatch = await errorOf(dispatch(call(agent), "delete_object", { ref: b, approval_id: id }));
    expect(mismatch).toMatchObject({ code: "approval_mismatch", status: 409 });
    expect(await exists(b)).toBe(true);
    // Another operation that does not ask: the approval counts for nothing there, the call needs its grant.
    expect(await codeOf(dispatch(call(agent), "object_action", { ref: a, action: "export", payload: { format: "markdown" }, approval_id: id }))).toBe("consent_required");

    const other = (await errorOf(dispatch(call(agent), "delete_object", { ref: b }))).details.approval_id as string;
    await decide(other, "denied", "B is the signed contract");
    const denied = await errorOf(dispatch(call(agent), "delete_object", { ref: b, approval_id: other }));
    expect(denied).toMatchObject({ code: "approval_denied", details: { note: "B is the signed contract", retry_hint: "do_not_retry" } });
    expect(await exists(b)).toBe(true);
  });

  it("an expired approval is approval_expired with a fresh offer; unknown, another agent's or malformed ids are refused", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const ref = await newDoc("Lapsing");
    const id = (await errorOf(dispatch(call(agent), "delete_object", { ref }))).details.approval_id as string;
    await decide(id, "approved");
    const later = new Date(Date.now() + 16 * 60_000);
    const expired = await errorOf(dispatch(call(agent), "delete_object", { ref, approval_id: id }, { now: () => later }));
    expect(expired.code).toBe("approval_expired");
    const fresh = expired.details.approval_required as Json;
    expect(fresh.approval_id).toMatch(/^apr_/);
    expect(fresh.approval_id).not.toBe(id);
    expect((await t.db.select().from(approvals).where(eq(approvals.id, id)))[0]!.status).toBe("expired");
    expect(await events("approval.expired", id)).toHaveLength(1);
    expect(await exists(ref)).toBe(true);

    const stranger = await makeActor(t, t.users.alice!, "Another agent");
    expect(await codeOf(dispatch(call(stranger), "delete_object", { ref, approval_id: fresh.approval_id as string }))).toBe("not_found");
    expect(await codeOf(dispatch(call(agent), "delete_object", { ref, approval_id: "apr_doesnotexist000000000" }))).toBe("not_found");
    expect(await codeOf(dispatch(call(agent), "delete_object", { ref, approval_id: "not an id" }))).toBe("invalid_input");
    const elsewhere = await makeTenant(undefined, { destructiveDefault: "ask" });
    const outsider = await makeActor(elsewhere, elsewhere.users.alice!);
    expect(await codeOf(dispatch(call(outsider), "delete_object", { ref, approval_id: fresh.approval_id as string }))).toBe("not_found");
  });

  it("a call naming its object by a selector is approved for that object, never for whatever the title names later", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const byTitle = { kind: "docs.document", selector: { title: "Offsite agenda (old)" } };
    // Nothing matches: answered as the call would be, and no approval is asked for.
    expect(await codeOf(dispatch(call(agent), "delete_object", byTitle))).toBe("not_found");
    expect(await t.db.select().from(approvals).where(and(eq(approvals.tenantId, t.tenantId), eq(approvals.actorId, agent.actorId)))).toEqual([]);
    const first = await newDoc("Offsite agenda (old)");
    const asked = await errorOf(dispatch(call(agent), "delete_object", byTitle));
    expect(asked).toMatchObject({ code: "approval_required", details: { ref: first } });
    const id = asked.details.approval_id as string;
    expect((await t.db.select().from(approvals).where(eq(approvals.id, id)))[0]!.ref).toBe(first);
    await decide(id, "approved");
    // Meanwhile the approved document goes and another takes its title: the approval does not reach it.
    await dispatch(call(t.users.alice!), "delete_object", { ref: first });
    const second = await newDoc("Offsite agenda (old)");
    const e = await errorOf(dispatch(call(agent), "delete_object", { ...byTitle, approval_id: id }));
    expect(e).toMatchObject({ code: "approval_mismatch", details: { approved_ref: first, ref: second } });
    expect(await exists(second)).toBe(true);
    // Asking again names the new document: a new approval, for it.
    const again = await errorOf(dispatch(call(agent), "delete_object", byTitle));
    expect(again.details.approval_id).not.toBe(id);
    expect(again.details.ref).toBe(second);
  });

  it("a grant never bypasses ask; people act as themselves", async () => {
    const agent = await makeActor(t, t.users.alice!);
    await grant(t, t.users.alice!, agent.actorId, "docs", ["object.delete", "object.get"]);
    const ref = await newDoc("Granted but asked");
    expect(await codeOf(dispatch(call(agent), "delete_object", { ref }))).toBe("approval_required");
    expect(await codeOf(dispatch(call(agent), "get_object", { ref }))).toBe("ok");
    expect(await codeOf(dispatch(call(t.users.alice!), "delete_object", { ref }))).toBe("ok");
  });
});

describe("what an attacker tried (each held after its fix)", () => {
  it("an approved action that names another object by its title runs (the approval's own input, gate two decides)", async () => {
    const alice = t.users.alice!;
    const up = async (kind: string, fields: Json) => ((await dispatch(call(alice), "upsert_object", { namespace: "board", kind, fields })) as Json).ref as string;
    const board = await up("board.board", { title: "Approvals board" });
    const todo = await up("board.column", { board, title: "To do" });
    await up("board.column", { board, title: "Doing" });
    const card = await up("board.card", { column: todo, title: "Ship it" });
    await changeCeiling(t.db, call(alice), { namespace: "board", changes: [{ operation: "object.action.move_card", mode: "ask" }] });
    try {
      const agent = await makeActor(t, alice);
      const input = { ref: card, action: "move_card", payload: { column: "Doing" } };
      const id = (await errorOf(dispatch(call(agent), "object_action", input))).details.approval_id as string;
      await decide(id, "approved");
      expect(await dispatch(call(agent), "object_action", { ...input, approval_id: id })).toMatchObject({ column_title: "Doing" });
      // No consent request was made for the column it named.
      expect(await events("approval.consumed", id)).toHaveLength(1);
    } finally {
      await changeCeiling(t.db, call(alice), { namespace: "board", changes: [{ operation: "object.action.move_card", mode: "on" }] });
    }
  });

  it("a call on something its person cannot see can only be denied", async () => {
    const alices = await newDoc("Alice's private plan");
    const agent = await makeActor(t, t.users.bob!);
    const id = (await errorOf(dispatch(call(agent), "delete_object", { ref: alices }))).details.approval_id as string;
    const page = await getApproval(t.db, call(t.users.bob!), id);
    expect(page.cannot_approve).toMatch(/cannot see/);
    expect(await errorOf(decideApproval(t.db, call(t.users.bob!), id, { decision: "approve" }))).toMatchObject({ code: "conflict" });
    expect(await codeOf(decideApproval(t.db, call(t.users.bob!), id, { decision: "deny" }))).toBe("ok");
    expect(await exists(alices)).toBe(true);
  });

  it("an action named by a selector without its kind is bound to the object too (the kind the action runs on)", async () => {
    const alice = t.users.alice!;
    const up = async (kind: string, fields: Json) => ((await dispatch(call(alice), "upsert_object", { namespace: "board", kind, fields })) as Json).ref as string;
    const board = await up("board.board", { title: "Selector board" });
    const col = await up("board.column", { board, title: "To do" });
    const junk = await up("board.card", { column: col, title: "Junk card zq" });
    const keep = await up("board.card", { column: col, title: "Keep card" });
    await changeCeiling(t.db, call(alice), { namespace: "board", changes: [{ operation: "object.action.archive", mode: "ask" }] });
    try {
      const agent = await makeActor(t, alice);
      const input = { namespace: "board", action: "archive", selector: { title: "Junk card zq" }, payload: { archived: true } };
      expect(await codeOf(dispatch(call(agent), "object_action", { ...input, selector: { title: "No such card qq" } }))).toBe("not_found");
      const asked = await errorOf(dispatch(call(agent), "object_action", input));
      expect(asked).toMatchObject({ code: "approval_required", details: { ref: junk } });
      const id = asked.details.approval_id as string;
      await decide(id, "approved");
      // The titles swap before the retry: the approved card is no longer the one the selector names.
      await dispatch(call(alice), "upsert_object", { ref: junk, kind: "board.card", fields: { title: "Junk card zq (old)" } });
      await dispatch(call(alice), "upsert_object", { ref: keep, kind: "board.card", fields: { title: "Junk card zq" } });
      expect(await errorOf(dispatch(call(agent), "object_action", { ...input, approval_id: id }))).toMatchObject({ code: "approval_mismatch", details: { approved_ref: junk, ref: keep } });
      expect(((await dispatch(call(alice), "get_object", { ref: keep })) as Json).archived).toBe(false);
    } finally {
      await changeCeiling(t.db, call(alice), { namespace: "board", changes: [{ operation: "object.action.archive", mode: "on" }] });
    }
  });

  it("once the operation no longer asks, an unused approval does not stand in for a grant", async () => {
    const bob = t.users.bob!;
    const agent = await makeActor(t, bob);
    await changeChoices(t.db, call(bob), { namespace: "docs", changes: [{ operation: "object.upsert", mode: "ask" }] });
    const input = { namespace: "docs", kind: "docs.document", fields: { title: "Asked, then on" } };
    const id = (await errorOf(dispatch(call(agent), "upsert_object", input))).details.approval_id as string;
    await decideApproval(t.db, call(bob), id, { decision: "approve" });
    await changeChoices(t.db, call(bob), { namespace: "docs", changes: [{ operation: "object.upsert", mode: "on" }] });
    expect(await codeOf(dispatch(call(agent), "upsert_object", { ...input, approval_id: id }))).toBe("consent_required");
  });

  it("a person reads every byte: a call over 64 KB is not offered for approval; an agent may keep at most 10 waiting", async () => {
    const agent = await makeActor(t, t.users.alice!);
    await changeCeiling(t.db, call(t.users.alice!), { namespace: "docs", changes: [{ operation: "object.upsert", mode: "ask" }] });
    try {
      const doc = await newDoc("Holds a huge tab");
      const huge = { namespace: "docs", kind: "docs.tab", fields: { document: doc, title: "Huge", body: "x".repeat(70 * 1024) } };
      expect(await errorOf(dispatch(call(agent), "upsert_object", huge))).toMatchObject({ code: "payload_too_large", details: { max_bytes: 65536 } });
      const codes: string[] = [];
      for (let i = 0; i < 11; i++) codes.push(await codeOf(dispatch(call(agent), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: `Flood ${i}` } })));
      expect(codes).toEqual([...Array(10).fill("approval_required"), "rate_limited"]);
      // The person sees the whole call on the page, never a shortened one only.
      const [one] = await t.db.select().from(approvals).where(and(eq(approvals.actorId, agent.actorId), eq(approvals.status, "pending"))).limit(1);
      const page = await getApproval(t.db, call(t.users.alice!), one!.id);
      expect(JSON.parse(page.full_call!)).toEqual({ namespace: "docs", kind: "docs.document", fields: { title: expect.stringMatching(/^Flood /) } });
      expect(page.cannot_approve).toBeNull();
    } finally {
      await changeCeiling(t.db, call(t.users.alice!), { namespace: "docs", changes: [{ operation: "object.upsert", mode: "on" }] });
    }
  });
});

describe("a link the approved call minted", () => {
  it("opens while its approval is the one that ran, and stops when the operation is turned off", async () => {
    const agent = await makeActor(t, t.users.alice!);
    await changeCeiling(t.db, call(t.users.alice!), { namespace: "docs", changes: [{ operation: "file.host", mode: "ask" }] });
    try {
      const input = { namespace: "docs", name: "notes.txt", content_type: "text/plain", content_base64: Buffer.from("approved bytes").toString("base64") };
      const id = (await errorOf(dispatch(call(agent), "host_file", input))).details.approval_id as string;
      await decide(id, "approved");
      const hosted = (await dispatch(call(agent), "host_file", { ...input, approval_id: id })) as Json;
      const url = String(hosted.url);
      expect(new URL(url).searchParams.get("g")).toBe(id);
      const got = await redeemSignedUrl(t.db, url);
      expect(Buffer.from(got.bytes).toString()).toBe("approved bytes");
      await changeCeiling(t.db, call(t.users.alice!), { namespace: "docs", changes: [{ operation: "file.host", mode: "off" }] });
      expect(await codeOf(redeemSignedUrl(t.db, url))).toBe("forbidden");
    } finally {
      await changeCeiling(t.db, call(t.users.alice!), { namespace: "docs", changes: [{ operation: "file.host", mode: "on" }] });
    }
  });
});

describe("approvals stop counting", () => {
  it("when the token that asked is revoked, or the agent is", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const ref = await newDoc("Revoked before use");
    const id = (await errorOf(dispatch(call(agent), "delete_object", { ref }))).details.approval_id as string;
    await decide(id, "approved");
    await revokeActorToken(t.db, call(t.users.alice!), agent.actorId, agent.credentialId);
    const [row] = await t.db.select().from(approvals).where(eq(approvals.id, id));
    expect(row).toMatchObject({ status: "void", voidReason: "the token that asked was revoked" });
    expect(await events("approval.voided", id)).toHaveLength(1);
    // The same agent through another credential: the approval is no longer good, a new one is offered.
    const retried = await errorOf(dispatch(call({ ...agent, credentialId: "tok_other" }), "delete_object", { ref, approval_id: id }));
    expect(retried).toMatchObject({ code: "approval_expired", details: { voided: "the token that asked was revoked" } });
    expect(await exists(ref)).toBe(true);

    const second = await makeActor(t, t.users.alice!);
    const pending = (await errorOf(dispatch(call(second), "delete_object", { ref }))).details.approval_id as string;
    await revokeActor(t.db, call(t.users.alice!), second.actorId, "done with it");
    expect((await t.db.select().from(approvals).where(eq(approvals.id, pending)))[0]!.status).toBe("void");
  });

  it("when the owner or the grantor turns the operation off (and off wins over an approval)", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const ref = await newDoc("Switched off");
    const id = (await errorOf(dispatch(call(agent), "delete_object", { ref }))).details.approval_id as string;
    await decide(id, "approved");
    await changeCeiling(t.db, call(t.users.alice!), { namespace: "docs", changes: [{ operation: "object.delete", mode: "off" }] });
    expect((await t.db.select().from(approvals).where(eq(approvals.id, id)))[0]!.status).toBe("void");
    expect(await codeOf(dispatch(call(agent), "delete_object", { ref, approval_id: id }))).toBe("operation_disabled");
    await changeCeiling(t.db, call(t.users.alice!), { namespace: "docs", changes: [{ operation: "object.delete", mode: "ask" }] });
    expect(await codeOf(dispatch(call(agent), "delete_object", { ref, approval_id: id }))).toBe("approval_expired");

    const bobs = await makeActor(t, t.users.bob!);
    const bobDoc = ((await dispatch(call(t.users.bob!), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Bob's" } })) as Json).ref as string;
    const bobsApproval = (await errorOf(dispatch(call(bobs), "delete_object", { ref: bobDoc }))).details.approval_id as string;
    await changeChoices(t.db, call(t.users.bob!), { namespace: "docs", changes: [{ operation: "object.delete", mode: "off" }] });
    expect((await t.db.select().from(approvals).where(eq(approvals.id, bobsApproval)))[0]!.status).toBe("void");
    await changeChoices(t.db, call(t.users.bob!), { namespace: "docs", changes: [{ operation: "object.delete", mode: "on" }] });
  });
});

describe("modes at the ceiling and in choices", () => {
  it("a person may tighten the owner's mode, never loosen it; reads are on or off", async () => {
    const u = await makeTenant(undefined, { destructiveDefault: "ask" });
    const bob = u.users.bob!;
    const state = async (op: string) => (await operationStates(u.db, u.tenantId, bob.userId, "docs")).find((s) => s.operation === op)!;
    // A new tenant: destructive operations start at ask, the rest on.
    expect(await state("object.delete")).toMatchObject({ ceiling_mode: "ask", choice_mode: "on", mode: "ask" });
    expect(await state("object.upsert")).toMatchObject({ mode: "on" });
    // Bob's "on" does not loosen the owner's ask; his "off" tightens it.
    await changeChoices(u.db, call(bob), { namespace: "docs", changes: [{ operation: "object.delete", mode: "on" }] });
    expect((await state("object.delete")).mode).toBe("ask");
    await changeChoices(u.db, call(bob), { namespace: "docs", changes: [{ operation: "object.delete", mode: "off" }] });
    expect((await state("object.delete")).mode).toBe("off");
    // Under an owner's on, Bob may ask.
    await changeCeiling(u.db, call(u.users.alice!), { namespace: "docs", changes: [{ operation: "object.upsert", mode: "on" }] });
    await changeChoices(u.db, call(bob), { namespace: "docs", changes: [{ operation: "object.upsert", mode: "ask" }] });
    expect((await state("object.upsert")).mode).toBe("ask");
    // The old switch still works: enabled true = no narrowing, false = off.
    await changeChoices(u.db, call(bob), { namespace: "docs", changes: [{ operation: "object.upsert", enabled: true }] });
    expect((await state("object.upsert")).mode).toBe("on");
    // A read is on or off.
    const e = await errorOf(changeCeiling(u.db, call(u.users.alice!), { namespace: "docs", changes: [{ operation: "object.get", mode: "ask" }] }));
    expect(e).toMatchObject({ code: "invalid_input", details: { read_operations: ["object.get"] } });
    expect(await codeOf(changeChoices(u.db, call(bob), { namespace: "docs", changes: [{ operation: "object.search", mode: "ask" }] }))).toBe("invalid_input");
    // A tenant from before approvals keeps destructive operations on.
    const old = await makeTenant();
    expect((await operationStates(old.db, old.tenantId, old.users.bob!.userId, "docs")).find((s) => s.operation === "object.delete")!.mode).toBe("on");
  });

  it("an agent's answers mark what asks each time", async () => {
    const agent = await makeActor(t, t.users.alice!);
    await grant(t, t.users.alice!, agent.actorId, "docs", ["object.get", "object.delete"]);
    const about = (await dispatch(call(agent), "provider_about", { namespace: "docs" })) as { kinds: { kind: string; operations: string[]; ask_each_time?: string[] }[]; ask_note?: string };
    const document = about.kinds.find((k) => k.kind === "docs.document")!;
    expect(document.ask_each_time).toEqual(["object.delete"]);
    expect(document.operations).toContain("object.get");
    expect(about.ask_note).toContain("approval_required");
    const found = (await dispatch(call(agent), "object_schema", { query: "delete a document" })) as { matches: Json[] };
    expect(found.matches.find((mt) => mt.operation === "object.delete")).toMatchObject({ ask_each_time: true });
    expect(JSON.stringify(await dispatch(call(agent), "provider_about", {}))).toContain("approval_required");
  });
});

// On embedded PGlite every transaction runs on one connection, one after another: there is no race to lose.
const onPglite = !process.env.DATABASE_URL;
describe("exactly once under concurrent retries", () => {
  it.skipIf(onPglite)(`50 concurrent retries of one approval: one effect, 49 replays, one approval.consumed${onPglite ? " — skipped on embedded PGlite, where calls serialize (CI runs it on PostgreSQL)" : ""}`, async () => {
    const agent = await makeActor(t, t.users.alice!);
    await changeCeiling(t.db, call(t.users.alice!), { namespace: "docs", changes: [{ operation: "object.upsert", mode: "ask" }] });
    try {
      const title = `Exactly once ${Date.now()}`;
      const input = { namespace: "docs", kind: "docs.document", fields: { title } };
      const id = (await errorOf(dispatch(call(agent), "upsert_object", input))).details.approval_id as string;
      await decide(id, "approved");
      const results = await Promise.all(Array.from({ length: 50 }, () => dispatch(call(agent), "upsert_object", { ...input, approval_id: id })));
      const refs = new Set(results.map((r) => (r as Json).ref));
      expect(refs.size).toBe(1);
      const made = await t.db.execute(sql`select count(*)::int as n from docs_documents where tenant_id = ${t.tenantId} and title = ${title}`);
      expect((made as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(1);
      expect(await events("approval.consumed", id)).toHaveLength(1);
      const replays = await t.db
        .select({ details: auditEvents.details })
        .from(auditEvents)
        .where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, agent.actorId), eq(auditEvents.event, "tool.call"), eq(auditEvents.outcome, "allow")));
      expect(replays.filter((r) => (r.details as Json).replayed === true)).toHaveLength(49);
    } finally {
      await changeCeiling(t.db, call(t.users.alice!), { namespace: "docs", changes: [{ operation: "object.upsert", mode: "on" }] });
    }
  });
});
