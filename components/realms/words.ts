// Human words for operation keys (pure helpers, usable on the server and in the browser).
import type { Risk } from "@/lib/realms/contract";
import type { OperationWords } from "@/lib/views/realms";

export type Words = Record<string, OperationWords>;

export function wordsFor(words: Words, namespace: string, operation: string): { label: string; risk: Risk | null } {
  const w = words[namespace]?.operations[operation];
  if (w) return w;
  if (operation === "object.action.*") return { label: "Every action", risk: "destructive" };
  return { label: operation, risk: null };
}

export const realmTitle = (words: Words, namespace: string) => words[namespace]?.title ?? namespace;
