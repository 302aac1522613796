// Prefixed, random identifiers: `usr_…`, `tnt_…`, `key_…`. The platform's prefixes are a closed list, so each of
// its kinds of id is known here; a native realm declares its own with its refs (lib/realms/native/refs.ts).
import { randomBytes } from "node:crypto";

export const idPrefixes = [
  "tnt", "usr", "mbr", "key", "act", "tok", "grt", "ccr", "acc", "evt", "req", "fil", "idm", "imp", "oas", "cli", "cod", "rft", "cfl", "ses", "apr", "rrp", "rrt",
] as const;
export type IdPrefix = (typeof idPrefixes)[number];

const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";

/** 20 base-36 characters ≈ 103 bits of randomness. */
export function newId(prefix: IdPrefix): string {
  return randomId(prefix);
}

/** An id with a realm's own prefix (2–5 lowercase letters, declared with the realm's refs). */
export function newRealmId(prefix: string): string {
  if (!/^[a-z]{2,5}$/.test(prefix)) throw new Error(`An id prefix is 2–5 lowercase letters, not "${prefix}".`);
  return randomId(prefix);
}

function randomId(prefix: string): string {
  const bytes = randomBytes(20);
  let out = "";
  for (const b of bytes) out += alphabet[b % 36];
  return `${prefix}_${out}`;
}
