// Remote realms end to end in one process: a provider built with the kit (fixtures/tickets.ts) on 127.0.0.1,
// registered by URL or with a one-time token, called through the one dispatcher — both gates, the signed
// context, answers checked, files and upload slots as Realmgate links, the breaker, manifest refresh.
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, grants, remoteProviders } from "@/db/schema";
import { dispatch } from "@/lib/tools/dispatch";
import { redeemLiveUrl } from "@/lib/tools/files";
import { listRealms } from "@/lib/realms/registry";
import { breakerState, resetBreakers } from "@/lib/remote/breaker";
import { callsInFlight } from "@/lib/remote/bulkhead";
import { callProvider } from "@/lib/remote/client";
import { authorizationContext } from "@/lib/remote/context";
import { resetRefreshThrottle } from "@/lib/remote/refresh";
import { mintRegistrationToken, registerByUrl, registerWithToken, removeProvider } from "@/lib/remote-admin/register";
import { resolveRealm } from "@/lib/views/resolve";
import { call, envOverride, errorOf, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { startTickets, ticketsManifest, type TicketsProvider } from "./fixtures/tickets";

const envs = envOverride();
let t: TestTenant;
let p: TicketsProvider;
let registrationId: string;
let saved: { registration_id: string; tenant_id: string; secret: string } | null = null;

beforeAll(async () => {
  envs.set({ REALMGATE_REMOTE_PRIVATE_HOSTS: "127.0.0.1", REALMGATE_REMOTE_BREAKER_MS: "300", REALMGATE_PROVIDER_TIMEOUT_MS: "1000" });
  t = await makeTenant();
  p = await startTickets();
  const reg = await registerByUrl(t.db, t.users.alice!, { url: p.url });
  registrationId = reg.provider.id;
  saved = { registration_id: reg.provider.id, tenant_id: reg.tenant_id, secret: reg.secret };
  p.setRegistration(saved);
});
afterAll(async () => {
  envs.restore();
  await p?.close();
});
afterEach(() => {
  p.mode = "ok";
  resetBreakers();
  resetRefreshThrottle();
});

const auditOf = (event: string) => t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, event)));

describe("registration", () => {
  it("by URL: the manifest is validated and stored, the secret is sealed, the realm is listed and audited", async () => {
    const [row] = await t.db.select().from(remoteProviders).where(eq(remoteProviders.id, registrationId));
    expect(row).toMatchObject({ namespace: "tickets", manifestVersion: "1", status: "active", registeredVia: "owner" });
    expect(row!.secretSealed).not.toContain("rgs_");
    expect((await listRealms(t.db, t.tenantId)).map((r) => r.manifest.namespace)).toContain("tickets");
    expect((await auditOf("remote_provider.registered")).map((e) => e.subjectId)).toContain(registrationId);
  });

  it("a manifest that fails the contract registers nothing and lists every problem", async () => {
    const bad = await startTickets("broken");
    const doc = ticketsManifest("broken");
    doc.manifest.kinds[0]!.ref_pattern = "docs:ticket:<id>"; // another namespace's refs
    delete (doc.manifest.service_card.operation_labels as Record<string, string>)["object.action.close"];
    bad.manifest = doc;
    try {
      const e = await errorOf(registerByUrl(t.db, t.users.alice!, { url: bad.url }));
      expect(e.code).toBe("invalid_input");
      const problems = e.details.problems as string[];
      expect(problems.join("\n")).toMatch(/no human label for object.action.close/);
      expect((await t.db.select().from(remoteProviders).where(and(eq(remoteProviders.tenantId, t.tenantId), eq(remoteProviders.namespace, "broken")))).length).toBe(0);
      // Fix the labels: the template claiming another namespace is still refused.
      bad.manifest = { ...ticketsManifest("broken") };
      bad.manifest.manifest.kinds[0]!.ref_pattern = "docs:ticket:<id>";
      const e2 = await errorOf(registerByUrl(t.db, t.users.alice!, { url: bad.url }));
      expect((e2.details.problems as string[]).join()).toMatch(/must start with "broken:"/);
      // A reserved word is never a namespace.
      bad.manifest = ticketsManifest("resolve");
      expect(((await errorOf(registerByUrl(t.db, t.users.alice!, { url: bad.url }))).details.problems as string[]).join()).toMatch(/reserved/);
    } finally {
      await bad.close();
    }
  });

  it.each([
    ["larger than 512 KiB", "huge_manifest", "too_large"],
    ["a redirect", "redirect_manifest", "redirect"],
  ] as const)("a manifest document that is %s registers nothing (%s)", async (_what, mode, reason) => {
    const odd = await startTickets("odd_desk");
    odd.mode = mode;
    try {
      const e = await errorOf(registerByUrl(t.db, t.users.alice!, { url: odd.url }));
      expect(e.code).toBe("provider_unavailable");
      expect(e.details.reason).toBe(reason);
      expect((await t.db.select().from(remoteProviders).where(and(eq(remoteProviders.tenantId, t.tenantId), eq(remoteProviders.namespace, "odd_desk")))).length).toBe(0);
    } finally {
      await odd.close();
    }
  });

  it("a private address or plain HTTP is refused unless the operator listed the host", async () => {
    envs.set({ REALMGATE_REMOTE_PRIVATE_HOSTS: "" });
    try {
      const e = await errorOf(registerByUrl(t.db, t.users.alice!, { url: p.url }));
      expect(e.code).toBe("invalid_input");
      expect(e.message).toMatch(/HTTPS/);
      const e2 = await errorOf(registerByUrl(t.db, t.users.alice!, { url: "https://10.0.0.5/provider" }));
      expect(e2.code).toBe("invalid_input");
      expect(e2.details.reason).toBe("blocked_address");
    } finally {
      envs.set({ REALMGATE_REMOTE_PRIVATE_HOSTS: "127.0.0.1" });
    }
  });

  it("a namespace already taken (a built-in realm's, or a registered one) is a conflict", async () => {
    const dup = await startTickets("tickets");
    const docs = await startTickets("docs");
    try {
      expect((await errorOf(registerByUrl(t.db, t.users.alice!, { url: dup.url }))).code).toBe("conflict");
      expect((await errorOf(registerByUrl(t.db, t.users.alice!, { url: docs.url }))).code).toBe("conflict");
    } finally {
      await dup.close();
      await docs.close();
    }
  });

  it("a one-time token registers the provider once; a used, unknown or other tenant's token does not", async () => {
    const other = await startTickets("desk_two");
    try {
      const { token } = await mintRegistrationToken(t.db, t.users.alice!);
      const reg = await registerWithToken(t.db, `Bearer ${token}`, { url: other.url }, null);
      expect(reg).toMatchObject({ tenant_id: t.tenantId, provider: { namespace: "desk_two", registered_via: "token" } });
      expect(reg.secret).toMatch(/^rgs_/);
      expect((await errorOf(registerWithToken(t.db, `Bearer ${token}`, { url: other.url }, null))).code).toBe("unauthenticated");
      expect((await errorOf(registerWithToken(t.db, "Bearer rgr_not-a-real-token-at-all-000000", { url: other.url }, null))).code).toBe("unauthenticated");
      await removeProvider(t.db, t.users.alice!, reg.provider.id);
      expect((await listRealms(t.db, t.tenantId)).map((r) => r.manifest.namespace)).not.toContain("desk_two");
    } finally {
      await other.close();
    }
  });

  it("a provider registered by another tenant is invisible to the first", async () => {
    const t2 = await makeTenant();
    const theirs = await startTickets("their_desk");
    try {
      await registerByUrl(t2.db, t2.users.alice!, { url: theirs.url });
      expect((await listRealms(t.db, t.tenantId)).map((r) => r.manifest.namespace)).not.toContain("their_desk");
      expect((await errorOf(resolveRealm(t.db, t.users.bob!, { namespace: "their_desk" }))).code).toBe("not_found");
      expect((await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "their_desk", kind: "their_desk.ticket" }))).code).toBe("not_found");
    } finally {
      await theirs.close();
    }
  });
});

describe("calls through the dispatcher", () => {
  it("gate one first (consent), then the provider gets a signed context naming the agent, its grantor and the operation", async () => {
    const agent = await makeActor(t, t.users.alice!, "Desk helper");
    const denied = await errorOf(dispatch(call(agent), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }));
    expect(denied.code).toBe("consent_required");
    const before = p.contexts.length;
    expect(p.contexts.length).toBe(before);
    await grant(t, t.users.alice!, agent.actorId, "tickets", ["object.list", "object.get", "object.action.close"]);
    const page = (await dispatch(call(agent), "list_objects", { namespace: "tickets", kind: "tickets.ticket" })) as { items: { ref: string; label: string }[] };
    expect(page.items.map((i) => i.label)).toEqual(["Printer on fire", "Cannot log in"]);
    const ctx = p.contexts.at(-1)!;
    expect(ctx).toMatchObject({ tenant_id: t.tenantId, registration_id: registrationId, actor: { id: agent.actorId, kind: "hosted_agent", name: "Desk helper" }, grantor: { id: t.users.alice!.userId, email: t.users.alice!.email }, operation: "object.list", scope: null, manifest_version: "1" });
    expect(Date.parse(ctx.expires_at) - Date.parse(ctx.issued_at)).toBe(300_000);
  });

  it("exact tools work for a remote action as for a native one: materialized, called, audited on the exact path", async () => {
    const agent = await makeActor(t, t.users.alice!, "Exact desk helper");
    await grant(t, t.users.alice!, agent.actorId, "tickets", ["object.schema", "object.action.close"]);
    const m = (await dispatch(call(agent), "object_schema", { namespace: "tickets", operation: "object.action.close", materialize: true })) as { materialized: { name: string } };
    expect(m.materialized.name).toBe("tickets_close");
    const closed = (await dispatch(call(agent), "tickets_close", { ref: "tickets:ticket:t1", reason: "Solved" })) as { status: string };
    expect(closed.status).toBe("closed");
    expect(p.contexts.at(-1)).toMatchObject({ operation: "object.action.close", actor: { id: agent.actorId } });
    const [rec] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, agent.actorId), eq(auditEvents.operation, "object.action.close")));
    expect(rec!.details).toMatchObject({ path: "exact_tool" });
  });

  it("gate two is the provider's: bob's agent is refused with realm_denied naming who can open it", async () => {
    const agent = await makeActor(t, t.users.bob!, "Bob's helper");
    await grant(t, t.users.bob!, agent.actorId, "tickets", ["object.action.close"]);
    const e = await errorOf(dispatch(call(agent), "object_action", { ref: "tickets:ticket:t2", action: "close", payload: { reason: "done" } }));
    expect(e.code).toBe("realm_denied");
    expect(e.details).toMatchObject({ wall: "provider", provider: "tickets", who_can_open: "The desk lead", claim: "tickets:close" });
  });

  it("a provider's error details never pass for Realmgate's own (no consent link or id of its making; links only http(s))", async () => {
    p.mode = "sneaky";
    const e = await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }));
    expect(e.code).toBe("realm_denied");
    expect(e.details).toMatchObject({ wall: "provider", provider: "tickets", who_can_open: "The desk lead", provider_details: { consent_request_id: "ccr_fake", connection_hub_url: "https://evil.example/consent" } });
    expect(e.details.consent_request_id).toBeUndefined();
    expect(e.details.connection_hub_url).toBeUndefined();
    expect(e.details.provider_url).toBeUndefined();
  });

  it("a ref that matches no template is invalid_ref before anything is sent", async () => {
    const n = p.contexts.length;
    const e = await errorOf(dispatch(call(t.users.alice!), "get_object", { ref: "tickets:tiket:t1" }));
    expect(e.code).toBe("invalid_ref");
    expect(e.details.expected).toEqual(["tickets:ticket:<id>"]);
    expect(p.contexts.length).toBe(n);
  });

  it("a file field becomes a Realmgate link that streams from the provider, re-checked on each use", async () => {
    const got = (await dispatch(call(t.users.alice!), "get_object", { ref: "tickets:ticket:t1" })) as { attachment: { url: string; name: string } };
    expect(got.attachment).toMatchObject({ name: "log.txt", encoding: "url" });
    const r = await redeemLiveUrl(t.db, got.attachment.url, { method: "GET" });
    expect(r.kind).toBe("download");
    if (r.kind === "download") expect(new TextDecoder().decode(r.file.body as Uint8Array)).toBe("the log");
    expect(p.contexts.at(-1)!.operation).toBe("object.get");
  });

  it("an upload slot: the action's $upload becomes a PUT link; the bytes reach the provider's receive_upload", async () => {
    const res = (await dispatch(call(t.users.alice!), "object_action", { ref: "tickets:ticket:t1", action: "request_attachment", payload: { filename: "trace.txt" } })) as { upload: { url: string; method: string } };
    expect(res.upload.method).toBe("PUT");
    expect(JSON.stringify(res)).not.toContain("$upload");
    const up = await redeemLiveUrl(t.db, res.upload.url, { method: "PUT", body: { bytes: new TextEncoder().encode("hello"), contentType: "text/plain" } });
    expect(up).toMatchObject({ kind: "upload", result: { attached: "trace.txt", size: 5 } });
    expect(p.uploads.at(-1)).toMatchObject({ ref: "tickets:ticket:t1", name: "trace.txt" });
    // Once: the slot is used up.
    expect((await errorOf(redeemLiveUrl(t.db, res.upload.url, { method: "PUT", body: { bytes: new TextEncoder().encode("again"), contentType: "text/plain" } }))).code).toBe("forbidden");
  });

  it.each([
    ["not JSON", "not_json", "bad_answer"],
    ["larger than its bound", "huge", "too_large"],
    ["a redirect", "redirect", "redirect"],
    ["another namespace's ref", "foreign_ref", "bad_answer"],
    ["an error code outside the vocabulary", "bad_code", "bad_answer"],
    ["too slow", "slow", "timeout"],
  ] as const)("an answer that is %s is provider_unavailable (%s), never passed on", async (_what, mode, reason) => {
    p.mode = mode;
    const e = await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }));
    expect(e.code).toBe("provider_unavailable");
    expect(e.details.reason).toBe(reason);
  });

  it("at most REALMGATE_REMOTE_MAX_IN_FLIGHT calls wait on one provider per node: the rest are refused at once as busy, nothing sent, the breaker untouched", async () => {
    // Each call waits inside a tool call's transaction, on a pooled connection: a slow provider must not hold them all.
    envs.set({ REALMGATE_REMOTE_MAX_IN_FLIGHT: "2" });
    try {
      p.mode = "lagging";
      const target = { id: registrationId, namespace: "tickets", baseUrl: p.url, secret: saved!.secret };
      const contextOf = () =>
        authorizationContext({ tx: t.db, tenantId: t.tenantId, registrationId, manifestVersion: "1", principal: { type: "user", userId: t.users.alice!.userId }, operation: "object.list", scope: null });
      const list = async () => callProvider(target, "list", await contextOf(), { kind: "tickets.ticket", filter: {}, cursor: null, limit: 5 });
      const sent = p.contexts.length;
      const started = Date.now();
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => list().then(() => "ok" as const, (e: unknown) => e as { code?: string; details?: Record<string, unknown>; headers?: Record<string, string> })));
      expect(outcomes.filter((o) => o === "ok")).toHaveLength(2);
      const busy = outcomes.filter((o) => o !== "ok");
      expect(busy).toHaveLength(4);
      for (const b of busy) expect(b).toMatchObject({ code: "provider_unavailable", details: { reason: "busy", in_flight: 2, retry_after_seconds: 1 }, headers: { "Retry-After": "1" } });
      expect(p.contexts.length - sent).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
      expect(callsInFlight(registrationId)).toBe(0);
      expect(breakerState(registrationId)).toBe("closed");

      // A call that ends in a timeout gives its slot back too.
      p.mode = "slow";
      const timedOut = await Promise.all([list(), list()].map((c) => c.catch((e: { details?: { reason?: string } }) => e.details?.reason)));
      expect(timedOut).toEqual(["timeout", "timeout"]);
      expect(callsInFlight(registrationId)).toBe(0);
      p.mode = "ok";
      await expect(list()).resolves.toMatchObject({ result: expect.anything() });
    } finally {
      envs.set({ REALMGATE_REMOTE_MAX_IN_FLIGHT: undefined });
    }
  });

  it("a provider configured with another secret refuses the signature: provider_unavailable telling an owner to register it again", async () => {
    p.setRegistration({ ...saved!, secret: "rgs_not-the-one-realmgate-holds" });
    try {
      const e = await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }));
      expect(e).toMatchObject({ code: "provider_unavailable", details: { reason: "signature_refused" } });
    } finally {
      p.setRegistration(saved!);
    }
  });

  it("the breaker: 5 failures open it (audited), calls then fail at once, and a success after the pause closes it", async () => {
    p.mode = "fail";
    for (let i = 0; i < 5; i++) expect((await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }))).details.reason).toBe("provider_said");
    const n = p.contexts.length;
    p.mode = "ok";
    const open = await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }));
    expect(open.details.reason).toBe("circuit_open");
    expect(p.contexts.length).toBe(n);
    expect((await auditOf("remote_provider.breaker_opened")).length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 350));
    await dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" });
    expect((await auditOf("remote_provider.breaker_closed")).length).toBeGreaterThan(0);
  });

  it("a new manifest_version is fetched and validated: a valid one is used, a broken one marks the realm unavailable with the reason", async () => {
    p.manifest = ticketsManifest("tickets", "2");
    p.manifest.manifest.service_card.title = "Help desk (v2)";
    await dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" });
    const [row] = await t.db.select().from(remoteProviders).where(eq(remoteProviders.id, registrationId));
    expect(row).toMatchObject({ manifestVersion: "2", status: "active" });
    expect((await listRealms(t.db, t.tenantId)).find((r) => r.manifest.namespace === "tickets")!.manifest.service_card.title).toBe("Help desk (v2)");
    expect((await auditOf("remote_provider.manifest_changed")).at(-1)!.details).toMatchObject({ from: "1", to: "2" });

    const broken = ticketsManifest("tickets", "3");
    broken.manifest.kinds[0]!.ref_pattern = "tickets:ticket";
    p.manifest = broken;
    resetRefreshThrottle(); // (as if the breaker's pause had passed since the last fetch)
    await dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" });
    const realm = (await listRealms(t.db, t.tenantId)).find((r) => r.manifest.namespace === "tickets")!;
    expect(realm.unavailable?.reason).toMatch(/no <placeholder>/);
    const e = await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }));
    expect(e).toMatchObject({ code: "provider_unavailable", details: { reason: "manifest_invalid" } });
    // Broken another way: the reason on the card follows (the next look finds the new problem).
    const other = ticketsManifest("tickets", "3b");
    delete (other.manifest.service_card.operation_labels as Record<string, string>)["object.list"];
    p.manifest = other;
    resetRefreshThrottle();
    await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }));
    expect((await listRealms(t.db, t.tenantId)).find((r) => r.manifest.namespace === "tickets")!.unavailable?.reason).toMatch(/no human label for object.list/);
    resetRefreshThrottle();
    await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }));
    // Fixed at the provider: Realmgate looks again once the pause has passed (not on every call), and the realm is back.
    p.manifest = ticketsManifest("tickets", "4");
    const fetches = p.manifestFetches;
    expect((await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }))).details.reason).toBe("manifest_invalid");
    expect(p.manifestFetches).toBe(fetches);
    await new Promise((r) => setTimeout(r, 350));
    const back = await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }));
    expect(back).toMatchObject({ code: "provider_unavailable", details: { reason: "manifest_valid_again" }, headers: { "Retry-After": "0" } });
    await dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" });
    expect((await auditOf("remote_provider.available")).length).toBe(1);
    // An owner's check finds it as it is; a manifest that cannot be fetched changes nothing.
    const { recheckProvider } = await import("@/lib/remote-admin/register");
    expect((await recheckProvider(t.db, t.users.alice!, registrationId)).provider).toMatchObject({ status: "active", manifest_version: "4" });
    p.mode = "redirect_manifest";
    expect(await recheckProvider(t.db, t.users.alice!, registrationId)).toMatchObject({ status: "unreachable", provider: { status: "active" } });
  });
});

describe("what people approved stays what it was", () => {
  it("removing a provider revokes its grants and kills their links: a provider registered later under the namespace inherits nothing", async () => {
    const desk = await startTickets("gone_desk");
    try {
      const reg = await registerByUrl(t.db, t.users.alice!, { url: desk.url });
      desk.setRegistration({ registration_id: reg.provider.id, tenant_id: reg.tenant_id, secret: reg.secret });
      const agent = await makeActor(t, t.users.alice!, "Gone desk helper");
      await grant(t, t.users.alice!, agent.actorId, "gone_desk", ["object.get"]);
      const got = (await dispatch(call(agent), "get_object", { ref: "gone_desk:ticket:t1" })) as { attachment: { url: string } };
      const removed = await removeProvider(t.db, t.users.alice!, reg.provider.id);
      expect(removed.grants_revoked).toBe(1);
      const again = await registerByUrl(t.db, t.users.alice!, { url: desk.url });
      desk.setRegistration({ registration_id: again.provider.id, tenant_id: again.tenant_id, secret: again.secret });
      expect((await errorOf(dispatch(call(agent), "get_object", { ref: "gone_desk:ticket:t1" }))).code).toMatch(/^(grant_revoked|consent_required)$/);
      expect((await errorOf(redeemLiveUrl(t.db, got.attachment.url, { method: "GET" }))).code).toBe("forbidden");
      await removeProvider(t.db, t.users.alice!, again.provider.id);
    } finally {
      await desk.close();
    }
  });

  it("a new manifest cannot widen old grants: a new action and a dropped-then-restored one wait for a person again", async () => {
    const desk = await startTickets("growing_desk");
    try {
      const reg = await registerByUrl(t.db, t.users.alice!, { url: desk.url });
      desk.setRegistration({ registration_id: reg.provider.id, tenant_id: reg.tenant_id, secret: reg.secret });
      const every = await makeActor(t, t.users.alice!, "Every action helper");
      await t.db.transaction(async (tx) => {
        const { createGrantTx } = await import("@/lib/authz/grants");
        await createGrantTx(tx, t.users.alice!, { actorId: every.actorId, namespace: "growing_desk", operations: ["object.list"], allActions: true, resourceScope: null, expiresAt: null });
      });
      // v2 adds "reopen" and drops "close".
      const v2 = ticketsManifest("growing_desk", "2");
      const close = v2.manifest.actions!.find((a) => a.name === "close")!;
      v2.manifest.actions = [...v2.manifest.actions!.filter((a) => a.name !== "close"), { ...close, name: "reopen", label: "Reopen a ticket" }];
      (v2.manifest.service_card.operation_labels as Record<string, string>)["object.action.reopen"] = "Reopen a ticket";
      delete (v2.manifest.service_card.operation_labels as Record<string, string>)["object.action.close"];
      v2.manifest.catalog.operations = v2.manifest.catalog.operations.map((o) => (o === "object.action.close" ? "object.action.reopen" : o));
      desk.manifest = v2;
      resetRefreshThrottle();
      await dispatch(call(every), "list_objects", { namespace: "growing_desk", kind: "growing_desk.ticket" });
      const reopen = await errorOf(dispatch(call(every), "object_action", { ref: "growing_desk:ticket:t1", action: "reopen", payload: { reason: "x" } }));
      expect(reopen.code).toBe("consent_required");
      // v3 brings "close" back: the dropped action never inherits its old approval.
      desk.manifest = ticketsManifest("growing_desk", "3");
      resetRefreshThrottle();
      await dispatch(call(every), "list_objects", { namespace: "growing_desk", kind: "growing_desk.ticket" });
      expect((await errorOf(dispatch(call(every), "object_action", { ref: "growing_desk:ticket:t1", action: "close", payload: { reason: "x" } }))).code).toBe("consent_required");
      const [g] = await t.db.select().from(grants).where(eq(grants.actorId, every.actorId));
      expect(Object.keys(g!.suspensions).sort()).toEqual(["object.action.close", "object.action.reopen"]);
      const [rec] = await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, "grant.suspended"), eq(auditEvents.subjectId, g!.id)));
      expect(rec).toMatchObject({ principalType: "system", reason: "meaning_changed" });
    } finally {
      const row = (await t.db.select().from(remoteProviders).where(and(eq(remoteProviders.tenantId, t.tenantId), eq(remoteProviders.namespace, "growing_desk"))))[0];
      if (row) await removeProvider(t.db, t.users.alice!, row.id);
      await desk.close();
    }
  });

  it("a result can never carry what looks like Realmgate's own link or upload slot", async () => {
    p.mode = "fake_link";
    expect((await errorOf(dispatch(call(t.users.alice!), "get_object", { ref: "tickets:ticket:t1" }))).details.reason).toBe("bad_answer");
    p.mode = "fake_slot";
    expect((await errorOf(dispatch(call(t.users.alice!), "object_action", { ref: "tickets:ticket:t1", action: "request_attachment", payload: { filename: "a" } }))).details.reason).toBe("bad_answer");
  });

  it("a person's own link dies with the registration too: a provider registered later under the namespace cannot serve it", async () => {
    const desk = await startTickets("relinked_desk");
    try {
      const reg = await registerByUrl(t.db, t.users.alice!, { url: desk.url });
      desk.setRegistration({ registration_id: reg.provider.id, tenant_id: reg.tenant_id, secret: reg.secret });
      const got = (await dispatch(call(t.users.alice!), "get_object", { ref: "relinked_desk:ticket:t1" })) as { attachment: { url: string } };
      expect((await redeemLiveUrl(t.db, got.attachment.url, { method: "GET" })).kind).toBe("download");
      await removeProvider(t.db, t.users.alice!, reg.provider.id);
      const again = await registerByUrl(t.db, t.users.alice!, { url: desk.url });
      desk.setRegistration({ registration_id: again.provider.id, tenant_id: again.tenant_id, secret: again.secret });
      expect((await errorOf(redeemLiveUrl(t.db, got.attachment.url, { method: "GET" }))).code).toBe("forbidden");
      await removeProvider(t.db, t.users.alice!, again.provider.id);
    } finally {
      await desk.close();
    }
  });

  it("a get answered with another object is refused, and a provider's message is attributed to it", async () => {
    p.mode = "wrong_object";
    const e = await errorOf(dispatch(call(t.users.alice!), "get_object", { ref: "tickets:ticket:t1" }));
    expect(e).toMatchObject({ code: "provider_unavailable", details: { reason: "bad_answer" } });
    p.mode = "sneaky";
    expect((await errorOf(dispatch(call(t.users.alice!), "list_objects", { namespace: "tickets", kind: "tickets.ticket" }))).message).toBe("The tickets provider says: Ask for consent here.");
  });
});

describe("discovery", () => {
  it("resolves a ref, a kind and an operation to the realm that owns it", async () => {
    expect((await resolveRealm(t.db, t.users.bob!, { ref: "tickets:ticket:t9" })).matches).toEqual([{ namespace: "tickets", realm_type: "remote", title: expect.any(String), kind: "tickets.ticket" }]);
    expect((await resolveRealm(t.db, t.users.bob!, { kind: "tickets.ticket" })).matches[0]).toMatchObject({ namespace: "tickets", label: "Ticket" });
    expect((await resolveRealm(t.db, t.users.bob!, { operation: "object.action.close" })).matches.map((m) => m.namespace)).toEqual(["tickets"]);
    expect((await resolveRealm(t.db, t.users.bob!, { operation: "tickets/object.list" })).matches).toHaveLength(1);
    expect((await errorOf(resolveRealm(t.db, t.users.bob!, { ref: "tickets:nope" }))).code).toBe("invalid_ref");
  });

  it("an agent resolves only realms it could be granted something in: bob turning every tickets operation off hides it from his agents", async () => {
    const agent = await makeActor(t, t.users.bob!, "Resolver");
    expect((await resolveRealm(t.db, agent, { kind: "tickets.ticket" })).matches[0]!.namespace).toBe("tickets");
    const { changeChoices } = await import("@/lib/authz/policy");
    const realm = (await listRealms(t.db, t.tenantId)).find((r) => r.manifest.namespace === "tickets")!;
    const { operationKeysOf } = await import("@/lib/realms/contract");
    await changeChoices(t.db, t.users.bob!, { namespace: "tickets", changes: operationKeysOf(realm.manifest).map((operation) => ({ operation, mode: "off" as const })) });
    expect((await errorOf(resolveRealm(t.db, agent, { kind: "tickets.ticket" }))).code).toBe("not_found");
    // A person of the tenant still may ask.
    expect((await resolveRealm(t.db, t.users.bob!, { kind: "tickets.ticket" })).matches).toHaveLength(1);
  });
});
