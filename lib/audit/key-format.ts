// The formats of the audit keys, with no dependency on the configuration (lib/env.ts validates with these at
// start-up; the offline verifier parses with them without a server configuration):
//   REALMGATE_AUDIT_KEYS         `kid:base64key,…` — 32-byte HMAC keys; the first MACs new records, all verify.
//   REALMGATE_AUDIT_SIGNING_KEY  the Ed25519 checkpoint signing key: a base64 32-byte seed
//                                (`openssl rand -base64 32`) or a base64 / PEM PKCS#8 private key.
// Problems are one line, never containing key material.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";

export type AuditMacKey = { kid: string; key: Buffer };
export type SigningKey = { kid: string; privateKey: KeyObject; publicKey: KeyObject };

const B64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
// PKCS#8 and SPKI DER prefixes for a raw Ed25519 seed / public key (RFC 8410).
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

/** Why `value` is not a valid REALMGATE_AUDIT_KEYS (without the variable's name), or null. */
export function auditKeysProblem(value: string): string | null {
  try {
    parseKeys(value);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** `kid1:base64key,kid2:base64key` → keys, first = current. Throws with the variable named. */
export function parseAuditKeys(value: string): AuditMacKey[] {
  try {
    return parseKeys(value);
  } catch (err) {
    throw new Error(`REALMGATE_AUDIT_KEYS ${(err as Error).message}`);
  }
}

function parseKeys(value: string): AuditMacKey[] {
  const keys: AuditMacKey[] = [];
  for (const [i, part] of value.split(",").map((s) => s.trim()).filter(Boolean).entries()) {
    const sep = part.indexOf(":");
    const kid = sep > 0 ? part.slice(0, sep) : "";
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(kid)) throw new Error(`entry ${i + 1} needs a key id (1–32 of A-Z a-z 0-9 _ -) before ":"`);
    const b64 = part.slice(sep + 1);
    const key = Buffer.from(b64, "base64");
    if (!B64.test(b64) || key.length !== 32) throw new Error(`key "${kid}" must be 32 bytes in base64 (try: openssl rand -base64 32)`);
    if (keys.some((k) => k.kid === kid)) throw new Error(`names key "${kid}" twice`);
    keys.push({ kid, key });
  }
  if (keys.length === 0) throw new Error("is set but names no key");
  return keys;
}

/** Why `value` is not a valid REALMGATE_AUDIT_SIGNING_KEY (without the variable's name), or null. */
export function signingKeyProblem(value: string): string | null {
  try {
    parseSigning(value);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

export function parseSigningKey(value: string): SigningKey {
  try {
    return parseSigning(value);
  } catch (err) {
    throw new Error(`REALMGATE_AUDIT_SIGNING_KEY ${(err as Error).message}`);
  }
}

const mustBe = "must be an Ed25519 key: a base64 32-byte seed (try: openssl rand -base64 32) or a base64 PKCS#8 private key";

function parseSigning(value: string): SigningKey {
  const v = value.trim();
  let privateKey: KeyObject;
  if (v.startsWith("-----BEGIN")) {
    privateKey = tryKey(() => createPrivateKey({ key: v, format: "pem" }));
  } else {
    const raw = Buffer.from(v, "base64");
    if (!B64.test(v) || raw.length === 0) throw new Error(mustBe);
    privateKey =
      raw.length === 32
        ? tryKey(() => createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, raw]), format: "der", type: "pkcs8" }))
        : tryKey(() => createPrivateKey({ key: raw, format: "der", type: "pkcs8" }));
  }
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error(mustBe);
  return signingKeyOf(privateKey);
}

function tryKey(make: () => KeyObject): KeyObject {
  try {
    return make();
  } catch {
    throw new Error(mustBe);
  }
}

export function signingKeyOf(privateKey: KeyObject): SigningKey {
  const publicKey = createPublicKey(privateKey);
  return { kid: signingKid(publicKey), privateKey, publicKey };
}

/** The 32 raw bytes of an Ed25519 public key, base64: what `npm run audit:verify -- --public-key` takes. */
export const rawPublicKey = (publicKey: KeyObject): string => publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("base64");

/** A checkpoint names its signer by a digest of the public key, so a verifier knows which key to use. */
export const signingKid = (publicKey: KeyObject): string =>
  `ed25519-${createHash("sha256").update(publicKey.export({ format: "der", type: "spki" }).subarray(-32)).digest("hex").slice(0, 16)}`;

/** A public key given as base64 (32 raw bytes or SPKI DER) or PEM. Throws a one-line error. */
export function parsePublicKey(value: string): KeyObject {
  const v = value.trim();
  let key: KeyObject;
  try {
    if (v.startsWith("-----BEGIN")) key = createPublicKey({ key: v, format: "pem" });
    else {
      const raw = Buffer.from(v, "base64");
      key = createPublicKey({ key: raw.length === 32 ? Buffer.concat([SPKI_ED25519, raw]) : raw, format: "der", type: "spki" });
    }
  } catch {
    throw new Error("the public key must be an Ed25519 public key: 32 bytes in base64, or SPKI (base64 DER or PEM)");
  }
  if (key.asymmetricKeyType !== "ed25519") throw new Error("the public key must be an Ed25519 public key");
  return key;
}
