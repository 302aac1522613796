// Companion operations: operations of a realm that go together (uploading a file and attaching it to a
// document). A manifest declares them in groups; a consent request for one of a group offers the others on the
// consent page, checked by default, and the person may uncheck them. (No import of the contract: it imports this.)
import { z } from "zod";

/** Each group: two or more distinct operation keys the realm offers (checked by manifestSchema), and why they go together. */
export const companionsSchema = z.array(z.strictObject({ operations: z.array(z.string()).min(2).max(20), why: z.string().min(1).max(300) })).max(50).default([]);
export type CompanionGroup = z.infer<typeof companionsSchema>[number];

/** What is wrong with a manifest's groups, given the operation keys it offers: one message each. */
export function companionProblems(groups: readonly CompanionGroup[], offered: ReadonlySet<string>): string[] {
  return groups.flatMap((g, i) => [
    ...(new Set(g.operations).size !== g.operations.length ? [`companion group ${i} names an operation twice`] : []),
    ...g.operations.filter((o) => !offered.has(o)).map((o) => `companion group ${i} names unknown operation ${o}`),
  ]);
}

/** The companions of a set of operations: every other operation of a group naming one of them, in declaration order. */
export function companionsOf(m: { companions?: readonly CompanionGroup[] }, operations: readonly string[]): string[] {
  const asked = new Set(operations);
  const out = new Set<string>();
  for (const g of m.companions ?? []) if (g.operations.some((o) => asked.has(o))) for (const o of g.operations) if (!asked.has(o)) out.add(o);
  return [...out];
}
