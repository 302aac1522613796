// The mail realm end to end through the one dispatcher: gate one (grants), gate two (connected accounts and
// claims), the Gmail-compatible local provider, and the faults it can inject.
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { approveAtDevIssuer, startDevMail, type DevMail } from "@/dev/fake-gmail";
import { SUPPORTED_OPERATORS } from "@/dev/gmail-query";
import { auditEvents, connectedAccounts } from "@/db/schema";
import { envOverride, errorOf, inCall, makeTenant, refusingDelivery, thrownCode, type TestTenant } from "@/test-support";
import type { ActorContext, UserContext } from "@/lib/authz/context";
import { createActor } from "@/lib/authz/actors";
import { createGrant } from "@/lib/authz/grants";
import { disconnectAccount, openTokens } from "@/lib/connections/accounts";
import { connectWith } from "@/lib/connections/test-kit";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { manifestSchema, operationKeysOf } from "@/lib/realms/contract";
import { dispatch } from "@/lib/tools/dispatch";
import { manifest } from "./manifest";
import { adapter, parseMailRef } from "./adapter";
import type { RealmContext } from "@/lib/realms/contract";

let dm: DevMail;
const envs = envOverride();
const setEnv = envs.set;

beforeAll(async () => {
  dm = await startDevMail({ appUrl: env().appUrl });
  setEnv(dm.env);
});
afterAll(async () => {
  envs.restore();
  await dm?.close();
});
afterEach(() => {
  release();
  Object.assign(dm.gmail.faults, { delayMs: 0, hold: null, status: null, match: null });
});

/** Hold the provider's answers until the test lets them go (or ends): a slow provider without a sleep. */
let release = () => {};
const holdAnswers = () => void (dm.gmail.faults.hold = new Promise<void>((r) => (release = r)));

const READS = ["provider.about", "object.schema", "object.list", "object.search", "object.get"];

type World = { t: TestTenant; alice: UserContext; agent: ActorContext; login: string };

/** A tenant where alice's agent holds mail grants (gate one open), and alice has connected nothing yet. */
async function world(operations: string[] = [...READS, "object.action.send", "object.action.reply", "object.action.archive"]): Promise<World> {
  const t = await makeTenant();
  const alice = t.users.alice!;
  const { actor } = await createActor(t.db, alice, { name: "Inbox helper", kind: "automation", issue_token: false, token_expires_in_days: null });
  await createGrant(t.db, alice, { actor_id: actor.id, namespace: "mail", operations, resource_scope: null, expires: "1d" });
  const agent: ActorContext = { kind: "actor", tenantId: t.tenantId, actorId: actor.id, actorKind: "automation", actorName: actor.name, grantorId: alice.userId, via: "actor_token", credentialId: "tok_test", requestId: newId("req") };
  // A fresh mailbox at the provider for every world: the local provider keeps one per login.
  return { t, alice, agent, login: `alice-${newId("req").slice(4, 14)}` };
}

const connect = (w: World, login: string, body: Record<string, unknown> = {}) =>
  connectWith(w.t.db, w.alice, { provider: "devmail", ...body }, (url) => approveAtDevIssuer(url, { login }));

type Items = { items: { ref: string; label: string; summary?: string }[]; next_cursor: string | null };

describe("the mail manifest", () => {
  it("parses, and every action names the claims it needs", () => {
    expect(manifestSchema.safeParse(manifest).success).toBe(true);
    expect(operationKeysOf(manifest)).not.toContain("file.host");
    for (const a of manifest.actions) expect(a.claims.length).toBeGreaterThan(0);
  });

  it("its search rules name exactly the operators and values the local provider understands", () => {
    const search = manifest.rules.filter((r) => /^(search_objects on mail|Search operators)/.test(r));
    expect(search).toHaveLength(2);
    const named = new Map<string, Set<string>>();
    for (const [, op, value] of search.join(" ").matchAll(/(?<![\w.])([a-z_]+):(?=[\w("{-])([a-z0-9_-]*)/g)) {
      if (!named.has(op!)) named.set(op!, new Set());
      named.get(op!)!.add(value!);
    }
    expect([...named.keys()].sort()).toEqual(Object.keys(SUPPORTED_OPERATORS).sort());
    for (const [op, values] of Object.entries(SUPPORTED_OPERATORS)) if (values) expect([...named.get(op)!].sort(), op).toEqual([...values].sort());
  });
});

describe("gate two: the connected account", () => {
  it("answers an agent's first search with connect_required, then works once the account is connected", async () => {
    const w = await world();
    const denied = await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "agenda" }));
    expect(denied.code).toBe("needs_connected_account_consent");
    expect(denied.status).toBe(403);
    expect(denied.details).toMatchObject({ reason: "connect_required", gate: "two", missing_claims: ["gmail:read"], candidates: [], retry_hint: "retry_after_connect", who_can_open: "alice" });
    const hub = new URL(String(denied.details.connection_hub_url));
    expect(`${hub.origin}${hub.pathname}`).toBe(`${env().appUrl}/connections/fix`);
    expect(Object.fromEntries(hub.searchParams)).toMatchObject({ reason: "connect_required", actor: w.agent.actorId, claims: "gmail:read", operation: "object.search", return_to: "/connections" });
    expect(String(denied.details.instructions)).toContain(String(denied.details.connection_hub_url));
    const [audit] = await w.t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, w.t.tenantId), eq(auditEvents.event, "tool.call")));
    expect(audit).toMatchObject({ outcome: "deny", gate: "two", reason: "needs_connected_account_consent", actorId: w.agent.actorId });

    const { account } = await connect(w, w.login);
    const found = (await dispatch(w.agent, "search_objects", { namespace: "mail", query: "agenda" })) as Items;
    expect(found.items.map((i) => i.label)).toEqual(["Re: Q3 planning — agenda draft", "Q3 planning — agenda draft"]);
    expect(parseMailRef(found.items[0]!.ref)).toMatchObject({ accountId: account.id, type: "message" });
  });

  it("reads a message with its body, thread and attachments as signed URLs", async () => {
    const w = await world();
    await connect(w, w.login);
    const found = (await dispatch(w.agent, "search_objects", { namespace: "mail", query: "has:attachment invoice" })) as Items;
    expect(found.items).toHaveLength(1);
    const msg = (await dispatch(w.agent, "get_object", { ref: found.items[0]!.ref, full: true })) as Record<string, unknown> & { attachments: { name: string; file: { encoding: string; url: string; expires_at: string } }[] };
    expect(msg).toMatchObject({ subject: "Your invoice for September", from: "CloudCo Billing <billing@cloudco.test>", labels: expect.arrayContaining(["INBOX", "Receipts"]) });
    expect(String(msg.body)).toContain("Amount due: 240.00 EUR");
    expect(msg.attachments).toHaveLength(1);
    expect(msg.attachments[0]).toMatchObject({ name: "invoice-september.csv", file: { encoding: "url" } });
    expect(msg.attachments[0]!.file.url.startsWith(`${env().appUrl}/api/v1/files/`)).toBe(true);
    const compact = (await dispatch(w.agent, "get_object", { ref: found.items[0]!.ref })) as Record<string, unknown>;
    expect(compact.body).toBeUndefined();
    const thread = (await dispatch(w.agent, "get_object", { ref: String(msg.thread) })) as { message_count: number };
    expect(thread.message_count).toBe(1);
    const labels = (await dispatch(w.agent, "list_objects", { namespace: "mail", kind: "mail.label" })) as Items;
    expect(labels.items.map((l) => l.label)).toContain("Travel");
    const travel = (await dispatch(w.agent, "list_objects", { namespace: "mail", kind: "mail.message", filter: { label: "travel" } })) as Items;
    expect(travel.items.map((i) => i.label)).toEqual(["Itinerary: Lisbon offsite"]);
    const viaSelector = (await dispatch(w.agent, "get_object", { namespace: "mail", kind: "mail.message", selector: { subject: "Lunch" } })) as { subject: string };
    expect(viaSelector.subject).toBe("Lunch on Friday?");
  });

  it("pages with an opaque cursor", async () => {
    const w = await world();
    await connect(w, w.login);
    const first = (await dispatch(w.agent, "list_objects", { namespace: "mail", kind: "mail.message", limit: 2 })) as Items;
    expect(first.items).toHaveLength(2);
    const second = (await dispatch(w.agent, "list_objects", { namespace: "mail", kind: "mail.message", limit: 2, cursor: first.next_cursor })) as Items;
    expect(second.items).toHaveLength(2);
    expect(second.items.map((i) => i.ref)).not.toContain(first.items[0]!.ref);
  });

  it("asks for the send claim, then sends once upgraded; reply lands in the thread", async () => {
    const w = await world();
    const { account } = await connect(w, w.login);
    const mail = { to: ["dana@northwind.test"], subject: "Agenda for Thursday", body: "Hi Dana,\nhere it is." };
    const denied = await errorOf(dispatch(w.agent, "object_action", { namespace: "mail", action: "send", payload: mail }));
    expect(denied.details).toMatchObject({ reason: "claim_upgrade_required", missing_claims: ["gmail:send"], account_id: account.id, retry_hint: "retry_after_upgrade" });
    expect((denied.details.candidates as { label: string }[]).map((c) => c.label)).toEqual([`${w.login}@example.test`]);
    expect(new URL(String(denied.details.connection_hub_url)).searchParams.get("account")).toBe(account.id);

    await connect(w, w.login, { intent: "upgrade", account_id: account.id, claims: ["gmail:send"] });
    const sent = (await dispatch(w.agent, "object_action", { namespace: "mail", action: "send", payload: mail })) as { sent: boolean; ref: string };
    expect(sent.sent).toBe(true);
    expect(dm.gmail.mailbox(w.login).messages.at(-1)).toMatchObject({ subject: "Agenda for Thursday", to: "dana@northwind.test", labelIds: ["SENT"] });

    const [original] = ((await dispatch(w.agent, "search_objects", { namespace: "mail", query: "subject:lunch" })) as Items).items;
    const reply = (await dispatch(w.agent, "object_action", { ref: original!.ref, action: "reply", payload: { body: "Friday works!" } })) as { thread_ref: string; to: string[] };
    expect(reply.to).toEqual(["Lee Park <lee@acme.test>"]);
    const thread = (await dispatch(w.agent, "get_object", { ref: reply.thread_ref })) as { message_count: number };
    expect(thread.message_count).toBe(2);
    // archive needs gmail:modify, which the account was never given.
    expect((await errorOf(dispatch(w.agent, "object_action", { ref: original!.ref, action: "archive", payload: {} }))).details.reason).toBe("claim_upgrade_required");
  });

  it("with several accounts, asks which one and takes it by label or email", async () => {
    const w = await world();
    await connect(w, w.login, { label: "Personal" });
    await connect(w, `${w.login}-work`, { label: "Work" });
    const ambiguous = await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }));
    expect(ambiguous.code).toBe("ambiguous_selector");
    expect((ambiguous.details.choices as { label: string }[]).map((c) => c.label)).toEqual(["Personal", "Work"]);
    const work = (await dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch", filter: { account: "work" } })) as Items;
    expect(work.items).toHaveLength(1);
    const byEmail = (await dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch", filter: { account: `${w.login}-work@example.test` } })) as Items;
    expect(byEmail.items.map((i) => i.ref)).toEqual(work.items.map((i) => i.ref));
    const unknown = await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch", filter: { account: "boss@acme.test" } }));
    expect(unknown.details).toMatchObject({ reason: "account_required" });
    expect((unknown.details.candidates as unknown[]).length).toBe(2);
  });

  it("a grant scoped to one connected account sees only that account", async () => {
    const w = await world();
    await connect(w, w.login, { label: "Personal" });
    const work = await connect(w, `${w.login}-work`, { label: "Work" });
    const { actor } = await createActor(w.t.db, w.alice, { name: "Work-only helper", kind: "automation", issue_token: false, token_expires_in_days: null });
    await createGrant(w.t.db, w.alice, { actor_id: actor.id, namespace: "mail", operations: READS, resource_scope: { account_id: work.account.id }, expires: "1d" });
    const scoped: ActorContext = { ...w.agent, actorId: actor.id, actorName: actor.name, requestId: newId("req") };
    const found = (await dispatch(scoped, "search_objects", { namespace: "mail", query: "lunch" })) as Items;
    expect(found.items).toHaveLength(1); // no ambiguity: the personal account does not exist for this grant
    expect(found.items[0]!.ref).toContain(work.account.id);
    const personal = await errorOf(dispatch({ ...scoped, requestId: newId("req") }, "search_objects", { namespace: "mail", query: "lunch", filter: { account: "personal" } }));
    expect(personal.details).toMatchObject({ reason: "account_required" });
  });

  it("never lets a ref reach someone else's account", async () => {
    const w = await world();
    const bob = w.t.users.bob!;
    const bobs = await connectWith(w.t.db, bob, { provider: "devmail" }, (url) => approveAtDevIssuer(url, { login: "bob" }));
    await connect(w, w.login);
    const ref = `mail:gmail:${bobs.account.id}:message:18c1000001abcdef`;
    expect((await errorOf(dispatch(w.agent, "get_object", { ref }))).code).toBe("not_found");
  });

  it("after a disconnect, the next call meets connect_required again", async () => {
    const w = await world();
    const { account } = await connect(w, w.login);
    await dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" });
    await disconnectAccount(w.t.db, w.alice, account.id);
    expect((await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }))).details.reason).toBe("connect_required");
  });
});

describe("search_objects: the provider's query language, as the rules promise it", () => {
  it("finds word forms, either of two words, a sender without a subject, and recent mail", async () => {
    const w = await world();
    await connect(w, w.login);
    const labels = async (query: string, filter: Record<string, unknown> = {}) => ((await dispatch(w.agent, "search_objects", { namespace: "mail", kind: "mail.message", query, filter })) as Items).items.map((i) => i.label);
    expect(await labels("invoice")).toEqual(["Your invoice for September"]);
    expect(await labels("invoices")).toEqual(["Your invoice for September"]);
    expect(await labels("invoice OR billing")).toEqual(["Your invoice for September", "Your card on file expires soon"]);
    expect(await labels("{lunch itinerary}")).toEqual(["Lunch on Friday?", "Itinerary: Lisbon offsite"]);
    expect(await labels("from:billing -subject:invoice")).toEqual(["Your card on file expires soon"]);
    expect(await labels('"first draft" -in:sent')).toEqual(["Q3 planning — agenda draft"]);
    expect(await labels("newer_than:7d")).toEqual(["Lunch on Friday?", "Re: Q3 planning — agenda draft", "Q3 planning — agenda draft", "Your invoice for September"]);
    expect(await labels("older_than:7d (billing OR travel)")).toEqual(["Itinerary: Lisbon offsite", "Your card on file expires soon"]);
    // The kind's filters narrow the same search.
    expect(await labels("billing", { label: "Receipts" })).toEqual(["Your invoice for September"]);
    expect(await labels("subject:agenda", { unread: false })).toEqual(["Re: Q3 planning — agenda draft"]);
    // Threads are found by the same language.
    const threads = ((await dispatch(w.agent, "search_objects", { namespace: "mail", kind: "mail.thread", query: "agenda -from:dana" })) as Items).items;
    expect(threads.map((t) => t.label)).toEqual(["Q3 planning — agenda draft"]);
    // Nothing matches: an empty page, not an error.
    expect(await labels("invoices newer_than:1d")).toEqual([]);
    expect(await labels("newer_than:3h")).toEqual([]);
  });
});

/** One adapter call as a person (no dispatcher): what the consent page does when it describes refs. */
const asUser = <T>(t: TestTenant, u: UserContext, fn: (ctx: RealmContext) => Promise<T>) => inCall(t, { type: "user", userId: u.userId }, refusingDelivery("mail"), fn);

describe("mail refs", () => {
  it("declares no ref-holding action payload, and the message's thread as a mail.thread ref", () => {
    for (const a of manifest.actions) expect(a.ref_paths, a.name).toEqual([]);
    expect(manifest.kinds.find((k) => k.name === "mail.message")!.fields.find((f) => f.name === "thread")).toMatchObject({ type: "ref", ref_kind: "mail.thread" });
  });

  it("parseRef names the kind and the account of every ref the adapter mints, and rejects half-typed ones as invalid_ref", async () => {
    const w = await world();
    const { account } = await connect(w, w.login);
    const found = await asUser(w.t, w.alice, (ctx) => adapter.search(ctx, { kind: null, query: "lunch", filter: {}, after: null, limit: 5 }));
    const message = found.items[0]!.ref;
    const thread = String((await asUser(w.t, w.alice, (ctx) => adapter.get(ctx, { ref: message, full: false }))).thread);
    const label = (await asUser(w.t, w.alice, (ctx) => adapter.list(ctx, { kind: "mail.label", filter: {}, after: null, limit: 25 }))).items[0]!.ref;
    expect(adapter.parseRef(message)).toEqual({ kind: "mail.message", account_id: account.id });
    expect(adapter.parseRef(thread)).toEqual({ kind: "mail.thread", account_id: account.id });
    expect(adapter.parseRef(label)).toEqual({ kind: "mail.label", account_id: account.id });

    const acc = account.id;
    for (const ref of [
      "mail:g",
      "mail:gmail",
      "mail:gmail:",
      "mail:gmail:acc_",
      `mail:gmail:${acc}`,
      `mail:gmail:${acc}:`,
      `mail:gmail:${acc}:message`,
      `mail:gmail:${acc}:message:`,
      `mail:gmail:${acc}:msg:18c1000001abcdef`,
      `mail:outlook:${acc}:message:18c1000001abcdef`,
      `docs:gmail:${acc}:message:18c1000001abcdef`,
      `mail:gmail:${acc}:message:18c1000001abcdef:extra`,
      "mail:gmail:acc_short:message:18c1000001abcdef",
      "",
    ]) {
      expect(thrownCode(() => adapter.parseRef(ref)), ref).toBe("invalid_ref");
    }
  });

  it("describeRefs names messages, threads and labels of the caller's own accounts, and null for someone else's, unknown and malformed refs", async () => {
    const w = await world();
    const { account } = await connect(w, w.login, { label: "Personal" });
    const bob = w.t.users.bob!;
    await connectWith(w.t.db, bob, { provider: "devmail" }, (url) => approveAtDevIssuer(url, { login: `bob-${w.login}` }));
    const lunch = (await asUser(w.t, w.alice, (ctx) => adapter.search(ctx, { kind: "mail.message", query: "lunch", filter: {}, after: null, limit: 5 }))).items[0]!.ref;
    const thread = String((await asUser(w.t, w.alice, (ctx) => adapter.get(ctx, { ref: lunch, full: false }))).thread);
    const labels = (await asUser(w.t, w.alice, (ctx) => adapter.list(ctx, { kind: "mail.label", filter: {}, after: null, limit: 25 }))).items;
    const travel = labels.find((l) => l.label === "Travel")!.ref;
    const inbox = labels.find((l) => l.label === "INBOX")!.ref;
    const bobsLunch = (await asUser(w.t, bob, (ctx) => adapter.search(ctx, { kind: "mail.message", query: "lunch", filter: {}, after: null, limit: 5 }))).items[0]!.ref;
    const unknown = [`mail:gmail:${account.id}:message:ffffffffffffffff`, `mail:gmail:${account.id}:label:Label_404`, "mail:gmail:acc_zzzzzzzzzzzzzzzzzzzz:message:18c1000001abcdef"];
    const malformed = ["mail:gmail:", `mail:gmail:${account.id}:message:`, "docs:document:doc_aaaaaaaaaaaaaaaaaaaa"];

    const labelCalls = () => dm.gmail.calls.get("GET /gmail/v1/users/me/labels") ?? 0;
    const before = labelCalls();
    const got = await asUser(w.t, w.alice, (ctx) => adapter.describeRefs(ctx, [lunch, thread, travel, inbox, bobsLunch, ...unknown, ...malformed]));
    expect(labelCalls() - before).toBe(1); // every label ref of an account from one labels call
    expect(got[lunch]).toEqual({ kind: "mail.message", label: "Lunch on Friday?", summary: "message from Lee Park <lee@acme.test> in Personal", lineage: [] });
    expect(got[thread]).toEqual({ kind: "mail.thread", label: "Lunch on Friday?", summary: "thread of 1 message in Personal", lineage: [] });
    expect(got[travel]).toEqual({ kind: "mail.label", label: "Travel", summary: "your label in Personal", lineage: [] });
    expect(got[inbox]).toMatchObject({ label: "INBOX", summary: "system label in Personal" });
    for (const ref of [bobsLunch, ...unknown, ...malformed]) expect(got[ref], ref).toBeNull();

    // Bob's ref is real: Bob himself gets its name.
    expect((await asUser(w.t, bob, (ctx) => adapter.describeRefs(ctx, [bobsLunch])))[bobsLunch]).toMatchObject({ label: "Lunch on Friday?" });
  });
});

describe("provider faults", () => {
  it("bounds a slow provider: provider_unavailable, and a send is never resent", async () => {
    const w = await world();
    const { account } = await connect(w, w.login, { claims: ["gmail:read", "gmail:send"] });
    // The smallest timeout the configuration takes; the provider holds every answer until the test lets it go.
    setEnv({ REALMGATE_PROVIDER_TIMEOUT_MS: "100" });
    try {
      holdAnswers();
      const slowRead = await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }));
      expect(slowRead).toMatchObject({ code: "provider_unavailable", status: 504 });
      const sends = () => (dm.gmail.calls.get("POST /gmail/v1/users/me/messages/send") ?? 0);
      const before = sends();
      const slowOnes = () => dm.gmail.mailbox(w.login).messages.filter((m) => m.subject === "Slow one");
      // The answer never came: the call ends on its own timeout, before the provider has carried the send out.
      const slowSend = await errorOf(dispatch(w.agent, "object_action", { namespace: "mail", action: "send", payload: { to: ["dana@northwind.test"], subject: "Slow one", body: "x" } }));
      expect(slowOnes()).toHaveLength(0);
      expect(slowSend).toMatchObject({ code: "provider_unavailable", status: 504 });
      expect(slowSend.message).toMatch(/may or may not have been sent/);
      expect(slowSend.details).toMatchObject({ may_have_taken_effect: true, retried: false, account_id: account.id });
      // Once the provider answers, the one send it received lands, and it was never resent.
      release();
      await vi.waitFor(() => expect(slowOnes()).toHaveLength(1));
      expect(sends() - before).toBe(1);
    } finally {
      setEnv({ REALMGATE_PROVIDER_TIMEOUT_MS: undefined });
    }
  });

  it("a 503 is provider_unavailable, and the account stays connected", async () => {
    const w = await world();
    await connect(w, w.login);
    Object.assign(dm.gmail.faults, { status: 503 });
    expect(await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }))).toMatchObject({ code: "provider_unavailable", status: 503 });
    Object.assign(dm.gmail.faults, { status: null });
    expect(((await dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" })) as Items).items).toHaveLength(1);
  });

  it("a 401 marks the account needs_reconnect and demands reconnect_required until it is reconnected", async () => {
    const w = await world();
    const { account } = await connect(w, w.login);
    Object.assign(dm.gmail.faults, { status: 401 });
    const denied = await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }));
    expect(denied.details).toMatchObject({ reason: "reconnect_required", account_id: account.id, retry_hint: "retry_after_reconnect" });
    const [row] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    expect(row).toMatchObject({ status: "needs_reconnect" });
    const events = await w.t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, w.t.tenantId), eq(auditEvents.event, "account.needs_reconnect")));
    expect(events).toHaveLength(1);

    Object.assign(dm.gmail.faults, { status: null });
    const calls = [...dm.gmail.calls.values()].reduce((a, b) => a + b, 0);
    expect((await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }))).details.reason).toBe("reconnect_required");
    expect([...dm.gmail.calls.values()].reduce((a, b) => a + b, 0)).toBe(calls);

    await connect(w, w.login, { intent: "reconnect", account_id: account.id });
    expect(((await dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" })) as Items).items).toHaveLength(1);
  });

  it("refreshes an expired access token and keeps the new one", async () => {
    const w = await world();
    const { account } = await connect(w, w.login);
    const [before] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    const later = new Date(Date.now() + 2 * 3_600_000);
    const found = (await dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }, { now: () => later })) as Items;
    expect(found.items).toHaveLength(1);
    const [after] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    expect(openTokens(after!).access_token).not.toBe(openTokens(before!).access_token);
    expect(after!.tokenExpiresAt!.getTime()).toBeGreaterThan(later.getTime());
    expect(after!.status).toBe("active");
  });

  it("keeps a rotated refresh token even when the call itself then fails", async () => {
    const w = await world();
    const { account } = await connect(w, w.login);
    const [before] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    const later = new Date(Date.now() + 2 * 3_600_000);
    dm.refreshRotation.on = true;
    try {
      // The token is refreshed (and the issuer spends the old refresh token), then the API fails.
      Object.assign(dm.gmail.faults, { status: 503 });
      expect(await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }, { now: () => later }))).toMatchObject({ code: "provider_unavailable", status: 503 });
    } finally {
      dm.refreshRotation.on = false;
    }
    const [after] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    expect(openTokens(after!).refresh_token).not.toBe(openTokens(before!).refresh_token);
    expect(openTokens(after!).access_token).not.toBe(openTokens(before!).access_token);
    expect(after!).toMatchObject({ status: "active", version: before!.version + 1 });
    // The stored refresh token is the live one: the next refresh works (the spent one would end the grant).
    Object.assign(dm.gmail.faults, { status: null });
    const evenLater = new Date(Date.now() + 4 * 3_600_000);
    expect(((await dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }, { now: () => evenLater })) as Items).items).toHaveLength(1);
    const [last] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    expect(last!.status).toBe("active");
  });

  it("a refused refresh marks the account needs_reconnect", async () => {
    const w = await world();
    const { account } = await connect(w, w.login);
    const [row] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    // The person revoked Realmgate's access at the provider.
    const basic = Buffer.from(`${dm.env.REALMGATE_DEVMAIL_CLIENT_ID}:${dm.env.REALMGATE_DEVMAIL_CLIENT_SECRET}`).toString("base64");
    await fetch(`${dm.issuer}/token/revocation`, { method: "POST", headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: openTokens(row!).refresh_token! }) });
    const later = new Date(Date.now() + 2 * 3_600_000);
    const denied = await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch" }, { now: () => later }));
    expect(denied.details).toMatchObject({ reason: "reconnect_required" });
    const [after] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, account.id));
    expect(after!.status).toBe("needs_reconnect");
  });

  it("a ciphertext swapped between rows does not open: reconnect_required, nothing sent to the provider", async () => {
    const w = await world();
    const a = await connect(w, w.login, { label: "A" });
    const b = await connect(w, `${w.login}-two`, { label: "B" });
    const [rowB] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, b.account.id));
    await w.t.db.update(connectedAccounts).set({ secret: rowB!.secret, secretKid: rowB!.secretKid }).where(eq(connectedAccounts.id, a.account.id));
    const calls = [...dm.gmail.calls.values()].reduce((x, y) => x + y, 0);
    const denied = await errorOf(dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch", filter: { account: "A" } }));
    expect(denied.details).toMatchObject({ reason: "reconnect_required", account_id: a.account.id });
    expect(String(denied.message)).toContain("cannot be read");
    expect([...dm.gmail.calls.values()].reduce((x, y) => x + y, 0)).toBe(calls);
    const [rowA] = await w.t.db.select().from(connectedAccounts).where(eq(connectedAccounts.id, a.account.id));
    expect(rowA!.status).toBe("needs_reconnect");
    // B is untouched and still works.
    expect(((await dispatch(w.agent, "search_objects", { namespace: "mail", query: "lunch", filter: { account: "B" } })) as Items).items).toHaveLength(1);
  });
});
