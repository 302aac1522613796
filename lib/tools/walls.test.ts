// One consent for every wall a call will meet: a gate-one denial lists the connected-account walls ahead
// (read with the grantor's authority, from their stored accounts), approving continues into the connection
// flow and comes back to the consent page; companion operations are offered with a request and granted
// only as the person leaves them checked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveAtDevIssuer, startDevMail, type DevMail } from "@/dev/fake-gmail";
import { connectedAccounts } from "@/db/schema";
import { call, codeOf, envOverride, errorOf, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import type { ActorContext, UserContext } from "@/lib/authz/context";
import { getConsentRequest } from "@/lib/authz/consent";
import { connectWith } from "@/lib/connections/test-kit";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { manifestSchema } from "@/lib/realms/contract";
import { manifest as docsManifest } from "@/lib/realms/docs/manifest";
import { manifest as mailManifest } from "@/lib/realms/mail/manifest";
import { consentCompanions, consentPath, consentWalls, decideAndContinue } from "@/lib/views/consent";
import { dispatch } from "./dispatch";

let dm: DevMail;
const envs = envOverride();
beforeAll(async () => {
  dm = await startDevMail({ appUrl: env().appUrl });
  envs.set(dm.env);
});
afterAll(async () => {
  envs.restore();
  await dm?.close();
});

type Wall = { wall: string; reason: string; missing_claims: string[]; account_id: string | null; account_label: string | null; connection_hub_url: string };
type Items = { items: { ref: string; label: string }[] };

const READS = ["provider.about", "object.schema", "object.list", "object.search", "object.get"];

/** Alice's agent may read her mail (gate one open for reads only); `login` is her mailbox at the local provider. */
async function mailWorld(): Promise<{ t: TestTenant; alice: UserContext; bob: UserContext; agent: ActorContext; login: string }> {
  const t = await makeTenant();
  const alice = t.users.alice!;
  const agent = await makeActor(t, alice, "Inbox helper");
  await grant(t, alice, agent.actorId, "mail", READS);
  return { t, alice, bob: t.users.bob!, agent, login: `alice-${newId("req").slice(4, 14)}` };
}

const connect = (t: TestTenant, who: UserContext, login: string, body: Record<string, unknown> = {}) =>
  connectWith(t.db, who, { provider: "devmail", ...body }, (url) => approveAtDevIssuer(url, { login }));

describe("provider_about of a connected realm says the account wall reads would meet", () => {
  it("no account: the wall and its link; once connected with reading allowed: nothing; a native realm: nothing", async () => {
    const w = await mailWorld();
    const about = (await dispatch(call(w.agent), "provider_about", { namespace: "mail" })) as { account_wall?: Wall & { api: string }; account_note?: string };
    expect(about.account_wall).toMatchObject({ wall: "connected_account", reason: "connect_required", api: "gmail", missing_claims: ["gmail:read"], account_id: null });
    expect(about.account_wall!.connection_hub_url).toContain("/connections/fix?reason=connect_required");
    expect(about.account_note).toMatch(/^Your user has no connected .* account: until then every call here answers needs_connected_account_consent\./);
    // What it says is what the first read meets.
    expect(await codeOf(dispatch(call(w.agent), "search_objects", { namespace: "mail", query: "lunch" }))).toBe("needs_connected_account_consent");
    // The realm list says it too, beside the realms whose reads need a grant first.
    type Listed = { realms: { namespace: string; reads_need_grant?: true; account_wall?: string }[]; realm_status_note?: string };
    const root = (await dispatch(call(w.agent), "provider_about", {})) as Listed;
    const listed = (ns: string) => root.realms.find((x) => x.namespace === ns)!;
    expect(listed("mail")).toMatchObject({ account_wall: "connect_required" });
    expect(listed("mail")).not.toHaveProperty("reads_need_grant");
    expect(listed("docs")).toMatchObject({ reads_need_grant: true });
    expect(listed("docs")).not.toHaveProperty("account_wall");
    expect(root.realm_status_note).toContain("account_wall");

    await connect(w.t, w.alice, w.login, { claims: ["gmail:read"] });
    const connected = (await dispatch(call(w.agent), "provider_about", { namespace: "mail" })) as Record<string, unknown>;
    expect(connected).not.toHaveProperty("account_wall");
    expect(connected).not.toHaveProperty("account_note");
    const after = (await dispatch(call(w.agent), "provider_about", {})) as Listed;
    expect(after.realms.find((x) => x.namespace === "mail")).not.toHaveProperty("account_wall");
    expect(await dispatch(call(w.agent), "provider_about", { namespace: "docs" })).not.toHaveProperty("account_wall");
  });
});

describe("a consent_required denial lists the connected-account walls ahead", () => {
  it("replying with an account that lacks gmail:send: one visit approves, upgrades the claim, and the retry goes through", async () => {
    const w = await mailWorld();
    const { account } = await connect(w.t, w.alice, w.login, { claims: ["gmail:read"] });
    const [message] = ((await dispatch(call(w.agent), "search_objects", { namespace: "mail", query: "subject:lunch" })) as Items).items;

    const denied = await errorOf(dispatch(call(w.agent), "object_action", { ref: message!.ref, action: "reply", payload: { body: "Friday works!" } }));
    expect(denied.code).toBe("consent_required");
    const id = denied.details.consent_request_id as string;
    const also = denied.details.also_needed as Wall[];
    expect(also).toEqual([
      expect.objectContaining({ wall: "connected_account", reason: "claim_upgrade_required", missing_claims: ["gmail:send"], account_id: account.id, account_label: `${w.login}@example.test` }),
    ]);
    // The fix link comes back to the consent page, on this site.
    const fix = new URL(also[0]!.connection_hub_url);
    expect(`${fix.origin}${fix.pathname}`).toBe(`${env().appUrl}/connections/fix`);
    expect(fix.searchParams.get("return_to")).toBe(`/consent/${id}`);
    expect(String(denied.details.instructions)).toContain("one visit fixes everything");
    expect(String(denied.details.instructions)).toContain(`${env().appUrl}/consent/${id}`);

    // The consent page shows the same wall, read with alice's own authority.
    const request = await getConsentRequest(w.t.db, w.alice, id);
    expect((await consentWalls(w.t.db, w.alice, request)).map((x) => x.reason)).toEqual(["claim_upgrade_required"]);

    // Approving answers where to continue: the upgrade, asking only for the missing claim, back to this page.
    const decided = await decideAndContinue(w.t.db, call(w.alice), id, { decision: "approve", expires: "1d", scope_to_ref: false });
    expect(decided.request.status).toBe("approved");
    const next = decided.also_needed[0]!;
    expect(next.start).toEqual({ intent: "upgrade", account_id: account.id, claims: ["gmail:send"] });
    const done = await connect(w.t, w.alice, w.login, { ...next.start, return_to: consentPath(id) });
    expect(done.returnTo).toBe(`/consent/${id}`);
    // Back on the consent page: nothing is left.
    expect(await consentWalls(w.t.db, w.alice, await getConsentRequest(w.t.db, w.alice, id))).toEqual([]);

    const replied = (await dispatch(call(w.agent), "object_action", { ref: message!.ref, action: "reply", payload: { body: "Friday works!" } })) as { sent: boolean };
    expect(replied.sent).toBe(true);
  });

  it("without an account: connect_required, and approving leads to the fix page to connect one", async () => {
    const w = await mailWorld();
    const denied = await errorOf(dispatch(call(w.agent), "object_action", { namespace: "mail", action: "send", payload: { to: ["dana@northwind.test"], subject: "Hi", body: "Hello" } }));
    expect(denied.code).toBe("consent_required");
    expect(denied.details.also_needed).toEqual([expect.objectContaining({ wall: "connected_account", reason: "connect_required", missing_claims: ["gmail:send"], account_id: null })]);
    const id = denied.details.consent_request_id as string;
    const decided = await decideAndContinue(w.t.db, call(w.alice), id, { decision: "approve", expires: "1d", scope_to_ref: false });
    const next = decided.also_needed[0]!;
    expect(next.start).toBeNull();
    const fix = new URL(next.connection_hub_url);
    expect(Object.fromEntries(fix.searchParams)).toMatchObject({ reason: "connect_required", claims: "gmail:send", actor: w.agent.actorId, return_to: `/consent/${id}` });
  });

  it("names the account the call named: the consent link carries it, and a hostile return path never does", async () => {
    const w = await mailWorld();
    await connect(w.t, w.alice, w.login, { claims: ["gmail:read"], label: "Work" });
    await connect(w.t, w.alice, `${w.login}-home`, { claims: ["gmail:read", "gmail:send"], label: "Home" });
    const mail = { to: ["dana@northwind.test"], subject: "Hi", body: "Hello" };
    const work = await errorOf(dispatch(call(w.agent), "object_action", { namespace: "mail", action: "send", payload: { ...mail, account: "Work" } }));
    const id = work.details.consent_request_id as string;
    expect(work.details.connection_hub_url).toBe(`${env().appUrl}/consent/${id}?account=Work`);
    expect((work.details.also_needed as Wall[]).map((x) => [x.reason, x.account_label])).toEqual([["claim_upgrade_required", `${w.login}@example.test`]]);
    // The account that already sends: nothing else is needed; and an unnamed choice between two is the agent's to make.
    const home = await errorOf(dispatch(call(w.agent), "object_action", { namespace: "mail", action: "send", payload: { ...mail, account: "Home" } }));
    expect(home.details.also_needed).toBeUndefined();
    const either = await errorOf(dispatch(call(w.agent), "object_action", { namespace: "mail", action: "send", payload: mail }));
    expect(either.details.also_needed).toBeUndefined();
    // The page reads the same wall with the same hint; a fix link never leaves the site.
    const request = await getConsentRequest(w.t.db, w.alice, id);
    const walls = await consentWalls(w.t.db, w.alice, request, { account: "Work" });
    expect(new URL(walls[0]!.connection_hub_url).searchParams.get("return_to")).toBe(`/consent/${id}?account=Work`);
    expect(consentPath(id, { account: "//evil.test" })).toBe(`/consent/${id}?account=%2F%2Fevil.test`);
  });

  it("never reveals another user's accounts: it reads the grantor's only", async () => {
    const w = await mailWorld();
    // Bob has an account lacking gmail:send; alice has none.
    const bobs = await connect(w.t, w.bob, `bob-${newId("req").slice(4, 14)}`, { claims: ["gmail:read"], label: "Bob's work" });
    const denied = await errorOf(dispatch(call(w.agent), "object_action", { namespace: "mail", action: "send", payload: { to: ["x@y.test"], subject: "s", body: "b", account: "Bob's work" } }));
    expect(denied.code).toBe("consent_required");
    expect(JSON.stringify(denied.details)).not.toContain(bobs.account.id);
    expect(JSON.stringify(denied.details)).not.toContain(String(bobs.account.email));
    expect(denied.details.also_needed).toEqual([expect.objectContaining({ reason: "connect_required", account_id: null, account_label: null })]);

    // A ref into bob's mailbox: no wall is listed at all, and nothing of his account is told.
    const bobsRef = `mail:gmail:${bobs.account.id}:message:m1`;
    const pinned = await errorOf(dispatch(call(w.agent), "object_action", { ref: bobsRef, action: "reply", payload: { body: "hi" } }));
    expect(pinned.code).toBe("consent_required");
    expect(pinned.details.also_needed).toBeUndefined();
    expect(JSON.stringify(pinned.details)).not.toContain(String(bobs.account.email));
    // And bob's account is as he left it.
    const rows = await w.t.db.select().from(connectedAccounts);
    expect(rows.find((r) => r.id === bobs.account.id)!.claims).toEqual(["gmail:read"]);
  });

  it("lists nothing for a native realm", async () => {
    const t = await makeTenant();
    const agent = await makeActor(t, t.users.alice!);
    const denied = await errorOf(dispatch(call(agent), "search_objects", { namespace: "docs", query: "plan" }));
    expect(denied.code).toBe("consent_required");
    expect(denied.details.also_needed).toBeUndefined();
  });
});

describe("companion operations", () => {
  const upload = { namespace: "docs", name: "budget.csv", content_type: "text/csv", content_base64: Buffer.from("a,b\n").toString("base64") };

  async function docsWorld() {
    const t = await makeTenant();
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice, "Filer");
    await grant(t, alice, agent.actorId, "docs", ["object.get", "object.list"]);
    const doc = (await dispatch(call(alice), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Budget" } })) as { ref: string };
    return { t, alice, agent, doc };
  }

  it("offers the attach step with an upload, and one approval grants both", async () => {
    const w = await docsWorld();
    const denied = await errorOf(dispatch(call(w.agent), "host_file", upload));
    expect(denied.code).toBe("consent_required");
    const id = denied.details.consent_request_id as string;
    const request = await getConsentRequest(w.t.db, w.alice, id);
    expect(request.operations).toEqual(["file.host"]);
    const offered = await consentCompanions(w.t.db, w.alice, request);
    // The companion is the narrow attach action, never the realm-wide upsert.
    expect(offered.map((c) => c.key)).toEqual(["object.action.attach_file"]);
    expect(offered[0]!.why).toContain("attach");

    // The page sends what stays checked: the ask and its companion.
    const { grant: g } = await decideAndContinue(w.t.db, call(w.alice), id, { decision: "approve", expires: "1d", operations: ["file.host", "object.action.attach_file"], scope_to_ref: false });
    expect([...g!.operations].sort()).toEqual(["file.host", "object.action.attach_file"]);
    const hosted = (await dispatch(call(w.agent), "host_file", upload)) as { ref: string };
    const attached = (await dispatch(call(w.agent), "object_action", { ref: hosted.ref, action: "attach_file", payload: { document: "Budget" } })) as { document: string };
    expect(attached.document).toBe(w.doc.ref);
    // The companion lets it attach, nothing more: creating or sharing documents still asks.
    expect(await codeOf(dispatch(call(w.agent), "upsert_object", { kind: "docs.document", fields: { title: "Not asked for" } }))).toBe("consent_required");
  });

  it("never approves a companion instead of what was asked", async () => {
    const w = await docsWorld();
    const id = (await errorOf(dispatch(call(w.agent), "host_file", upload))).details.consent_request_id as string;
    expect(await codeOf(decideAndContinue(w.t.db, call(w.alice), id, { decision: "approve", expires: "1d", operations: ["object.action.attach_file"], scope_to_ref: false }))).toBe("invalid_input");
    expect((await getConsentRequest(w.t.db, w.alice, id)).status).toBe("pending");
  });

  it("grants an unchecked companion nothing, and refuses operations neither asked for nor companions", async () => {
    const w = await docsWorld();
    const id = (await errorOf(dispatch(call(w.agent), "host_file", upload))).details.consent_request_id as string;
    expect(await codeOf(decideAndContinue(w.t.db, call(w.alice), id, { decision: "approve", expires: "1d", operations: ["file.host", "object.delete"], scope_to_ref: false }))).toBe("invalid_input");
    const { grant: g } = await decideAndContinue(w.t.db, call(w.alice), id, { decision: "approve", expires: "1d", operations: ["file.host"], scope_to_ref: false });
    expect(g!.operations).toEqual(["file.host"]);
    const hosted = (await dispatch(call(w.agent), "host_file", upload)) as { ref: string };
    expect(await codeOf(dispatch(call(w.agent), "object_action", { ref: hosted.ref, action: "attach_file", payload: { document: w.doc.ref } }))).toBe("consent_required");
  });

  it("are offered from either side of the pair", async () => {
    const w = await docsWorld();
    const hostedByAlice = (await dispatch(call(w.alice), "host_file", upload)) as { ref: string };
    const denied = await errorOf(dispatch(call(w.agent), "object_action", { ref: hostedByAlice.ref, action: "attach_file", payload: { document: w.doc.ref } }));
    const request = await getConsentRequest(w.t.db, w.alice, denied.details.consent_request_id as string);
    expect((await consentCompanions(w.t.db, w.alice, request)).map((c) => c.key)).toEqual(["file.host"]);
  });

  it("are validated in the manifest: known operations, each once", () => {
    const raw = { ...mailManifest, companions: [{ operations: ["object.action.reply", "object.action.nope"], why: "x" }] };
    expect(manifestSchema.safeParse(raw).success).toBe(false);
    expect(manifestSchema.safeParse({ ...mailManifest, companions: [{ operations: ["object.get", "object.get"], why: "x" }] }).success).toBe(false);
    expect(manifestSchema.safeParse({ ...mailManifest, companions: [{ operations: ["object.get"], why: "x" }] }).success).toBe(false);
    expect(manifestSchema.safeParse({ ...mailManifest, companions: [{ operations: ["object.get", "object.action.reply"], why: "Read before replying." }] }).success).toBe(true);
    expect(docsManifest.companions).toEqual([expect.objectContaining({ operations: ["file.host", "object.action.attach_file"] })]);
  });
});
