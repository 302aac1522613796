import { describe, expect, it } from "vitest";
import { accountName, gateTwo, type AccountFacts } from "./gate-two";

const acct = (id: string, over: Partial<AccountFacts> = {}): AccountFacts => ({ id, label: id.toUpperCase(), email: `${id}@mail.test`, status: "active", claims: ["gmail:read"], provider: "google", ...over });
const work = acct("work");
const home = acct("home", { claims: ["gmail:read", "gmail:send"] });
const broken = acct("old", { status: "needs_reconnect" });
const gone = acct("gone", { status: "revoked", claims: ["gmail:read", "gmail:send"] });

const verdict = (d: ReturnType<typeof gateTwo>) => (d.allow ? `allow ${d.account.id}` : d.kind === "demand" ? `${d.reason}${d.account ? ` ${d.account.id}` : ""} missing=${d.missingClaims.join("+")}` : d.kind === "ambiguous" ? `ambiguous ${d.choices.map((c) => c.id).join(",")}` : "not_found");

describe("gate two", () => {
  it.each([
    ["no accounts at all", [], ["gmail:read"], null, null, "connect_required missing=gmail:read"],
    ["only a disconnected one", [gone], ["gmail:read"], null, null, "connect_required missing=gmail:read"],
    ["one account with the claim", [work], ["gmail:read"], null, null, "allow work"],
    ["one account without the claim", [work], ["gmail:send"], null, null, "claim_upgrade_required work missing=gmail:send"],
    ["one broken account", [broken], ["gmail:read"], null, null, "reconnect_required old missing="],
    ["several accounts, none named", [work, home], ["gmail:read"], null, null, "ambiguous work,home"],
    ["several, named by label (any case)", [work, home], ["gmail:send"], null, "home", "allow home"],
    ["several, named by email", [work, home], ["gmail:read"], null, "WORK@mail.test", "allow work"],
    ["named but not connected", [work, home], ["gmail:read"], null, "other@mail.test", "account_required missing=gmail:read"],
    ["named with nothing connected", [], ["gmail:read"], null, "work", "connect_required missing=gmail:read"],
    ["named, lacking the claim", [work, home], ["gmail:send"], null, "work", "claim_upgrade_required work missing=gmail:send"],
    ["a ref's account", [work, home], ["gmail:read"], "home", null, "allow home"],
    ["a ref's account, lacking the claim", [work, home], ["gmail:modify"], "home", null, "claim_upgrade_required home missing=gmail:modify"],
    ["a ref's account, since disconnected", [work, gone], ["gmail:read"], "gone", null, "connect_required gone missing=gmail:read"],
    ["a ref to someone else's account", [work], ["gmail:read"], "acc_elsewhere", null, "not_found"],
    ["a ref's account with a different account named", [work, home], ["gmail:read"], "home", "work", "account_required missing=gmail:read"],
  ] as const)("%s", (_name, accounts, needClaims, pinned, selector, expected) => {
    expect(verdict(gateTwo({ accounts: [...accounts], needClaims: [...needClaims], pinnedAccountId: pinned, selector }))).toBe(expected);
  });

  it("never offers a disconnected account as a candidate", () => {
    const d = gateTwo({ accounts: [gone, work], needClaims: ["gmail:send"], pinnedAccountId: null, selector: "nope" });
    expect(d.allow === false && d.kind === "demand" && d.candidates.map((c) => c.id)).toEqual(["work"]);
  });
});

describe("how a message names an account", () => {
  it("by its email, unless its label already says it (one account per workspace, the same email in each)", () => {
    expect(accountName({ label: "Work", email: "dana@mail.test" })).toBe("dana@mail.test");
    expect(accountName({ label: "Acme (Dana@mail.test)", email: "dana@mail.test" })).toBe("Acme (Dana@mail.test)");
    expect(accountName({ label: "Acme (@dana)", email: null })).toBe("Acme (@dana)");
  });
});
