// The audit keys in use. MAC keys from REALMGATE_AUDIT_KEYS (first = current); the checkpoint signing key from
// REALMGATE_AUDIT_SIGNING_KEY. Unset, each is a development key derived from AUTH_SECRET (HKDF, like the vault's
// and lib/delivery/keys.ts): fine for `npm run dev`, to be set in production. The development keys keep
// verifying (never making) what was written before real keys were configured. Keys live only in this process:
// the database stores key ids, never keys.
import { createHash, createPrivateKey, hkdfSync, type KeyObject } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { env, type Env } from "@/lib/env";
import { parseAuditKeys, parseSigningKey, signingKeyOf, type AuditMacKey, type SigningKey } from "./key-format";

export type AuditKeyring = { current: AuditMacKey; byKid: Map<string, AuditMacKey>; source: "env" | "auth_secret" };
/** The signing key, and every public key a checkpoint may be verified with (by kid). */
export type AuditSigner = { current: SigningKey; verifiers: Map<string, KeyObject>; source: "env" | "auth_secret" };

type KeySource = { [name: string]: unknown; REALMGATE_AUDIT_KEYS?: string; REALMGATE_AUDIT_SIGNING_KEY?: string; AUTH_SECRET?: string };

const derive = (secret: string, purpose: string) => Buffer.from(hkdfSync("sha256", secret, "realmgate", `realmgate/${purpose}/v1`, 32));

function devMacKey(secret: string): AuditMacKey {
  const key = derive(secret, "audit-mac-dev");
  return { kid: `dev-${createHash("sha256").update(key).digest("hex").slice(0, 8)}`, key };
}

function devSigningKey(secret: string): SigningKey {
  const seed = derive(secret, "audit-signing-dev");
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  return signingKeyOf(createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }));
}

const usable = (secret: string | undefined): secret is string => typeof secret === "string" && secret.length >= 32;

/** A keyring from explicit settings (the offline verifier passes process.env; the server its configuration). */
export function auditKeyringFrom(src: KeySource): AuditKeyring {
  const dev = usable(src.AUTH_SECRET) ? devMacKey(src.AUTH_SECRET) : null;
  if (src.REALMGATE_AUDIT_KEYS?.trim()) {
    const keys = parseAuditKeys(src.REALMGATE_AUDIT_KEYS);
    const all = dev && !keys.some((k) => k.kid === dev.kid) ? [...keys, dev] : keys;
    return { current: keys[0]!, byKid: new Map(all.map((k) => [k.kid, k])), source: "env" };
  }
  if (!dev) throw new Error("REALMGATE_AUDIT_KEYS is not set and there is no AUTH_SECRET to derive a development key from");
  return { current: dev, byKid: new Map([[dev.kid, dev]]), source: "auth_secret" };
}

export function auditSignerFrom(src: KeySource): AuditSigner {
  const dev = usable(src.AUTH_SECRET) ? devSigningKey(src.AUTH_SECRET) : null;
  const configured = src.REALMGATE_AUDIT_SIGNING_KEY?.trim() ? parseSigningKey(src.REALMGATE_AUDIT_SIGNING_KEY) : null;
  const current = configured ?? dev;
  if (!current) throw new Error("REALMGATE_AUDIT_SIGNING_KEY is not set and there is no AUTH_SECRET to derive a development key from");
  const verifiers = new Map<string, KeyObject>([[current.kid, current.publicKey]]);
  if (dev) verifiers.set(dev.kid, dev.publicKey);
  return { current, verifiers, source: configured ? "env" : "auth_secret" };
}

const rings = new WeakMap<Env, AuditKeyring>();
const signers = new WeakMap<Env, AuditSigner>();

/** The process's audit MAC keys, from the current configuration. */
export function auditKeyring(): AuditKeyring {
  const cfg = env();
  let ring = rings.get(cfg);
  if (!ring) rings.set(cfg, (ring = auditKeyringFrom(cfg)));
  return ring;
}

/** The process's checkpoint signing key, from the current configuration. */
export function auditSigner(): AuditSigner {
  const cfg = env();
  let signer = signers.get(cfg);
  if (!signer) signers.set(cfg, (signer = auditSignerFrom(cfg)));
  return signer;
}

type DirSource = { [name: string]: unknown; REALMGATE_AUDIT_DIGEST_DIR?: string; REALMGATE_DATA_DIR?: string };

/**
 * The digest store (outside the database): REALMGATE_AUDIT_DIGEST_DIR, else `<data dir>/audit-digests`; with a
 * throwaway database (`REALMGATE_DATA_DIR=:memory:`) a throwaway directory under the system's temp directory.
 */
export function auditDigestDirFrom(src: DirSource): string {
  const dir = src.REALMGATE_AUDIT_DIGEST_DIR?.trim();
  // Runtime paths chosen by the operator: not files to bundle (turbopackIgnore keeps the build from tracing them).
  if (dir) return path.resolve(/*turbopackIgnore: true*/ dir);
  const data = src.REALMGATE_DATA_DIR ?? ".data";
  if (data === ":memory:") return path.join(os.tmpdir(), `realmgate-audit-digests-${process.pid}`);
  return path.join(path.resolve(/*turbopackIgnore: true*/ data), "audit-digests");
}

export const auditDigestDir = (): string => auditDigestDirFrom(env());
