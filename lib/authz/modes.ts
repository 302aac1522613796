// An operation's mode for agents — off, ask, on — at the owner's ceiling and in each person's choices. Stricter
// wins (off < ask < on): a person may tighten the ceiling, never loosen it. Read operations are on or off.
import type { OperationMode } from "@/db/schema";
import type { Risk } from "@/lib/realms/contract";

export type { OperationMode };

const order: Record<OperationMode, number> = { off: 0, ask: 1, on: 2 };

/** The stricter of two modes. */
export const stricter = (a: OperationMode, b: OperationMode): OperationMode => (order[a] <= order[b] ? a : b);

/** The ceiling's mode when the owner never set one: destructive operations start at the tenant's default. */
export const defaultCeilingMode = (risk: Risk, destructiveDefault: "ask" | "on"): OperationMode => (risk === "destructive" ? destructiveDefault : "on");

/** A mode as stored or as the caller asked: `enabled: true` means no narrowing (on), `false` means off. */
export const modeOf = (c: { mode?: OperationMode; enabled?: boolean }): OperationMode => c.mode ?? (c.enabled === false ? "off" : "on");

/** What agents acting for a person get: the ceiling (or its default) tightened by the person's choice. */
export function effectiveMode(ceiling: OperationMode | null, choice: OperationMode | null, risk: Risk, destructiveDefault: "ask" | "on"): OperationMode {
  const c = ceiling ?? defaultCeilingMode(risk, destructiveDefault);
  const m = stricter(c, choice ?? "on");
  // A read is on or off: there is no single call of a read worth a person's approval.
  return risk === "read" && m === "ask" ? "on" : m;
}
