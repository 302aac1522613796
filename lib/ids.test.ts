import { describe, expect, it } from "vitest";
import { newId, newRealmId } from "./ids";

describe("ids", () => {
  it("are a prefix and 20 base-36 characters, and never repeat, across many blocks of random bytes", () => {
    const ids = Array.from({ length: 5000 }, () => newId("evt"));
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-z]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // No two ids share their random part, whatever their prefix (the bytes are used once each).
    const tails = [...ids, ...Array.from({ length: 500 }, () => newRealmId("doc"))].map((id) => id.slice(id.indexOf("_") + 1));
    expect(new Set(tails).size).toBe(tails.length);
  });

  it("use every character of the alphabet", () => {
    const seen = new Set(Array.from({ length: 300 }, () => newId("req").slice(4)).join(""));
    expect(seen.size).toBe(36);
  });

  it("refuse a realm prefix that is not 2–5 lowercase letters", () => {
    expect(() => newRealmId("Doc")).toThrow(/2–5 lowercase letters/);
  });
});
