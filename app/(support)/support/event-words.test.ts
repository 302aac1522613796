// The support console's words for the trail (components/audit/event-words.ts), tested here because vitest runs
// app/ and lib/ tests; the table itself is pure and lives with the console's components.
import { describe, expect, it } from "vitest";
import { eventSummary, eventTable, reasonText, type Names } from "@/components/audit/event-words";
import { auditEventNames } from "@/lib/audit/record";
import type { AuditEventView } from "@/lib/audit/view";
import { errorTable } from "@/lib/errors";
import { auditEventView } from "@/test-support";

const names: Names = { user: (id) => (id === "usr_alice" ? "Alice" : id === "usr_sam" ? "Sam" : id), actor: (id) => (id === "act_bot" ? "Helper bot" : id) };
const words = {
  shop: { title: "Shop API", operations: { "object.action.listPets": { label: "List pets", risk: "read" as const } } },
};

const event = (over: Partial<AuditEventView>): AuditEventView => auditEventView({ user_id: "usr_alice", ...over });

describe("the readable event table", () => {
  it("has a label and a sentence for every event the code can record", () => {
    const missing = auditEventNames.filter((name) => !(eventTable as Record<string, unknown>)[name]);
    expect(missing).toEqual([]);
    for (const name of auditEventNames) {
      const s = eventSummary(event({ event: name, namespace: "shop", actor_id: null, details: { actor_id: "act_bot" } }), words, names);
      expect(s.label, name).not.toBe(name);
      expect(s.sentence, name).not.toMatch(/[{}]/);
      expect(s.sentence.length, name).toBeGreaterThan(10);
    }
  });

  it("lists only events the code records (no stale words)", () => {
    expect(Object.keys(eventTable).sort()).toEqual([...auditEventNames].sort());
  });

  it("says what a curation changed, by the operation's label", () => {
    const s = eventSummary(
      event({ event: "realm.curated", namespace: "shop", details: { version: 3, change_count: 1, suspended_grants: 0, changes: [{ action: "listPets", risk: "write", exact_grant_only: true }] } }),
      words,
      names,
    );
    expect(s.sentence).toBe("Alice curated the operations of Shop API");
    expect(s.details).toContainEqual({ label: "Changes", value: "List pets: risk set to write, only an exact grant covers it" });
    expect(s.details).toContainEqual({ label: "Operations changed", value: "1" });
    const relabelled = eventSummary(event({ event: "realm.curated", namespace: "shop", details: { changes: [{ action: "listPets", label: "See pets", hidden: true }] } }), words, names);
    expect(relabelled.details).toContainEqual({ label: "Changes", value: "listPets: hidden, labelled “See pets”" });
  });

  it("names the account and its permissions on a connection, and the agent and operations on an approval", () => {
    const connected = eventSummary(event({ event: "account.connected", details: { provider: "devmail", label: "alice@example.com", claims: ["mail.read", "mail.send"], intent: "connect" } }), words, names);
    expect(connected.details).toEqual([
      { label: "Account", value: "alice@example.com" },
      { label: "Provider", value: "devmail" },
      { label: "Permissions", value: "mail.read, mail.send" },
    ]);
    const approved = eventSummary(event({ event: "consent.approved", namespace: "shop", details: { actor_id: "act_bot", operations: ["object.action.listPets"], expires: "1d" } }), words, names);
    expect(approved.sentence).toBe("Alice approved Helper bot's request in Shop API");
    expect(approved.details).toContainEqual({ label: "Operations", value: "List pets" });
  });

  it("still reads an event it has no words for", () => {
    const s = eventSummary(event({ event: "widget.polished" }), words, names);
    expect(s.label).toBe("Widget polished");
    expect(s.sentence).toBe("Alice: widget polished");
  });
});

describe("reasons in words", () => {
  it("has a sentence for every error code", () => {
    for (const code of Object.keys(errorTable)) {
      const r = reasonText(code)!;
      expect(r.code).toBe(code);
      expect(r.text, code).not.toBe(code.charAt(0).toUpperCase() + code.slice(1).replaceAll("_", " "));
    }
  });

  it("makes an unknown code readable and keeps a person's own words", () => {
    expect(reasonText("quota_exhausted")).toEqual({ text: "Quota exhausted", code: "quota_exhausted" });
    expect(reasonText("no longer needed")).toEqual({ text: "no longer needed", code: null });
    expect(reasonText(null)).toBeNull();
  });
});
