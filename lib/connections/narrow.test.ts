// Removing one permission from a connected account (the `narrow` intent), and what the Connection Hub shows of
// an account: when it was connected, when it was last used, and which agents reach it.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveAtDevIssuer, startDevMail, type DevMail } from "@/dev/fake-gmail";
import { auditEvents } from "@/db/schema";
import { call, envOverride, errorOf, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import type { UserContext } from "@/lib/authz/context";
import { revokeActor } from "@/lib/authz/actors";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { dispatch } from "@/lib/tools/dispatch";
import { listAccounts } from "./accounts";
import { startConnection } from "./flows";
import { connectWith } from "./test-kit";

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

const login = () => `alice-${newId("req").slice(4, 14)}`;
const connect = (t: TestTenant, who: UserContext, mailbox: string, body: Record<string, unknown>) =>
  connectWith(t.db, who, { provider: "devmail", ...body }, (url) => approveAtDevIssuer(url, { login: mailbox }));
const events = async (t: TestTenant, subject: string) =>
  (await t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.subjectId, subject)))).map((e) => ({ event: e.event, details: e.details }));

describe("removing one permission (narrow)", () => {
  it("asks only for the permissions kept, and the account then holds just those", async () => {
    const t = await makeTenant({ alice: "owner" });
    const alice = t.users.alice!;
    const mailbox = login();
    const { account } = await connect(t, alice, mailbox, { claims: ["gmail:read", "gmail:send"] });
    expect(account.claims.map((c) => c.name)).toEqual(["gmail:read", "gmail:send"]);
    expect(account.narrowing).toBe("reconsent");

    const narrowed = await connect(t, alice, mailbox, { intent: "narrow", account_id: account.id, claims: ["gmail:read"] });
    const scopes = new URL(narrowed.authorizationUrl).searchParams.get("scope")!.split(" ");
    expect(scopes).toContain("https://www.googleapis.com/auth/gmail.readonly");
    expect(scopes).not.toContain("https://www.googleapis.com/auth/gmail.send");
    expect(narrowed.intent).toBe("narrow");
    expect(narrowed.account).toMatchObject({ id: account.id, status: "active" });
    expect(narrowed.account.claims.map((c) => c.name)).toEqual(["gmail:read"]);
    expect(narrowed.account.missing_claims.map((c) => c.name)).toContain("gmail:send");
    const recorded = (await events(t, account.id)).at(-1);
    expect(recorded).toMatchObject({ event: "account.reconnected", details: { intent: "narrow", removed: ["gmail:send"], claims: ["gmail:read"] } });
  });

  it("refuses keeping nothing, keeping everything, or keeping a permission the account does not hold", async () => {
    const t = await makeTenant({ alice: "owner" });
    const alice = t.users.alice!;
    const { account } = await connect(t, alice, login(), { claims: ["gmail:read", "gmail:send"] });
    const start = (claims: string[]) => errorOf(startConnection(t.db, alice, { intent: "narrow", account_id: account.id, claims }));
    expect(await start([])).toMatchObject({ code: "invalid_input", message: expect.stringMatching(/disconnect/) });
    expect(await start(["gmail:read", "gmail:send"])).toMatchObject({ code: "invalid_input", message: expect.stringMatching(/fewer/) });
    expect(await start(["gmail:modify"])).toMatchObject({ code: "invalid_input", details: { claims: ["gmail:modify"] } });
    // Nothing changed: the account still holds both.
    expect((await listAccounts(t.db, alice))[0]!.claims.map((c) => c.name)).toEqual(["gmail:read", "gmail:send"]);
  });
});

describe("what the Connection Hub shows of an account", () => {
  it("says when it was connected, when an agent last used it, and which agents reach it", async () => {
    const t = await makeTenant({ alice: "owner" });
    const alice = t.users.alice!;
    const { account } = await connect(t, alice, login(), { claims: ["gmail:read"] });
    const scoped = await makeActor(t, alice, "Inbox helper");
    const idle = await makeActor(t, alice, "Idle bot");
    const gone = await makeActor(t, alice, "Old bot");
    await grant(t, alice, scoped.actorId, "mail", ["object.search", "object.get"], { scope: { account_id: account.id } });
    await grant(t, alice, idle.actorId, "mail", ["object.search"]);
    await grant(t, alice, gone.actorId, "mail", ["object.search"], { scope: { account_id: account.id } });
    await revokeActor(t.db, alice, gone.actorId, "not needed");

    let [view] = await listAccounts(t.db, alice, { usage: true });
    expect(view!.connected_at).toBe(view!.created_at);
    expect(view!.last_used_at).toBeNull();
    expect(view!.agents).toEqual([{ id: scoped.actorId, name: "Inbox helper", scoped: true, used_at: null }]);

    // An unscoped agent that searches the mailbox (no ref named) has used the account: its audit record says which.
    const found = (await dispatch(call(idle), "search_objects", { namespace: "mail", query: "subject:lunch" })) as { items: { ref: string }[] };
    expect(found.items.length).toBeGreaterThan(0);
    [view] = await listAccounts(t.db, alice, { usage: true });
    expect(view!.agents!.find((a) => a.name === "Idle bot")).toMatchObject({ scoped: false, used_at: expect.any(String) });
    const [searched] = await t.db
      .select({ details: auditEvents.details })
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.actorId, idle.actorId), eq(auditEvents.event, "tool.call")));
    expect(searched!.details).toMatchObject({ tool: "search_objects", account_ids: [account.id] });
    // Reading a message by its ref uses it too.
    await grant(t, alice, idle.actorId, "mail", ["object.get"]);
    await dispatch(call(idle), "get_object", { ref: found.items[0]!.ref });

    [view] = await listAccounts(t.db, alice, { usage: true });
    expect(view!.last_used_at).not.toBeNull();
    expect(Date.now() - new Date(view!.last_used_at!).getTime()).toBeLessThan(60_000);
    expect(view!.agents!.map((a) => [a.name, a.scoped, a.used_at !== null])).toEqual([
      ["Idle bot", false, true],
      ["Inbox helper", true, false],
    ]);
    // Without `usage` the list stays two reads lighter.
    expect((await listAccounts(t.db, alice))[0]!.agents).toBeUndefined();
  });
});
