// Which values of a presented call the consent and approval pages show as a date and time (components/ui/time.tsx),
// tested here because vitest runs app/ and lib/ tests.
import { describe, expect, it } from "vitest";
import { isInstant } from "@/components/ui/time";

describe("a presented call's instants", () => {
  it("knows a whole-value instant with its zone (shown as a date and time), and leaves anything else as written", () => {
    for (const v of ["2026-12-10T16:00:00Z", "2026-12-10T16:00Z", "2026-12-10T16:00:00.123+01:00"]) expect(isInstant(v), v).toBe(true);
    for (const v of ["2026-12-10", "2026-12-10T16:00:00", "Due 2026-12-10T16:00:00Z", "2026-13-45T99:00:00Z", "soon"]) expect(isInstant(v), v).toBe(false);
  });
});
