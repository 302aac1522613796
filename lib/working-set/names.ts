// Exact tool names that clients accept: `^[a-zA-Z0-9_-]{1,48}$` (so a client's own prefix, such as
// `mcp__server__`, still fits in 64), derived deterministically from the namespace and the action: every other
// character becomes `_`; where two actions of a realm would share a name, where a name would be longer than 48,
// or where it would equal one of the nine generic tools, a short stable hash of namespace and action is appended.
import { createHash } from "node:crypto";
import type { RealmManifest } from "@/lib/realms/contract";

export const EXACT_TOOL_NAME = /^[a-zA-Z0-9_-]{1,48}$/;
export const EXACT_TOOL_NAME_MAX = 48;

/** The nine generic tools' names (lib/tools/defs): an exact tool never takes one. Held equal by names.test.ts. */
export const GENERIC_TOOL_NAMES: ReadonlySet<string> = new Set([
  "provider_about",
  "object_schema",
  "list_objects",
  "search_objects",
  "get_object",
  "object_action",
  "upsert_object",
  "host_file",
  "delete_object",
]);

const HASH_CHARS = 7;

const plain = (namespace: string, action: string) => `${namespace}_${action}`.replace(/[^a-zA-Z0-9_-]/g, "_");

/** The hashed form: the plain name cut to fit, `_`, and 7 hex characters of SHA-256 over namespace and action. */
export function hashedToolName(namespace: string, action: string, chars = HASH_CHARS): string {
  const hash = createHash("sha256").update(`${namespace}\u0000${action}`).digest("hex").slice(0, chars);
  return `${plain(namespace, action).slice(0, EXACT_TOOL_NAME_MAX - chars - 1)}_${hash}`;
}

const byManifest = new WeakMap<RealmManifest, Map<string, string>>();

/** Every action's exact tool name in a realm (action name → tool name), computed once per manifest. */
export function exactToolNames(m: RealmManifest): Map<string, string> {
  const known = byManifest.get(m);
  if (known) return known;
  const counts = new Map<string, number>();
  for (const a of m.actions) {
    const p = plain(m.namespace, a.name);
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  const names = new Map<string, string>();
  const hashed: string[] = [];
  for (const a of m.actions) {
    const p = plain(m.namespace, a.name);
    const clash = (counts.get(p) ?? 0) > 1 || p.length > EXACT_TOOL_NAME_MAX || GENERIC_TOOL_NAMES.has(p);
    if (clash) hashed.push(a.name);
    else names.set(a.name, p);
  }
  // A hashed name may equal another action's plain name (an operationId written to look like one): then a longer hash.
  const taken = new Set(names.values());
  for (const action of hashed) {
    let chars = HASH_CHARS;
    let name = hashedToolName(m.namespace, action, chars);
    while (taken.has(name) && chars < 24) name = hashedToolName(m.namespace, action, (chars += 4));
    taken.add(name);
    names.set(action, name);
  }
  byManifest.set(m, names);
  return names;
}

/** One action's exact tool name in its realm. */
export function exactToolName(m: RealmManifest, action: string): string {
  return exactToolNames(m).get(action) ?? hashedToolName(m.namespace, action);
}
