import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { reloadEnv } from "@/lib/env";
import { keyring, keyringFrom, parseVaultKeys, rewrap, seal, unseal, VaultError } from "./vault";

const key = () => randomBytes(32).toString("base64");
const alice = { tenantId: "tnt_a", userId: "usr_alice", accountId: "acc_1" };

describe("the token vault", () => {
  it("seals and opens a token set, recording the key id beside the ciphertext", () => {
    const ring = keyringFrom(parseVaultKeys(`k2:${key()},k1:${key()}`), "env");
    const sealed = seal('{"access_token":"ya29.secret"}', alice, ring);
    expect(sealed.kid).toBe("k2");
    expect(sealed.data).not.toContain("ya29");
    expect(unseal(sealed, alice, ring)).toBe('{"access_token":"ya29.secret"}');
  });

  it.each([
    ["another account", { ...alice, accountId: "acc_2" }],
    ["another user", { ...alice, userId: "usr_bob" }],
    ["another tenant", { ...alice, tenantId: "tnt_b" }],
  ])("does not open a ciphertext moved to %s", (_what, other) => {
    const ring = keyringFrom(parseVaultKeys(`k1:${key()}`), "env");
    const sealed = seal("secret", alice, ring);
    expect(() => unseal(sealed, other, ring)).toThrow(VaultError);
  });

  it("refuses tampered bytes and a relabelled key id", () => {
    const ring = keyringFrom(parseVaultKeys(`k1:${key()},k0:${key()}`), "env");
    const sealed = seal("secret", alice, ring);
    const bytes = Buffer.from(sealed.data.slice(3), "base64url");
    bytes[14]! ^= 1;
    expect(() => unseal({ kid: "k1", data: `v1.${bytes.toString("base64url")}` }, alice, ring)).toThrow(/does not open/);
    expect(() => unseal({ kid: "k0", data: sealed.data }, alice, ring)).toThrow(VaultError);
    expect(() => unseal({ kid: "gone", data: sealed.data }, alice, ring)).toThrow(/not configured/);
  });

  it("rewraps old records under the current key and leaves current ones alone", () => {
    const oldKey = `old:${key()}`;
    const before = keyringFrom(parseVaultKeys(oldKey), "env");
    const after = keyringFrom(parseVaultKeys(`new:${key()},${oldKey}`), "env");
    const sealed = seal("secret", alice, before);
    const moved = rewrap(sealed, alice, after);
    expect(moved.changed).toBe(true);
    expect(moved.sealed.kid).toBe("new");
    expect(unseal(moved.sealed, alice, keyringFrom(parseVaultKeys(`new:${after.current.key.toString("base64")}`), "env"))).toBe("secret");
    expect(rewrap(moved.sealed, alice, after).changed).toBe(false);
  });

  it.each([
    ["", /names no key/],
    ["nokid", /needs a key id/],
    [`k1:${randomBytes(16).toString("base64")}`, /32 bytes/],
    [`k1:not base64!`, /32 bytes/],
    [`k1:${key()},k1:${key()}`, /twice/],
  ])("refuses REALMGATE_VAULT_KEYS=%j", (value, message) => {
    expect(() => parseVaultKeys(value)).toThrow(message);
  });

  it("derives a development key from AUTH_SECRET when no keys are configured", () => {
    const ring = keyring();
    expect(ring.source).toBe("auth_secret");
    expect(ring.current.kid).toMatch(/^dev-[0-9a-f]{8}$/);
    expect(unseal(seal("x", alice), alice)).toBe("x");
  });

  it("with real keys configured, seals under the first and still opens development-key records", () => {
    const devSealed = seal("from before", alice);
    const before = process.env.REALMGATE_VAULT_KEYS;
    process.env.REALMGATE_VAULT_KEYS = `prod1:${key()}`;
    reloadEnv();
    try {
      const ring = keyring();
      expect(ring.source).toBe("env");
      expect(ring.current.kid).toBe("prod1");
      expect(unseal(devSealed, alice)).toBe("from before");
      expect(rewrap(devSealed, alice).sealed.kid).toBe("prod1");
    } finally {
      if (before === undefined) delete process.env.REALMGATE_VAULT_KEYS;
      else process.env.REALMGATE_VAULT_KEYS = before;
      reloadEnv();
    }
  });
});
