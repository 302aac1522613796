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

describe("object_schema given two ways at once", () => {
  it("says which it was given and to ask once for each", async () => {
    const t = await makeTenant();
    const err = await errorOf(dispatch(t.users.alice!, "object_schema", { namespace: "docs", kind: "docs.document", operation: "object.upsert" }));
    expect(err).toMatchObject({ code: "invalid_input", details: { given: ["kind", "operation"] } });
    expect(err.message).toBe("Give at most one of schema_path, query, kind or operation (this call gave kind and operation); call object_schema once for each.");
  });
});
