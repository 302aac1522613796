// The realm page's pieces that decide what a person sees: descriptions rendered safely, the modes a person may
// pick (stricter than the owner, never looser), undo and rollback that put exactly the changed operations back,
// the card's counts and asking names from the controls, areas as rows.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DescriptionMarkdown } from "@/components/realms/markdown";
import { allowed, applyChanges, blocked, countsOf, groupedRows, previousOf, rankedOperations, shownOf } from "@/components/realms/operation-changes";
import { askingWords } from "@/components/realms/realm-card";
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

const op = (key: string, area: string, o: Partial<OperationView> = {}): OperationView => {
  const base: OperationView = {
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
    ceiling_mode: "on",
    choice_mode: "on",
    mode: "on",
  };
  // Built through applyChanges so the booleans and the effective mode agree with the modes given.
  const withRisk = { ...base, ...o, ceiling_mode: "on" as const, choice_mode: "on" as const };
  const ceiling = applyChanges([withRisk], "ceiling", [{ operation: key, mode: o.ceiling_mode ?? "on" }]);
  return applyChanges(ceiling, "choice", [{ operation: key, mode: o.choice_mode ?? "on" }])[0]!;
};

describe("modes: off, ask, on", () => {
  it("what agents get is the stricter of the owner's mode and the person's own, and a read never asks", () => {
    expect(op("a", "x", { ceiling_mode: "ask" })).toMatchObject({ mode: "ask", effective: true, ceiling: true });
    expect(op("a", "x", { ceiling_mode: "ask", choice_mode: "on" }).mode).toBe("ask");
    expect(op("a", "x", { ceiling_mode: "on", choice_mode: "ask" }).mode).toBe("ask");
    expect(op("a", "x", { ceiling_mode: "ask", choice_mode: "off" })).toMatchObject({ mode: "off", effective: false, choice: false });
    expect(op("r", "x", { risk: "read", ceiling_mode: "ask" }).mode).toBe("on");
  });

  it("a person may tighten the owner's mode, never loosen it; reads are on or off", () => {
    const asked = op("a", "x", { ceiling_mode: "ask" });
    expect((["off", "ask", "on"] as const).filter((m) => allowed(asked, "choice", m))).toEqual(["off", "ask"]);
    expect((["off", "ask", "on"] as const).filter((m) => allowed(asked, "ceiling", m))).toEqual(["off", "ask", "on"]);
    expect(blocked(op("a", "x", { ceiling_mode: "off" }), "choice")).toBe(true);
    expect(allowed(op("r", "x", { risk: "read" }), "ceiling", "ask")).toBe(false);
    // The control in "my agents" shows what the agents get: the owner's ask, though the person's own says on.
    expect(shownOf(asked, "choice")).toBe("ask");
    expect(shownOf(asked, "ceiling")).toBe("ask");
  });
});

describe("bulk changes and undo", () => {
  // Some already off or asking before the bulk change: undo must put those back as they were, not turn them on.
  const before = [op("a", "x"), op("b", "x", { ceiling_mode: "off" }), op("c", "y", { ceiling_mode: "ask" }), op("d", "y", { risk: "read" })];

  it("undo restores exactly the previous modes of the operations a bulk change touched", () => {
    const bulk = before.filter((o) => o.risk === "destructive").map((o) => ({ operation: o.key, mode: "off" as const }));
    const undo = previousOf(before, "ceiling", bulk);
    const after = applyChanges(before, "ceiling", bulk);
    expect(after.filter((o) => o.risk === "destructive").every((o) => o.ceiling_mode === "off" && !o.ceiling)).toBe(true);
    expect(applyChanges(after, "ceiling", undo)).toEqual(before);
    expect(undo).toEqual([
      { operation: "a", mode: "on" },
      { operation: "b", mode: "off" },
      { operation: "c", mode: "ask" },
    ]);
  });

  it("undo of the person's own changes puts back what they saved, not what the owner's mode made of it", () => {
    const ask = applyChanges(before, "choice", [{ operation: "c", mode: "off" }]);
    expect(ask.find((o) => (o.key as string) === "c")).toMatchObject({ mode: "off", choice_mode: "off" });
    expect(previousOf(before, "choice", [{ operation: "c", mode: "off" }])).toEqual([{ operation: "c", mode: "on" }]);
    expect(applyChanges(ask, "choice", [{ operation: "c", mode: "on" }]).find((o) => (o.key as string) === "c")?.mode).toBe("ask");
  });

  it("the card's counts follow the controls, naming what asks", () => {
    const base: RealmCardView["operations"] = {
      total: 4,
      describing: 0,
      by_risk: { read: 1, write: 0, destructive: 3 },
      on_for_my_agents: 0,
      ask_for_my_agents: 0,
      off_by_owner: 0,
      off_by_me: 0,
      asking: [],
    };
    const after = applyChanges(applyChanges(before, "ceiling", [{ operation: "a", mode: "ask" }]), "choice", [{ operation: "d", mode: "off" }]);
    expect(countsOf(after, base)).toMatchObject({ total: 4, on_for_my_agents: 0, ask_for_my_agents: 2, asking: ["a", "c"], off_by_owner: 1, off_by_me: 1 });
  });

  it("the card names at most three operations that ask, then how many more", () => {
    expect(askingWords({ ask_for_my_agents: 0, asking: [] })).toBeNull();
    expect(askingWords({ ask_for_my_agents: 1, asking: ["Send an email"] })).toBe("1 asks each time: Send an email");
    expect(askingWords({ ask_for_my_agents: 3, asking: ["Send an email", "Reply to an email", "Delete a document"] })).toBe(
      "3 ask each time: Send an email, Reply to an email, Delete a document",
    );
    expect(askingWords({ ask_for_my_agents: 5, asking: ["A", "B", "C"] })).toBe("5 ask each time: A, B, C and 2 more");
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
