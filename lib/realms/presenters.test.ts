// The presenters' shared pieces: before → after, bounds, and the generic lines; and mail's send, which reads nothing.
import { describe, expect, it } from "vitest";
import type { RealmContext } from "./contract";
import { presentRequest as presentMail } from "./mail/presenter";
import { changeLines, cut, genericPresentation, MAX_LINES, MAX_VALUE_CHARS } from "./presenters";

describe("presenters", () => {

  it("a patch reads before → after, an unchanged field says so, and a create lists only what it sets", () => {
    expect(changeLines({ title: "Q4 planning", status: "draft" }, { title: "Q3 planning", status: "draft", owner: "alice" })).toEqual([
      { label: "Title", value: "Q3 planning → Q4 planning" },
      { label: "Status", value: "draft (unchanged)" },
    ]);
    expect(changeLines({ title: "New" }, null)).toEqual([{ label: "Title", value: "New" }]);
  });

  it("bounds what it shows: long values cut, many fields capped, file bytes not spelled out, the idempotency key left out", () => {
    const fields = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field_${i}`, "y".repeat(1000)]));
    const shown = genericPresentation("Change", { kind: "x.y", fields, idempotency_key: "k-123" });
    expect(shown.lines).toHaveLength(MAX_LINES + 1);
    expect(shown.lines[0]!.value.length).toBe(MAX_VALUE_CHARS);
    expect(shown.lines.at(-1)).toEqual({ label: "More", value: "10 more not shown" });
    expect(JSON.stringify(genericPresentation("Upload", { name: "a.txt", content_base64: "QUJD" }))).not.toContain("QUJD");
    expect(JSON.stringify(shown)).not.toContain("k-123");
    expect([...cut("😀".repeat(500), 10)]).toHaveLength(10);
  });

  it("names refs it was given names for, and keeps markup as plain text", async () => {
    const shown = genericPresentation("Comment", { ref: "docs:thread:thr_1", payload: { body: "<script>x</script>" } }, { "docs:thread:thr_1": "“Ship it”" });
    expect(shown.lines).toEqual([
      { label: "On", value: "“Ship it”" },
      { label: "Body", value: "<script>x</script>" },
    ]);
  });

  it("mail send shows recipients, subject and the start of the body", async () => {
    const shown = await presentMail({} as RealmContext, {
      operation: "object.action.send",
      ref: null,
      input: { namespace: "mail", action: "send", payload: { to: ["dana@example.com", "lee@example.com"], cc: ["ops@example.com"], subject: "Offsite", body: "z".repeat(5000) } },
    });
    const lines = Object.fromEntries(shown!.lines.map((l) => [l.label, l.value]));
    expect(shown!.title).toBe("Send an email");
    expect(lines).toMatchObject({ To: "dana@example.com, lee@example.com", Cc: "ops@example.com", Subject: "Offsite" });
    expect(lines.Message!.length).toBeLessThan(1000);
    expect(lines.Bcc).toBeUndefined();
  });
});
