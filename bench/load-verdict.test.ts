import { describe, expect, it } from "vitest";
import { judge, ratioCell, roundRatios, verdictMarkdown, type LevelRate } from "./load-verdict";

const H = "GET /api/health";
const ONE = "search_objects, 1 tenant";
const TEN = "search_objects, 10 tenants";
const rate = (connections: number, what: string, roundRps: number[]): LevelRate => ({
  connections,
  what,
  roundRps,
  rps: roundRps.reduce((a, b) => a + b, 0) / roundRps.length,
});

describe("bench:load's verdict on the throughput targets", () => {
  it("pairs each of the call's rounds with health's round of the same number", () => {
    expect(roundRatios([100, 300, 200], [400, 600, 1000])).toEqual([0.25, 0.5, 0.2]);
    expect(roundRatios([100, 300], [400])).toEqual([0.25]); // a round missing on one side is left out
    expect(roundRatios([100], [0])).toEqual([]); // never divides by a round health did not answer in
  });

  it("judges each level's ratio over the whole level, and shows the rounds' range beside it", () => {
    const v = judge(
      [rate(1, H, [800, 900, 700]), rate(1, ONE, [240, 270, 260]), rate(1, TEN, [300, 290, 280]), rate(4, H, [1000, 1000, 1000]), rate(4, ONE, [450, 460, 470]), rate(4, TEN, [400, 400, 400])],
      H,
      [ONE, TEN],
    );
    const one1 = v.ratios.find((r) => r.connections === 1 && r.what === ONE)!;
    expect(one1.ratio).toBeCloseTo(770 / 2400, 6);
    expect(one1.met).toBe(false); // 0.32: below 0.35
    expect(one1.lowest).toBeCloseTo(0.3, 6);
    expect(one1.highest).toBeCloseTo(260 / 700, 6);
    expect(v.ratios.find((r) => r.connections === 1 && r.what === TEN)!.met).toBe(true); // 870 / 2400 = 0.3625
    expect(v.ratios.filter((r) => r.connections === 4).every((r) => r.met)).toBe(true);
    expect(ratioCell(v, 1, ONE)).toBe("0.32× (rounds 0.30–0.37)");
    expect(ratioCell(v, 4, TEN)).toBe("0.40×"); // every round alike: no range
    expect(ratioCell(v, 4, H)).toBeNull(); // health is not judged against itself
  });

  it("holds the highest level against each request's own peak, exactly at the 10 % bound too, and gives health's own drop", () => {
    const rates = [
      rate(4, H, [1000]),
      rate(4, ONE, [500]),
      rate(4, TEN, [500]),
      rate(64, H, [1250]),
      rate(64, ONE, [480]),
      rate(64, TEN, [420]),
      rate(200, H, [1000]),
      rate(200, ONE, [450]), // 90 % of 500: on the bound, held
      rate(200, TEN, [449]), // 89.8 %: not
    ];
    const v = judge(rates, H, [ONE, TEN]);
    expect(v.highest).toBe(200);
    expect(v.holds.map((h) => [h.what, h.peakAt, h.met])).toEqual([
      [ONE, 4, true],
      [TEN, 4, false],
    ]);
    expect(v.health).toMatchObject({ peakAt: 64, share: 0.8 });
    const md = verdictMarkdown(v);
    expect(md).toContain("search_objects, 1 tenant 90 % of its peak (500 requests/s at 4) met");
    expect(md).toContain("search_objects, 10 tenants 90 % of its peak (500 requests/s at 4) **not met**");
    expect(md).toContain("`GET /api/health` itself: 80 % of its peak (1250 requests/s at 64)");
    expect(md).toContain("at 200 0.45× / 0.45× met");
    expect(md).toContain("(the tool call ≥ 0.35× health; at 200 connections within 10 % of its peak):");
  });

  it("with one level, judges the ratio only: there is no peak to hold", () => {
    const v = judge([rate(1, H, [900, 1000]), rate(1, ONE, [300, 330])], H, [ONE]);
    expect(v.holds).toEqual([]);
    expect(v.health).toBeNull();
    const md = verdictMarkdown(v);
    expect(md).toContain("(the tool call ≥ 0.35× health):");
    expect(md).not.toContain("of its peak");
  });

  it("shows a ratio for a request no target is about (the floor) but leaves it out of the verdict", () => {
    const FLOOR = "floor: POST + 3 exchanges";
    const v = judge([rate(4, H, [1000]), rate(4, ONE, [400]), rate(4, FLOOR, [300]), rate(16, H, [1000]), rate(16, ONE, [400]), rate(16, FLOOR, [600])], H, [ONE, FLOOR]);
    expect(ratioCell(v, 4, FLOOR)).toBe("0.30×");
    const md = verdictMarkdown(v, [ONE]);
    expect(md).toContain("at 4 0.40× met");
    expect(md).not.toContain("floor");
    expect(verdictMarkdown(v)).toContain("at 4 0.40× / 0.30× **not met**"); // without the list, every request judged
  });

  it("marks a level not met when any call misses, and says nothing without health", () => {
    const v = judge([rate(16, H, [1000]), rate(16, ONE, [400]), rate(16, TEN, [300])], H, [ONE, TEN]);
    expect(verdictMarkdown(v)).toContain("at 16 0.40× / 0.30× **not met**");
    expect(verdictMarkdown(judge([rate(16, ONE, [400])], H, [ONE]))).toBe("");
  });
});
