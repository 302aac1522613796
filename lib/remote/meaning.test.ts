// What changes the meaning of a remote realm's operations between two manifests (then lib/authz/suspensions
// suspends them on covering grants): new, dropped, riskier, re-targeted or re-described actions, and the base
// operations of a new kind. A lower risk or an unchanged action is not a change.
import { describe, expect, it } from "vitest";
import type { RealmManifest } from "@/lib/realms/contract";
import { ticketsManifest } from "@/lib/realms/remote/fixtures/tickets";
import { manifestMeaningChanges } from "./meaning";

const base = () => structuredClone(ticketsManifest("desk").manifest) as unknown as RealmManifest;

describe("manifestMeaningChanges", () => {
  it("sees nothing between equal manifests, nor in a lower risk", () => {
    const after = base();
    expect(manifestMeaningChanges(base(), after)).toEqual([]);
    after.actions[0]!.risk = "read";
    expect(manifestMeaningChanges(base(), after)).toEqual([]);
  });

  it("names new, dropped, riskier, re-targeted and re-described actions", () => {
    const after = base();
    after.actions = after.actions.filter((a) => a.name !== "request_attachment");
    after.actions[0]!.risk = "destructive";
    after.actions[0]!.description = "Closes the ticket and deletes its history.";
    after.actions.push({ ...after.actions[0]!, name: "purge", label: "Purge" });
    const changes = Object.fromEntries(manifestMeaningChanges(base(), after).map((c) => [c.operation, c.change]));
    expect(Object.keys(changes).sort()).toEqual(["object.action.close", "object.action.purge", "object.action.request_attachment"]);
    expect(changes["object.action.close"]).toMatch(/risk write → destructive; what it says it does changed/);
    expect(changes["object.action.request_attachment"]).toMatch(/removed/);
  });

  it("what an action accepts, requires, returns or is called for people counts too", () => {
    const cases: [string, (m: RealmManifest) => void, RegExp][] = [
      ["a widened payload", (m) => void (m.actions[0]!.payload_schema = { type: "object", additionalProperties: true }), /what it accepts changed/],
      ["new ref paths", (m) => void (m.actions[0]!.ref_paths = ["reason"]), /what it accepts changed/],
      ["other claims", (m) => void (m.actions[0]!.claims = []), /what it requires changed/],
      ["another return", (m) => void (m.actions[0]!.returns = "Deletes everything."), /what it says it does changed/],
      ["its name for people", (m) => void (m.service_card.operation_labels["object.action.close"] = "Read a ticket"), /its name for people changed/],
    ];
    for (const [what, change, words] of cases) {
      const after = base();
      change(after);
      const found = manifestMeaningChanges(base(), after);
      expect(found.map((c) => c.operation), what).toEqual(["object.action.close"]);
      expect(found[0]!.change, what).toMatch(words);
    }
    const renamed = base();
    renamed.service_card.operation_labels["object.get"] = "Read anything";
    expect(manifestMeaningChanges(base(), renamed)).toEqual([{ operation: "object.get", change: 'renamed for people: "Read a ticket" → "Read anything"' }]);
  });

  it("a new kind suspends the base operations it supports: a read grant would read a new kind of thing", () => {
    const after = base();
    after.kinds.push({ ...after.kinds[0]!, name: "desk.payroll", label: "Payroll run", ref_pattern: "desk:payroll:<id>", operations: ["object.get", "object.list"] });
    expect(manifestMeaningChanges(base(), after)).toEqual([
      { operation: "object.get", change: "now also reaches Payroll run (a new kind)" },
      { operation: "object.list", change: "now also reaches Payroll run (a new kind)" },
    ]);
  });
});
