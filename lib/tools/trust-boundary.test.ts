// Trust boundary I: what a person approves is exactly what the agent gets. Each attack that once worked is a
// test here, through the one dispatcher, as an agent would try it.
import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, connectedAccounts, consentRequests, grants } from "@/db/schema";
import { decideConsentRequest, getConsentRequest, recordConsentRequest } from "@/lib/authz/consent";
import { createGrant, revokeGrant } from "@/lib/authz/grants";
import { changeCeiling, changeChoices } from "@/lib/authz/policy";
import { migratePrefixScopes } from "@/lib/authz/scope-migration";
import { newId } from "@/lib/ids";
import { ACTION_NAME_PATTERN } from "@/lib/realms/contract";
import { importRealm } from "@/lib/openapi-admin/import";
import { call, codeOf, errorOf, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { dispatch } from "./dispatch";
import { redeemSignedUrl } from "./files";

type Json = Record<string, unknown>;

let t: TestTenant;
let docA: string;
let docB: string;
const up = async (who: TestTenant["users"][string], kind: string, fields: Json, namespace = "docs") =>
  ((await dispatch(call(who), "upsert_object", { namespace, kind, fields })) as Json).ref as string;
/** The signed link in an answer, wherever the realm put it. */
const linkIn = (answer: unknown) => JSON.stringify(answer).match(/"url":"([^"]+)"/)![1]!;
const pendingFor = (actorId: string) =>
  t.db.select().from(consentRequests).where(and(eq(consentRequests.tenantId, t.tenantId), eq(consentRequests.actorId, actorId), eq(consentRequests.status, "pending")));

beforeAll(async () => {
  t = await makeTenant();
  docA = await up(t.users.alice!, "docs.document", { title: "Doc A" });
  docB = await up(t.users.alice!, "docs.document", { title: "Doc B" });
});

describe("refs are parsed before anything is recorded", () => {
  it.each(["docs:d", "docs:document:doc_", "docs:document:", "docs:document:doc_x"])("%s → invalid_ref, audited, and no consent request", async (bad) => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const c = call(agent);
    const err = await errorOf(dispatch(c, "object_action", { ref: bad, action: "export", payload: { format: "markdown" } }));
    expect(err.code).toBe("invalid_ref");
    expect(await pendingFor(agent.actorId)).toEqual([]);
    const [row] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.requestId, c.requestId)));
    expect(row).toMatchObject({ event: "tool.call", outcome: "error", reason: "invalid_ref", ref: bad });
  });

  it("a ref named in a field is parsed too: a half-typed one never reaches gate one", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const err = await errorOf(dispatch(call(agent), "upsert_object", { namespace: "docs", kind: "docs.comment_thread", fields: { document: "docs:document:doc_", body: "Hi" } }));
    expect(err.code).toBe("invalid_ref");
    expect(err.details).toMatchObject({ where: "fields.document" });
    expect(await pendingFor(agent.actorId)).toEqual([]);
  });

  it("a call malformed for its operation answers invalid_input before consent is asked", async () => {
    const agent = await makeActor(t, t.users.alice!);
    // board's move_card runs on a card: a board ref is the wrong kind; docs export without any target.
    const board = await up(t.users.alice!, "board.board", { title: "Shape board" }, "board");
    expect(await codeOf(dispatch(call(agent), "object_action", { ref: board, action: "move_card", payload: { column: "Done" } }))).toBe("invalid_input");
    expect(await codeOf(dispatch(call(agent), "object_action", { namespace: "docs", action: "export", payload: { format: "markdown" } }))).toBe("invalid_input");
    expect(await codeOf(dispatch(call(agent), "object_action", { ref: docA, action: "export", payload: { format: "pdf-please" } }))).toBe("invalid_input");
    expect(await pendingFor(agent.actorId)).toEqual([]);
  });

  it("an existing and a missing document both answer consent_required to an agent without a grant (no oracle)", async () => {
    const agent = await makeActor(t, t.users.alice!);
    const missing = docA.replace(/.$/, docA.endsWith("a") ? "b" : "a");
    expect(await codeOf(dispatch(call(agent), "get_object", { ref: docA }))).toBe("consent_required");
    expect(await codeOf(dispatch(call(agent), "get_object", { ref: missing }))).toBe("consent_required");
  });
});

describe("one consent request per distinct ask", () => {
  it("two asks about two threads make two requests, each approving only its thread", async () => {
    const alice = t.users.alice!;
    const th1 = await up(alice, "docs.comment_thread", { document: docA, body: "First thread" });
    const th2 = await up(alice, "docs.comment_thread", { document: docB, body: "Second thread" });
    const agent = await makeActor(t, alice);
    const reply = (ref: string) => dispatch(call(agent), "object_action", { ref, action: "reply_comment", payload: { body: "On it." } });
    const e1 = await errorOf(reply(th1));
    const e2 = await errorOf(reply(th2));
    expect(e1.code).toBe("consent_required");
    expect(e2.details.consent_request_id).not.toBe(e1.details.consent_request_id);
    // Asking again about the first thread reuses the first request.
    expect((await errorOf(reply(th1))).details.consent_request_id).toBe(e1.details.consent_request_id);

    const first = await getConsentRequest(t.db, alice, e1.details.consent_request_id as string);
    expect(first.ref).toBe(th1);
    const { grant: g1 } = await decideConsentRequest(t.db, call(alice), first.id, { decision: "approve", expires: "1h", scope_to_ref: true });
    expect(g1!.resource_scope).toEqual({ refs: [th1] });
    expect(await codeOf(reply(th1))).toBe("ok");
    expect(await codeOf(reply(th2))).toBe("consent_required");
    await decideConsentRequest(t.db, call(alice), e2.details.consent_request_id as string, { decision: "approve", expires: "1h", scope_to_ref: true });
    expect(await codeOf(reply(th2))).toBe("ok");
  });

  it("a pending request expires: its page says so, it cannot be approved, and the next attempt asks anew", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const old = new Date(Date.now() - 25 * 3_600_000);
    const { id } = await t.db.transaction((tx) =>
      recordConsentRequest(tx, { tenantId: t.tenantId, actorId: agent.actorId, grantorId: alice.userId, namespace: "docs", operations: ["object.get"], ref: docA, requestId: "req_x", now: old }),
    );
    const view = await getConsentRequest(t.db, alice, id);
    expect(view.status).toBe("expired");
    expect(await codeOf(decideConsentRequest(t.db, call(alice), id, { decision: "approve", expires: "1h", scope_to_ref: false }))).toBe("conflict");
    const fresh = await errorOf(dispatch(call(agent), "get_object", { ref: docA }));
    expect(fresh.details.consent_request_id).not.toBe(id);
  });

  it("a target the grantor cannot see cannot be approved as only this item", async () => {
    const bob = t.users.bob!;
    const alice = t.users.alice!;
    const bobsOwn = await up(bob, "docs.document", { title: "Bob's private notes" });
    const agent = await makeActor(t, alice);
    const e = await errorOf(dispatch(call(agent), "get_object", { ref: bobsOwn }));
    expect(e.code).toBe("consent_required");
    const id = e.details.consent_request_id as string;
    expect(await codeOf(decideConsentRequest(t.db, call(alice), id, { decision: "approve", expires: "1h", scope_to_ref: true }))).toBe("not_found");
    // Still pending: the refusal changed nothing.
    expect((await getConsentRequest(t.db, alice, id)).status).toBe("pending");
  });
});

describe("every ref a call names is gated", () => {
  it("an agent scoped to document A cannot attach A's file to document B", async () => {
    const alice = t.users.alice!;
    const hosted = (await dispatch(call(alice), "host_file", { namespace: "docs", name: "a.txt", content_type: "text/plain", content_base64: Buffer.from("A's secret").toString("base64") })) as Json;
    const file = hosted.ref as string;
    await dispatch(call(alice), "upsert_object", { namespace: "docs", kind: "docs.file", ref: file, fields: { document: docA } });
    const agent = await makeActor(t, alice);
    await grant(t, alice, agent.actorId, "docs", ["object.upsert", "object.get"], { scope: { refs: [docA] } });
    expect(await codeOf(dispatch(call(agent), "get_object", { ref: file }))).toBe("ok"); // inside A
    const denied = await errorOf(dispatch(call(agent), "upsert_object", { namespace: "docs", kind: "docs.file", ref: file, fields: { document: docB } }));
    expect(denied.code).toBe("consent_required");
    expect(denied.details).toMatchObject({ outside_scope: [docB] });
    const [row] = await t.db.select().from(grants).where(eq(grants.actorId, agent.actorId));
    expect(row).toBeTruthy();
    const still = (await dispatch(call(alice), "get_object", { ref: file })) as Json;
    expect(still.document).toBe(docA);
    // The consent request names both items, and approving "only these" makes a grant covering exactly both.
    const req = await getConsentRequest(t.db, alice, denied.details.consent_request_id as string);
    expect([req.ref, ...req.named_refs]).toEqual([file, docB]);
  });

  it("a title an adapter turns into a ref is gated by the same grant: consent_required naming it, nothing written", async () => {
    const alice = t.users.alice!;
    const mine = await up(alice, "board.board", { title: "Scoped board T" }, "board");
    const todo = await up(alice, "board.column", { board: mine, title: "To do" }, "board");
    const card = await up(alice, "board.card", { board: mine, column: todo, title: "Card in scope" }, "board");
    const other = await up(alice, "board.board", { title: "Other board T" }, "board");
    await up(alice, "board.column", { board: other, title: "Elsewhere" }, "board");
    const agent = await makeActor(t, alice);
    await grant(t, alice, agent.actorId, "board", ["object.upsert"], { scope: { refs: [mine] } });
    // Moving the card into another board's column, naming both by title.
    const e = await errorOf(dispatch(call(agent), "upsert_object", { namespace: "board", kind: "board.card", ref: card, fields: { board: "Other board T", column: "Elsewhere" } }));
    expect(e.code).toBe("consent_required");
    const outside = e.details.outside_scope as string[];
    expect(outside).toHaveLength(1);
    expect(outside[0]).not.toBe(mine);
    const after = (await dispatch(call(alice), "get_object", { ref: card })) as Json;
    expect(after.column).toBe(todo);
    // Approving "only these items" covers the other board too: the retry passes gate one, and meets the board
    // realm's own rule (a card does not change boards) instead of another consent request.
    const req = await getConsentRequest(t.db, alice, e.details.consent_request_id as string);
    expect(req.named_refs).toEqual(outside);
    const { grant: g2 } = await decideConsentRequest(t.db, call(alice), req.id, { decision: "approve", expires: "1h", scope_to_ref: true });
    expect(g2!.resource_scope).toEqual({ refs: [card, ...outside] });
    expect(await codeOf(dispatch(call(agent), "upsert_object", { namespace: "board", kind: "board.card", ref: card, fields: { board: "Other board T", column: "Elsewhere" } }))).toBe("invalid_input");
  });
});

describe("scopes name objects", () => {
  it("a resource scope must name whole refs of the realm", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const body = (refs: string[]) => ({ actor_id: agent.actorId, namespace: "docs", operations: ["object.get"], resource_scope: { refs }, expires: "1d" as const });
    expect(await codeOf(createGrant(t.db, call(alice), body(["docs:d"])))).toBe("invalid_ref");
    expect(await codeOf(createGrant(t.db, call(alice), body(["board:board:brd_aaaaaaaaaaaaaaaaaaaa"])))).toBe("invalid_ref");
    expect(await codeOf(createGrant(t.db, call(alice), body([docA])))).toBe("ok");
  });

  it("a grant naming one card: a column title that matches nothing lists no column beyond the grant", async () => {
    const alice = t.users.alice!;
    const board = await up(alice, "board.board", { title: "Scoped moves" }, "board");
    const todo = await up(alice, "board.column", { board, title: "To do" }, "board");
    await up(alice, "board.column", { board, title: "Secret column" }, "board");
    const card = await up(alice, "board.card", { column: todo, title: "Only this card" }, "board");
    const move = { ref: card, action: "move_card", payload: { column: "Nowhere" } };
    const cardOnly = await makeActor(t, alice, "Card-scoped agent");
    await createGrant(t.db, call(alice), { actor_id: cardOnly.actorId, namespace: "board", operations: ["object.action.move_card"], resource_scope: { refs: [card] }, expires: "1d" });
    const scoped = await errorOf(dispatch(call(cardOnly), "object_action", move));
    expect(scoped).toMatchObject({ code: "not_found", details: { where: "payload.column", choices: [] } });
    expect(scoped.message).toBe("No column “Nowhere” on board “Scoped moves”.");
    // Scoped to the board, the same call names its columns to pick from.
    const boardWide = await makeActor(t, alice, "Board-scoped agent");
    await createGrant(t.db, call(alice), { actor_id: boardWide.actorId, namespace: "board", operations: ["object.action.move_card"], resource_scope: { refs: [board] }, expires: "1d" });
    expect((await errorOf(dispatch(call(boardWide), "object_action", move))).message).toBe("No column “Nowhere” on board “Scoped moves”: its columns are “To do”, “Secret column”.");
  });

  it("a person cannot scope a grant to an object they cannot see", async () => {
    const bob = t.users.bob!;
    const agent = await makeActor(t, bob);
    const body = { actor_id: agent.actorId, namespace: "docs", operations: ["object.get"], resource_scope: { refs: [docA] }, expires: "1d" as const };
    expect(await codeOf(createGrant(t.db, call(bob), body))).toBe("not_found"); // alice's doc, not shared with bob
  });

  it("an account scope must be an account of the grantor's own, in a realm that has accounts", async () => {
    const alice = t.users.alice!;
    const bob = t.users.bob!;
    const agent = await makeActor(t, alice);
    const account = async (userId: string) => {
      const id = newId("acc");
      await t.db.insert(connectedAccounts).values({ id, tenantId: t.tenantId, userId, provider: "devmail", api: "gmail", externalId: id, email: `${id}@x.test`, label: id, claims: ["gmail:read"], scopes: [], status: "active" });
      return id;
    };
    const mine = await account(alice.userId);
    const bobs = await account(bob.userId);
    const body = (namespace: string, account_id: string) => ({ actor_id: agent.actorId, namespace, operations: ["object.list"], resource_scope: { account_id }, expires: "1d" as const });
    expect(await codeOf(createGrant(t.db, call(alice), body("mail", "acc_doesnotexist")))).toBe("invalid_input");
    expect(await codeOf(createGrant(t.db, call(alice), body("mail", bobs)))).toBe("invalid_input");
    expect(await codeOf(createGrant(t.db, call(alice), body("docs", mine)))).toBe("invalid_input");
    expect(await codeOf(createGrant(t.db, call(alice), body("mail", mine)))).toBe("ok");
  });
});

describe("support is read-only at the gate", () => {
  it.each<[string, string, Json]>([
    ["upsert", "upsert_object", { namespace: "memory", kind: "memory.item", fields: { text: "Support note" } }],
    ["host_file", "host_file", { namespace: "docs", name: "s.txt", content_type: "text/plain", content_base64: "eA==" }],
    ["an action that changes data", "object_action", { ref: "__DOC__", action: "reply_comment", payload: { body: "x" } }],
    ["delete", "delete_object", { ref: "__DOC__" }],
  ])("support %s → forbidden, audited", async (_n, tool, input) => {
    const sam = call(t.users.sam!);
    const resolved = JSON.parse(JSON.stringify(input).replace("__DOC__", docA)) as Json;
    if (tool === "object_action") resolved.ref = await up(t.users.alice!, "docs.comment_thread", { document: docA, body: "t" });
    const err = await errorOf(dispatch(sam, tool, resolved));
    expect(err.code).toBe("forbidden");
    const [row] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.requestId, sam.requestId)));
    expect(row).toMatchObject({ outcome: "deny", gate: "one", reason: "forbidden" });
  });

  it("support still reads", async () => {
    expect(await codeOf(dispatch(call(t.users.sam!), "list_objects", { namespace: "docs", kind: "docs.document" }))).toBe("ok");
  });
});

describe("action names are names", () => {
  it("an operationId of * is renamed at import, and a grant for it covers no other action", async () => {
    const alice = t.users.alice!;
    const spec = {
      openapi: "3.1.0",
      info: { title: "Star", version: "1" },
      servers: [{ url: "https://star.example.com" }],
      paths: { "/health": { get: { operationId: "*", summary: "Check service health" } }, "/wipe": { post: { operationId: "wipe", summary: "Wipe everything" } } },
    };
    const report = await importRealm(t.db, call(alice), { namespace: "star", spec, source: "paste" } as never);
    expect(JSON.stringify(report.warnings)).toContain("*");
    const agent = await makeActor(t, alice);
    const listed = (await dispatch(call(alice), "provider_about", { namespace: "star" })) as Json;
    const names = JSON.stringify(listed);
    expect(names).not.toContain('"object.action.*"');
    const renamed = "GET/health";
    expect(ACTION_NAME_PATTERN.test(renamed)).toBe(true);
    const e = await errorOf(dispatch(call(agent), "object_action", { namespace: "star", action: renamed, payload: {} }));
    expect(e.code).toBe("consent_required");
    await decideConsentRequest(t.db, call(alice), e.details.consent_request_id as string, { decision: "approve", expires: "1h", scope_to_ref: false });
    expect(await codeOf(dispatch(call(agent), "object_action", { namespace: "star", action: "wipe", payload: {} }))).toBe("consent_required");
    expect(await codeOf(dispatch(call(agent), "object_action", { namespace: "star", action: "*", payload: {} }))).toBe("invalid_input");
  });
});

describe("re-import that changes meaning suspends what was granted for it", () => {
  it("read → destructive: the next call answers consent_required saying what changed; the grant's other operations still work", async () => {
    const alice = t.users.alice!;
    const spec = (method: "get" | "delete", path: string) => ({
      openapi: "3.1.0",
      info: { title: "Shifty", version: "1" },
      servers: [{ url: "https://shifty.example.com" }],
      paths: { [path]: { [method]: { operationId: "things/c", summary: "Read c" } } },
    });
    await importRealm(t.db, call(alice), { namespace: "shifty", spec: spec("get", "/c"), source: "paste" } as never);
    const agent = await makeActor(t, alice);
    await grant(t, alice, agent.actorId, "shifty", ["provider.about", "object.action.things/c"]);
    const preview = (await importRealm(t.db, call(alice), { namespace: "shifty", spec: spec("delete", "/everything"), source: "paste", dry_run: true } as never)) as Json;
    expect(JSON.stringify(preview.affected_grants)).toContain(agent.actorId);
    await importRealm(t.db, call(alice), { namespace: "shifty", spec: spec("delete", "/everything"), source: "paste" } as never);
    const e = await errorOf(dispatch(call(agent), "object_action", { namespace: "shifty", action: "things/c", payload: {} }));
    expect(e.code).toBe("consent_required");
    expect(String((e.details.suspended as Json).change)).toContain("DELETE /everything");
    expect(await codeOf(dispatch(call(agent), "provider_about", { namespace: "shifty" }))).toBe("ok");
  });
});

describe("downloads follow the grant", () => {
  it("a scoped agent redeems the export it just made, and not after its grant is revoked", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const g = await grant(t, alice, agent.actorId, "docs", ["object.action.export"], { scope: { refs: [docA] } });
    const url = linkIn(await dispatch(call(agent), "object_action", { ref: docA, action: "export", payload: { format: "markdown" } }));
    const file = await redeemSignedUrl(t.db, url);
    expect(Buffer.from(file.bytes).toString("utf8")).toContain("Doc A");
    await revokeGrant(t.db, call(alice), g.id, "done");
    expect(await codeOf(redeemSignedUrl(t.db, url))).toBe("forbidden");
  });

  it("a link minted under one grant stops when that grant ends, even if another grant remains", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const g1 = await grant(t, alice, agent.actorId, "docs", ["object.action.export"], { scope: { refs: [docA] } });
    await grant(t, alice, agent.actorId, "docs", ["object.get"], { scope: { refs: [docB] } });
    const url = linkIn(await dispatch(call(agent), "object_action", { ref: docA, action: "export", payload: { format: "text" } }));
    expect(await codeOf(redeemSignedUrl(t.db, url))).toBe("ok");
    await revokeGrant(t.db, call(alice), g1.id, "done");
    expect(await codeOf(redeemSignedUrl(t.db, url))).toBe("forbidden");
  });

  it("a link stops when the operation that minted it is turned off by the owner or the person, or suspended", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const g = await grant(t, alice, agent.actorId, "docs", ["object.action.export"], { scope: { refs: [docA] } });
    const mint = async () => linkIn(await dispatch(call(agent), "object_action", { ref: docA, action: "export", payload: { format: "text" } }));
    const byCeiling = await mint();
    await changeCeiling(t.db, call(alice), { namespace: "docs", changes: [{ operation: "object.action.export", enabled: false }] });
    expect(await codeOf(redeemSignedUrl(t.db, byCeiling))).toBe("forbidden");
    await changeCeiling(t.db, call(alice), { namespace: "docs", changes: [{ operation: "object.action.export", enabled: true }] });
    expect(await codeOf(redeemSignedUrl(t.db, byCeiling))).toBe("ok");
    await changeChoices(t.db, call(alice), { namespace: "docs", changes: [{ operation: "object.action.export", enabled: false }] });
    expect(await codeOf(redeemSignedUrl(t.db, byCeiling))).toBe("forbidden");
    await changeChoices(t.db, call(alice), { namespace: "docs", changes: [{ operation: "object.action.export", enabled: true }] });
    await t.db.update(grants).set({ suspensions: { "object.action.export": { at: new Date().toISOString(), change: "test" } } }).where(eq(grants.id, g.id));
    expect(await codeOf(redeemSignedUrl(t.db, byCeiling))).toBe("forbidden");
    // The operation is signed into the link: it cannot be swapped for another the grant covers.
    const u = new URL(byCeiling);
    u.searchParams.set("op", "object.get");
    expect(await codeOf(redeemSignedUrl(t.db, u))).toBe("bad_signature");
  });

  it("a link cannot be re-bound to another grant (the grant id is signed)", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    await grant(t, alice, agent.actorId, "docs", ["object.action.export"], { scope: { refs: [docA] } });
    const other = await grant(t, alice, agent.actorId, "docs", ["object.get"]);
    const u = new URL(linkIn(await dispatch(call(agent), "object_action", { ref: docA, action: "export", payload: { format: "text" } })));
    u.searchParams.set("g", other.id);
    expect(await codeOf(redeemSignedUrl(t.db, u))).toBe("bad_signature");
  });
});

describe("start-up migration of prefix scopes", () => {
  it("a complete ref becomes {refs: [it]}; anything else revokes the grant with reason scope_migrated, each audited", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice);
    const mk = async (prefix: string) => {
      const g = await grant(t, alice, agent.actorId, "docs", ["object.get"]);
      await t.db.execute(sql`update grants set resource_scope = ${JSON.stringify({ ref_prefix: prefix })}::jsonb where id = ${g.id}`);
      return g.id;
    };
    const whole = await mk(docA);
    const half = await mk("docs:d");
    await migratePrefixScopes(t.db);
    const rows = Object.fromEntries((await t.db.select().from(grants).where(sql`${grants.id} in ${[whole, half]}`)).map((g) => [g.id, g]));
    expect(rows[whole]).toMatchObject({ resourceScope: { refs: [docA] }, revokedAt: null });
    expect(rows[half]).toMatchObject({ resourceScope: { refs: [] }, revokeReason: "scope_migrated" });
    expect(rows[half]!.revokedAt).not.toBeNull();
    const audits = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.reason, "scope_migrated")));
    expect(audits.map((a) => [a.subjectId, a.event]).sort()).toEqual([[half, "grant.revoked"], [whole, "grant.migrated"]].sort());
    // Idempotent: a second run finds nothing to change.
    await migratePrefixScopes(t.db);
    expect(await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.reason, "scope_migrated")))).toHaveLength(2);
    // The migrated grant works on its document, and on nothing that merely starts with it.
    expect(await codeOf(dispatch(call(agent), "get_object", { ref: docA }))).toBe("ok");
    expect(await codeOf(dispatch(call(agent), "get_object", { ref: docB }))).toBe("consent_required");
  });
});

describe("upsert fields are checked against the kind before consent is asked", () => {
  it.each<[string, Json]>([
    ["an unknown field", { title: "x", bogus: 1 }],
    ["a read-only field", { title: "x", owner: "eve@example.test" }],
    ["a wrong type", { title: 42 }],
    ["a value outside a closed vocabulary", { title: "x", status: "shredded" }],
  ])("%s → invalid_input naming it, and no consent request", async (_n, fields) => {
    const agent = await makeActor(t, t.users.alice!);
    const err = await errorOf(dispatch(call(agent), "upsert_object", { namespace: "docs", ref: docA, kind: "docs.document", fields }));
    expect(err.code).toBe("invalid_input");
    expect(JSON.stringify(err.details.issues)).toContain("fields.");
    expect(await pendingFor(agent.actorId)).toEqual([]);
  });
});

describe("a name the realm resolves never reaches beyond a ref-scoped grant", () => {
  it("lists no choices outside the grant's refs; a single match outside is asked for, naming only it", async () => {
    const u = await makeTenant();
    const alice = u.users.alice!;
    for (const title of ["Alpha notes", "Beta notes", "Gamma plan"]) await dispatch(call(alice), "upsert_object", { kind: "docs.document", fields: { title } });
    const file = (await dispatch(call(alice), "host_file", { namespace: "docs", name: "a.txt", content_type: "text/plain", content_base64: Buffer.from("a").toString("base64") })) as { ref: string };
    const agent = await makeActor(u, alice, "Scoped filer");
    // It may attach this one file, and reach nothing else.
    await grant(u, alice, agent.actorId, "docs", ["object.action.attach_file"], { scope: { refs: [file.ref] } });
    const attach = (document: string) => dispatch(call(agent), "object_action", { ref: file.ref, action: "attach_file", payload: { document } });

    // Several titles match outside the grant: not the ambiguous choices (which would list them), nothing found.
    const several = await errorOf(attach("notes"));
    expect(several.code).toBe("not_found");
    expect(JSON.stringify(several.details)).not.toMatch(/Alpha|Beta|docs:document:/);
    // One title matches outside the grant: consent for that one item (the person sees and decides), no other.
    const one = await errorOf(attach("Gamma plan"));
    expect(one.code).toBe("consent_required");
    expect(JSON.stringify(one.details)).not.toMatch(/Alpha|Beta/);
    expect((await errorOf(attach("No such title"))).code).toBe("not_found");
  });
});

describe("the audit keeps what the person saw when they decided", () => {
  it("stores the items' names read at decision time, and they stay after the object is gone", async () => {
    const u = await makeTenant();
    const alice = u.users.alice!;
    const doc = (await dispatch(call(alice), "upsert_object", { kind: "docs.document", fields: { title: "Board minutes" } })) as { ref: string };
    const agent = await makeActor(u, alice, "Minute taker");
    const denied = await errorOf(dispatch(call(agent), "object_action", { ref: doc.ref, action: "export", payload: { format: "text" } }));
    const id = denied.details.consent_request_id as string;
    await decideConsentRequest(u.db, call(alice), id, { decision: "approve", expires: "1d", scope_to_ref: true });
    await dispatch(call(alice), "delete_object", { ref: doc.ref });
    const [row] = await u.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, u.tenantId), eq(auditEvents.event, "consent.approved"), eq(auditEvents.subjectId, id)));
    expect(row!.details).toMatchObject({ items: [{ ref: doc.ref, label: expect.stringContaining("Board minutes"), visible: true }] });
  });
});
