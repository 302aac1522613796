// The realm page's pieces that decide what a person sees: descriptions rendered safely, undo and rollback that
// put exactly the changed operations back, the card's counts from the switches, areas as rows.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DescriptionMarkdown } from "@/components/realms/markdown";
import { applyChanges, countsOf, groupedRows, previousOf, rankedOperations } from "@/components/realms/operation-changes";
import type { OperationView, RealmCardView } from "@/lib/views/realms";

const html = (text: string) => renderToStaticMarkup(createElement(DescriptionMarkdown, { text }));

describe("descriptions in Markdown", () => {
  it("renders emphasis, code and lists as the author wrote them", () => {
    const out = html("Deletes a **repository**. Needs `admin`.\n\n- one\n- two");
    expect(out).toContain("<strong>repository</strong>");
    expect(out).toMatch(/<code[^>]*>admin<\/code>/);
    expect(out).toMatch(/<li>one<\/li>/);
  });

  it("never lets a description inject script, raw HTML, images or script links", () => {
    const out = html(
      [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(2)">',
        "![tracker](https://evil.example/pixel.png)",
        "[click](javascript:alert(3))",
        "[data](data:text/html;base64,PHNjcmlwdD4=)",
        '<a href="https://evil.example" onclick="alert(4)">raw link</a>',
      ].join("\n\n"),
    );
    expect(out).not.toMatch(/<script|<img|onerror|onclick|javascript:|data:text/i);
    expect(out).not.toContain("evil.example/pixel.png");
    expect(out).not.toMatch(/href="[^"]*evil/);
  });

  it("keeps http(s) links, opened without the opener or referrer", () => {
    const out = html("See [the docs](https://docs.github.com/rest/repos).");
    expect(out).toContain('href="https://docs.github.com/rest/repos"');
    expect(out).toContain('rel="noopener noreferrer"');
  });
});

const op = (key: string, area: string, o: Partial<OperationView> = {}): OperationView => ({
  key: key as OperationView["key"],
  label: key,
  description: "",
  risk: "destructive",
  claims: [],
  kinds: [],
  action: null,
  area,
  ceiling: true,
  choice: true,
  effective: true,
  ...o,
});

describe("bulk changes and undo", () => {
  // Some already off before the bulk change: undo must leave those off, not turn them on.
  const before = [op("a", "x"), op("b", "x", { ceiling: false, effective: false }), op("c", "y"), op("d", "y", { risk: "read" })];

  it("undo restores exactly the previous states of the operations a bulk change touched", () => {
    const bulk = before.filter((o) => o.risk === "destructive").map((o) => ({ operation: o.key, enabled: false }));
    const undo = previousOf(before, "ceiling", bulk);
    const after = applyChanges(before, "ceiling", bulk);
    expect(after.filter((o) => o.risk === "destructive").every((o) => !o.ceiling)).toBe(true);
    expect(applyChanges(after, "ceiling", undo)).toEqual(before);
    expect(undo).toEqual([
      { operation: "a", enabled: true },
      { operation: "b", enabled: false },
      { operation: "c", enabled: true },
    ]);
  });

  it("the card's counts follow the switches", () => {
    const base: RealmCardView["operations"] = { total: 4, describing: 0, by_risk: { read: 1, write: 0, destructive: 3 }, on_for_my_agents: 0, off_by_owner: 0, off_by_me: 0 };
    const after = applyChanges(applyChanges(before, "ceiling", [{ operation: "a", enabled: false }]), "choice", [{ operation: "c", enabled: false }]);
    expect(countsOf(after, base)).toMatchObject({ total: 4, on_for_my_agents: 1, off_by_owner: 2, off_by_me: 1 });
  });
});

describe("areas and ranked results", () => {
  const areas = [
    { id: "x", label: "X", count: 2 },
    { id: "y", label: "Y", count: 2 },
  ];
  const ops = [op("a", "x"), op("b", "x"), op("c", "y"), op("d", "y", { risk: "read" })];

  it("shows every area's heading with its count, and the operations of open areas only", () => {
    const rows = groupedRows(areas, ops, new Set(["y"]));
    expect(rows.map((r) => (r.type === "area" ? `#${r.area.id}:${r.shown}` : r.op.key))).toEqual(["#x:2", "#y:2", "c", "d"]);
  });

  it("puts ranked operations first, in rank order, then what the word filter adds", () => {
    expect(rankedOperations(ops, ["c", "a"], "", "all").map((o) => o.key)).toEqual(["c", "a", "b", "d"]);
    expect(rankedOperations(ops, ["d", "c"], "", "destructive").map((o) => o.key)).toEqual(["c", "a", "b"]);
  });
});
