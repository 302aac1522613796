import { beforeAll, describe, expect, it } from "vitest";
import { connectedAccounts } from "@/db/schema";
import { makeTenant, type TestTenant } from "@/test-support";
import { createActor } from "@/lib/authz/actors";
import { newId } from "@/lib/ids";
import { manifest } from "@/lib/realms/mail/manifest";
import { fixView, type DescribeOperation } from "./connections";

const words: DescribeOperation = async (ns, op) => (ns === "mail" ? { title: manifest.service_card.title, operationLabel: manifest.service_card.operation_labels[op] ?? op } : null);
const view = (...args: [Parameters<typeof fixView>[0], Parameters<typeof fixView>[1], Parameters<typeof fixView>[2]]) => fixView(...args, words);

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
});

async function addAccount(tt: TestTenant, user: string, label: string, claims: string[], status: "active" | "needs_reconnect" | "revoked" = "active") {
  const id = newId("acc");
  await tt.db.insert(connectedAccounts).values({ id, tenantId: tt.tenantId, userId: tt.users[user]!.userId, provider: "devmail", api: "gmail", externalId: id, email: `${label.toLowerCase()}@mail.test`, label, claims, scopes: [], status });
  return id;
}

describe("the fix page's view of a consent demand", () => {
  it("says what is missing now, and that nothing is once the account is there", async () => {
    const tt = await makeTenant({ alice: "owner" });
    const who = tt.users.alice!;
    const link = { api: "gmail", reason: "connect_required", claims: "gmail:read", operation: "object.search", namespace: "mail" };
    const before = await view(tt.db, who, link);
    expect(before).toMatchObject({ asked: "connect_required", live: { reason: "connect_required", missing: [{ name: "gmail:read", label: "Read your mail and labels" }] }, operation: { label: "Search your mail" }, realm: { title: "Mail" } });
    await addAccount(tt, "alice", "Home", ["gmail:read"]);
    expect((await view(tt.db, who, link))!.live).toBeNull();
    await addAccount(tt, "alice", "Work", ["gmail:read"]);
    const two = await view(tt.db, who, link);
    expect(two!.live).toBeNull();
    expect(two!.choose!.map((a) => a.label)).toEqual(["Home", "Work"]);
  });

  it("follows an upgrade link to its account and notices when the claim arrives", async () => {
    const id = await addAccount(t, "bob", "Bob mail", ["gmail:read"]);
    const link = { api: "gmail", reason: "claim_upgrade_required", claims: "gmail:send", account: id, operation: "object.action.send" };
    const upgrade = await view(t.db, t.users.bob!, link);
    expect(upgrade!.live).toMatchObject({ reason: "claim_upgrade_required", account: { id }, missing: [{ name: "gmail:send" }] });
    expect(upgrade!.operation.label).toBe("Send a new email");
    // Someone else's account id in a link is not shown to them.
    const other = await view(t.db, t.users.alice!, link);
    expect(other!.live).toMatchObject({ reason: "connect_required", account: null });
  });

  it("names only the person's own actor, and keeps the return path on this site", async () => {
    const { actor } = await createActor(t.db, t.users.alice!, { name: "Inbox helper", kind: "automation", issue_token: false, token_expires_in_days: null });
    const mine = await view(t.db, t.users.alice!, { api: "gmail", reason: "connect_required", actor: actor.id, return_to: "/agents" });
    expect(mine!.actor).toEqual({ id: actor.id, name: "Inbox helper" });
    expect(mine!.returnTo).toBe("/agents");
    const theirs = await view(t.db, t.users.bob!, { api: "gmail", reason: "connect_required", actor: actor.id, return_to: "//evil.test/x" });
    expect(theirs!.actor).toBeNull();
    expect(theirs!.returnTo).toBe("/connections");
    expect(await view(t.db, t.users.bob!, { reason: "open_sesame" })).toBeNull();
  });
});
