// The support console's names for what the trail records by id (components/audit/names.ts), tested here because
// vitest runs app/ and lib/ tests; the server's side (which accounts a page names) is lib/views/audit.test.ts.
import { describe, expect, it } from "vitest";
import { accountNameText, accountText, claimText, datesReversed, filtersText, grantTitle, mergeAuditNames, noAuditNames, operationAcrossRealms, providerText, type AuditNames, type FilterLookups } from "@/components/audit/names";

describe("naming what the trail records by id", () => {
  it("merges later pages' accounts into the first page's names", () => {
    const a: AuditNames = { accounts: { acc_a: { label: "A", email: null, provider: "devmail" } }, providers: { devmail: "Demo mail" }, claims: {} };
    const b: AuditNames = { accounts: { acc_b: { label: "B", email: null, provider: "devmail" } }, providers: { devmail: "Demo mail" }, claims: { "gmail:read": "Read" } };
    expect(mergeAuditNames(mergeAuditNames(noAuditNames, a), undefined)).toEqual(a);
    expect(Object.keys(mergeAuditNames(a, b).accounts)).toEqual(["acc_a", "acc_b"]);
  });

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
    expect(accountText({ label: "Work", email: "bob@acme.test", provider: "devmail" })).toBe("Work (bob@acme.test)");
    expect(accountText({ label: "alice@acme.test", email: "alice@acme.test", provider: "devmail" })).toBe("alice@acme.test");
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
