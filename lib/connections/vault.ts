// The token vault: provider tokens sealed with AES-256-GCM. Each record carries the id of the key that
// sealed it; the associated data binds the record to its tenant, user and account, so a ciphertext copied
// to another row does not open. Keys come from REALMGATE_VAULT_KEYS (first = current); without it a
// development key is derived from AUTH_SECRET (docs/connections.md says so).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { deriveKey } from "@/lib/delivery/keys";
import { env, type Env } from "@/lib/env";

export type VaultKey = { kid: string; key: Buffer };
export type Keyring = { current: VaultKey; byKid: Map<string, VaultKey>; source: "env" | "auth_secret" };
/** What a sealed record belongs to: it opens only for exactly this row. */
export type SealBinding = { tenantId: string; userId: string; accountId: string };
export type Sealed = { kid: string; data: string };

/** A vault failure: bad configuration, an unknown key id, or a record that does not open. Never carries secrets. */
export class VaultError extends Error {
  constructor(
    readonly reason: "config" | "unknown_key" | "unreadable",
    message: string,
  ) {
    super(message);
    this.name = "VaultError";
  }
}

const FORMAT = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `kid1:base64key,kid2:base64key` → keys, first = current. Every key is 32 bytes; kids are unique. */
export function parseVaultKeys(value: string): VaultKey[] {
  const keys: VaultKey[] = [];
  for (const [i, part] of value.split(",").map((s) => s.trim()).filter(Boolean).entries()) {
    const sep = part.indexOf(":");
    const kid = sep > 0 ? part.slice(0, sep) : "";
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(kid)) {
      throw new VaultError("config", `REALMGATE_VAULT_KEYS entry ${i + 1} needs a key id (1–32 of A-Z a-z 0-9 _ -) before ":"`);
    }
    const b64 = part.slice(sep + 1);
    const key = Buffer.from(b64, "base64");
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64) || key.length !== 32) {
      throw new VaultError("config", `REALMGATE_VAULT_KEYS key "${kid}" must be 32 bytes in base64 (try: openssl rand -base64 32)`);
    }
    if (keys.some((k) => k.kid === kid)) throw new VaultError("config", `REALMGATE_VAULT_KEYS names key "${kid}" twice`);
    keys.push({ kid, key });
  }
  if (keys.length === 0) throw new VaultError("config", "REALMGATE_VAULT_KEYS is set but names no key");
  return keys;
}

export function keyringFrom(keys: VaultKey[], source: Keyring["source"]): Keyring {
  return { current: keys[0]!, byKid: new Map(keys.map((k) => [k.kid, k])), source };
}

/** The development key: HKDF of AUTH_SECRET; its id names a digest of the key, so a changed secret is noticed. */
function devKey(): VaultKey {
  const key = deriveKey("vault-dev");
  return { kid: `dev-${createHash("sha256").update(key).digest("hex").slice(0, 8)}`, key };
}

const rings = new WeakMap<Env, Keyring>();

/** The process's keyring, from the current configuration. */
export function keyring(): Keyring {
  const cfg = env();
  let ring = rings.get(cfg);
  if (!ring) {
    if (cfg.REALMGATE_VAULT_KEYS) {
      // The development key still opens (never seals) what was stored before real keys were configured,
      // so `npm run vault:rotate` can move those records onto the real key.
      const keys = parseVaultKeys(cfg.REALMGATE_VAULT_KEYS);
      const dev = devKey();
      ring = keyringFrom(keys.some((k) => k.kid === dev.kid) ? keys : [...keys, dev], "env");
    } else ring = keyringFrom([devKey()], "auth_secret");
    rings.set(cfg, ring);
  }
  return ring;
}

function aad(kid: string, b: SealBinding): Buffer {
  return Buffer.from(["realmgate-vault", FORMAT, kid, b.tenantId, b.userId, b.accountId].join("\u0000"), "utf8");
}

export function seal(plaintext: string, binding: SealBinding, ring: Keyring = keyring()): Sealed {
  const { kid, key } = ring.current;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(aad(kid, binding));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return { kid, data: `${FORMAT}.${Buffer.concat([iv, ct, cipher.getAuthTag()]).toString("base64url")}` };
}

export function unseal(sealed: Sealed, binding: SealBinding, ring: Keyring = keyring()): string {
  const k = ring.byKid.get(sealed.kid);
  if (!k) throw new VaultError("unknown_key", `The vault key "${sealed.kid}" that sealed this record is not configured.`);
  const [format, body] = sealed.data.split(".", 2);
  const raw = Buffer.from(body ?? "", "base64url");
  if (format !== FORMAT || raw.length < IV_BYTES + TAG_BYTES) throw new VaultError("unreadable", "The sealed record is malformed.");
  try {
    const decipher = createDecipheriv("aes-256-gcm", k.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(aad(sealed.kid, binding));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    // GCM authentication failed: wrong key, tampered bytes, or a record bound to another row.
    throw new VaultError("unreadable", "The sealed record does not open for this account.");
  }
}

/** Re-seal a record under the current key (rotation); a record already under it is returned as is. */
export function rewrap(sealed: Sealed, binding: SealBinding, ring: Keyring = keyring()): { sealed: Sealed; changed: boolean } {
  if (sealed.kid === ring.current.kid) {
    unseal(sealed, binding, ring);
    return { sealed, changed: false };
  }
  return { sealed: seal(unseal(sealed, binding, ring), binding, ring), changed: true };
}
