import { beforeAll, describe, expect, it } from "vitest";
import { connectedAccounts } from "@/db/schema";
import { countingDb, makeTenant, type TestTenant } from "@/test-support";
import type { AuditEventView } from "@/lib/audit/view";
import { recordChange } from "@/lib/audit/record";
import { configuredProviders } from "@/lib/connections/providers";
import { newId } from "@/lib/ids";
import { accountIdsOf, auditNames, auditPage } from "./audit";
import { accountNameText, accountText, claimText, datesReversed, filtersText, grantTitle, mergeAuditNames, noAuditNames, operationAcrossRealms, providerText, type AuditNames, type FilterLookups } from "./audit-names";

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
});

async function addAccount(tt: TestTenant, user: string, label: string, email: string | null) {
  const id = newId("acc");
  await tt.db.insert(connectedAccounts).values({ id, tenantId: tt.tenantId, userId: tt.users[user]!.userId, provider: "devmail", api: "gmail", externalId: id, email, label, claims: ["gmail:read"], scopes: [], status: "active" });
  return id;
}

const event = (over: Partial<AuditEventView>): AuditEventView => ({
  id: "evt_1",
  pos: 1,
  lane: 0,
  seq: 1,
  at: "2026-12-01T10:00:00.000Z",
  event: "tool.call",
  request_id: null,
  principal_type: "user",
  user_id: "usr_sam",
  actor_id: null,
  namespace: null,
  operation: null,
  ref: null,
  outcome: "ok",
  gate: null,
  reason: null,
  subject_id: null,
  details: {},
  ...over,
});

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
    expect(accountText(names.accounts[work]!)).toBe("Work (bob@acme.test)");
    expect(accountText(names.accounts[plain]!)).toBe("alice@acme.test");
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

  it("merges later pages' accounts into the first page's names", () => {
    const a: AuditNames = { accounts: { acc_a: { label: "A", email: null, provider: "devmail" } }, providers: { devmail: "Demo mail" }, claims: {} };
    const b: AuditNames = { accounts: { acc_b: { label: "B", email: null, provider: "devmail" } }, providers: { devmail: "Demo mail" }, claims: { "gmail:read": "Read" } };
    expect(mergeAuditNames(mergeAuditNames(noAuditNames, a), undefined)).toEqual(a);
    expect(Object.keys(mergeAuditNames(a, b).accounts)).toEqual(["acc_a", "acc_b"]);
  });
});

describe("naming what the trail records by id", () => {
  const ids: AuditNames = {
    accounts: { acc_work: { label: "Work", email: "bob@acme.test", provider: "devmail" } },
    providers: { devmail: "Demo mail (local)" },
    claims: { "gmail:read": "Read your mail and labels" },
  };
  const look: FilterLookups = {
    person: (id) => (id === "usr_bob" ? "Bob Member" : null),
    agent: (id) => (id === "act_bot" ? "Demo Agent" : null),
    realm: (ns) => (ns === "docs" ? "Docs" : ns),
    operation: (ns, op) => (ns === "docs" && op === "object.get" ? "Read one document" : op),
    outcome: (o) => (o === "deny" ? "Denied" : o),
    event: (e) => (e === "tool.call" ? "Tool call" : e),
    time: (iso) => `at ${iso}`,
  };

  it("names the person, agent, realm, operation, outcome and event a recorded search filtered on", () => {
    const text = filtersText({ user_id: "usr_bob", actor_id: "act_bot", namespace: "docs", operation: "object.get", outcome: "deny", event: "tool.call" }, look);
    expect(text).toBe("Person: Bob Member; Agent: Demo Agent; Realm: Docs; Operation: Read one document; Outcome: Denied; What happened: Tool call");
    expect(text).not.toContain("usr_");
    // Someone no longer in the directory, a key it does not know, and nothing at all still read.
    expect(filtersText({ user_id: "usr_gone", subject_id: "grt_1", from: "2026-12-01T10:00:00.000Z" }, look)).toBe("Person: usr_gone; subject id: grt_1; From: at 2026-12-01T10:00:00.000Z");
    expect(filtersText({}, look)).toBe("none");
  });

  it("says providers and permissions as the Connection Hub does, accounts by label and email", () => {
    expect(providerText(ids, "devmail")).toBe("Demo mail (local)");
    expect(providerText(ids, "retired")).toBe("retired");
    expect(claimText(ids, "gmail:read")).toBe("Read your mail and labels");
    expect(claimText(ids, "old:claim")).toBe("old:claim");
    expect(claimText(ids, "toString")).toBe("toString");
    expect(accountNameText(ids, "acc_work")).toBe("Work (bob@acme.test)");
    expect(accountNameText(ids, "acc_gone")).toBeNull();
  });

  it("says an operation called without a realm in words", () => {
    expect(operationAcrossRealms("provider.about")).toBe("See what the realms offer");
    expect(operationAcrossRealms("object.schema")).toBe("Look up what the realms offer");
    expect(operationAcrossRealms("object.action.send")).toBeNull();
  });

  it("names a grant by its agent and realm", () => {
    expect(grantTitle("Demo Agent", "Docs")).toBe("Demo Agent's access to Docs");
  });

  it("knows a time range the wrong way round", () => {
    expect(datesReversed({ from: "2026-12-02T00:00:00.000Z", to: "2026-12-01T00:00:00.000Z" })).toBe(true);
    expect(datesReversed({ from: "2026-12-01T00:00:00.000Z", to: "2026-12-02T00:00:00.000Z" })).toBe(false);
    expect(datesReversed({ from: "2026-12-01T00:00:00.000Z", to: "2026-12-01T00:00:00.000Z" })).toBe(false);
    expect(datesReversed({ from: "2026-12-02T00:00:00.000Z" })).toBe(false);
  });
});
