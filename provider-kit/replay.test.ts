// The replay cache: once per id, kept until expiry, bounded memory that refuses rather than forgets.
import { describe, expect, it } from "vitest";
import { ReplayCache } from "./replay";

const t0 = new Date("2026-12-01T10:00:00Z");
const at = (s: number) => new Date(t0.getTime() + s * 1000);

describe("ReplayCache", () => {
  it("accepts an id once until it expires", () => {
    const c = new ReplayCache();
    expect(c.use("req_1", at(300), t0)).toBe(true);
    expect(c.use("req_1", at(300), at(10))).toBe(false);
    expect(c.use("req_1", at(300), at(299))).toBe(false);
    expect(c.size).toBe(1);
  });

  it("refuses an id that has already expired", () => {
    expect(new ReplayCache().use("req_1", t0, at(1))).toBe(false);
  });

  it("drops expired ids to make room", () => {
    const c = new ReplayCache({ maxEntries: 2 });
    expect(c.use("a", at(10), t0)).toBe(true);
    expect(c.use("b", at(20), t0)).toBe(true);
    expect(c.use("c", at(30), at(11))).toBe(true); // a expired, swept
    expect(c.size).toBe(2);
    expect(c.use("b", at(20), at(12))).toBe(false);
  });

  it("refuses new ids when full of unexpired ones rather than forget one", () => {
    const c = new ReplayCache({ maxEntries: 2 });
    c.use("a", at(100), t0);
    c.use("b", at(100), t0);
    expect(c.use("c", at(100), at(1))).toBe(false);
    expect(c.size).toBe(2);
    expect(c.use("a", at(100), at(2))).toBe(false); // still remembered
    expect(c.use("c", at(200), at(101))).toBe(true); // room once they expire
  });

  it("rejects a nonsensical bound", () => {
    expect(() => new ReplayCache({ maxEntries: 0 })).toThrow(RangeError);
  });
});
