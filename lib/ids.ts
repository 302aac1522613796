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

// Random bytes are drawn from the CSPRNG in blocks and handed out 20 at a time: one `randomBytes` call per 128 ids
// instead of one per id (a tool call makes two or more ids, and the call was measurable in its CPU profile). The
// bytes are used once each and never leave this module.
const ID_BYTES = 20;
const POOL_BYTES = ID_BYTES * 128;
let pool = Buffer.alloc(0);
let offset = 0;

function randomId(prefix: string): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  let out = "";
  for (let i = offset; i < offset + ID_BYTES; i++) out += alphabet[pool[i]! % 36];
  offset += ID_BYTES;
  return `${prefix}_${out}`;
}
