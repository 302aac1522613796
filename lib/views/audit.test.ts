import { beforeAll, describe, expect, it } from "vitest";
import { connectedAccounts } from "@/db/schema";
import { auditEventView, countingDb, makeTenant, type TestTenant } from "@/test-support";
import type { AuditEventView } from "@/lib/audit/view";
import { recordChange } from "@/lib/audit/record";
import { configuredProviders } from "@/lib/connections/providers";
import { newId } from "@/lib/ids";
import { accountIdsOf, auditNames, auditPage } from "./audit";

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
});

async function addAccount(tt: TestTenant, user: string, label: string, email: string | null) {
  const id = newId("acc");
  await tt.db.insert(connectedAccounts).values({ id, tenantId: tt.tenantId, userId: tt.users[user]!.userId, provider: "devmail", api: "gmail", externalId: id, email, label, claims: ["gmail:read"], scopes: [], status: "active" });
  return id;
}

const event = (over: Partial<AuditEventView>): AuditEventView => auditEventView({ user_id: "usr_sam", ...over });

describe("the names the support console puts on a page of the trail", () => {
  it("finds every account id an event names: its subject, a detail, a grant's scope old and new", () => {
    const ids = accountIdsOf([
      event({ event: "account.disconnected", subject_id: "acc_one" }),
      event({ event: "grant.created", subject_id: "grt_x", details: { resource_scope: { account_id: "acc_two" } } }),
      event({ event: "grant.migrated", details: { old_scope: { account_id: "acc_three" }, new_scope: { account_id: "acc_two" } } }),
      event({ details: { account_id: "acc_four", resource_scope: { refs: ["docs:file:fil_1"] } } }),
      event({ details: { account_id: "not an id" } }),
    ]);
    expect(ids.sort()).toEqual(["acc_four", "acc_one", "acc_three", "acc_two"]);
  });

  it("names the tenant's accounts in one read, never another tenant's, with the Connection Hub's labels", async () => {
    const work = await addAccount(t, "bob", "Work", "bob@acme.test");
    const plain = await addAccount(t, "alice", "alice@acme.test", "alice@acme.test");
    const other = await makeTenant({ eve: "owner" });
    const theirs = await addAccount(other, "eve", "Eve's mail", "eve@elsewhere.test");
    const events = [
      event({ event: "grant.created", details: { resource_scope: { account_id: work } } }),
      event({ event: "account.connected", subject_id: plain }),
      event({ event: "grant.created", details: { resource_scope: { account_id: theirs } } }),
    ];
    const counted = countingDb(t.db);
    const names = await auditNames(counted.db, t.users.sam!, events);
    expect(counted.queries()).toBe(1);
    expect(names.accounts).toEqual({ [work]: { label: "Work", email: "bob@acme.test", provider: "devmail" }, [plain]: { label: "alice@acme.test", email: "alice@acme.test", provider: "devmail" } });
    expect(names.claims["gmail:read"]).toBe("Read your mail and labels");
    expect(names.providers).toEqual(Object.fromEntries(configuredProviders().map((p) => [p.id, p.label])));
    // Nothing to name: no read at all.
    const quiet = countingDb(t.db);
    expect((await auditNames(quiet.db, t.users.sam!, [event({})])).accounts).toEqual({});
    expect(quiet.queries()).toBe(0);
  });

  it("is for owners and support only, and a page carries its names", async () => {
    await expect(auditNames(t.db, t.users.bob!, [])).rejects.toMatchObject({ code: "forbidden" });
    const id = await addAccount(t, "bob", "Side", "side@acme.test");
    await t.db.transaction((tx) => recordChange(tx, t.users.bob!, "account.disconnected", { subjectId: id, details: { provider: "devmail", label: "Side", provider_revocation: "revoked" } }));
    const page = await auditPage(t.db, t.users.alice!, { event: "account.disconnected", limit: 10 });
    expect(page.events.map((e) => e.subject_id)).toContain(id);
    expect(page.names.accounts[id]).toEqual({ label: "Side", email: "side@acme.test", provider: "devmail" });
  });

});
