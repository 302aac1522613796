import { describe, expect, it } from "vitest";
import { safeReturnPath } from "./return-to";

describe("safeReturnPath", () => {
  it.each([
    ["/agents?x=1", "/agents?x=1"],
    ["https://evil.test/", "/"],
    ["//evil.test/", "/"],
    ["/\\evil.test", "/"],
    ["javascript:alert(1)", "/"],
    ["/ok\nSet-Cookie: x", "/"],
    [undefined, "/"],
  ])("%j → %s", (input, out) => expect(safeReturnPath(input)).toBe(out));
});
