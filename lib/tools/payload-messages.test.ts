// What a refused field says to an agent: a pattern's meaning, never its regex.
import { describe, expect, it } from "vitest";
import { builtInRealms } from "@/lib/realms/registry";
import { errorOf, makeTenant } from "@/test-support";
import { dispatch } from "./dispatch";
import { checkKindSchema, validatePayload } from "./payload";

describe("what a refused field says", () => {
  it("a pattern says what it means, not its regex (kind schemas and action payloads alike)", async () => {
    const kind = builtInRealms.docs!.manifest.kinds.find((k) => k.name === "docs.document")!;
    const err = await errorOf(() => checkKindSchema(kind, "patch", { title: "Line one\nLine two" }, "fields"));
    expect(err.message).toBe("Invalid fields for docs.document: fields.title must be one line (no line breaks).");
    const send = builtInRealms.mail!.manifest.actions.find((a) => a.name === "send")!;
    const bad = await errorOf(() => validatePayload(send.payload_schema, { ...send.example, to: ["not an address"] }, "send"));
    expect(bad.message).toMatch(/to\.0 must be a plain email address such as dana@example\.com\.$/);
    expect(bad.message).not.toMatch(/pattern/);
    // Trimmed before it is checked: an address with spaces around it is the address.
    expect(() => validatePayload(send.payload_schema, { ...send.example, to: [" dana@example.com "] }, "send")).not.toThrow();
  });
});

describe("what a missing, unknown or out-of-range field says", () => {
  it("names the field once, says it is required, lists the known names and the allowed values", async () => {
    const t = await makeTenant();
    const unknown = await errorOf(dispatch(t.users.alice!, "list_objects", { kind: "board.card", filter: { color: "red" } }));
    expect(unknown.code).toBe("invalid_input");
    expect(unknown.message).toMatch(/^Invalid filter for board\.card: filter\.color is not known here \(known: [a-z_, ]*\bcolumn\b[a-z_, ]*\)\.$/);
    const missing = await errorOf(dispatch(t.users.alice!, "get_object", { kind: "board.card", selector: {} }));
    expect(missing.message).toBe("Invalid selector for board.card: selector.title is required.");
    const move = builtInRealms.board!.manifest.actions.find((a) => a.name === "move_card")!;
    expect((await errorOf(() => validatePayload(move.payload_schema, {}, "board move_card"))).message).toBe("Invalid payload for board move_card: column is required.");
    const schema = { type: "object", properties: { size: { enum: ["s", "m"] } } };
    expect((await errorOf(() => validatePayload(schema, { size: "xl" }, "t"))).message).toBe('Invalid payload for t: size must be one of "s", "m".');
  });
});

describe("object_schema given two ways at once", () => {
  it("says which it was given and to ask once for each", async () => {
    const t = await makeTenant();
    const err = await errorOf(dispatch(t.users.alice!, "object_schema", { namespace: "docs", kind: "docs.document", operation: "object.upsert" }));
    expect(err).toMatchObject({ code: "invalid_input", details: { given: ["kind", "operation"] } });
    expect(err.message).toBe("Give at most one of schema_path, query, kind or operation (this call gave kind and operation); call object_schema once for each.");
  });
});
