// Prefixed, random identifiers: `usr_…`, `tnt_…`, `key_…` — a closed list, so every kind of id is known here.
import { randomBytes } from "node:crypto";

export const idPrefixes = [
  "tnt", "usr", "mbr", "key", "act", "tok", "grt", "ccr", "acc", "evt", "req", "mem", "doc", "tab", "thr", "cmt", "brd", "col", "crd", "fil", "idm", "imp", "oas", "cli", "cod", "rft", "cfl", "ses",
] as const;
export type IdPrefix = (typeof idPrefixes)[number];

const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";

/** 20 base-36 characters ≈ 103 bits of randomness. */
export function newId(prefix: IdPrefix): string {
  const bytes = randomBytes(20);
  let out = "";
  for (const b of bytes) out += alphabet[b % 36];
  return `${prefix}_${out}`;
}
