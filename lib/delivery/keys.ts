// Purpose-bound keys derived from AUTH_SECRET (HKDF-SHA256): a cursor key can never sign a URL.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { env } from "@/lib/env";

const cache = new Map<string, Buffer>();

export function deriveKey(purpose: "cursor" | "signed-url" | "mcp-token" | "oauth-state" | "vault-dev"): Buffer {
  const secret = env().AUTH_SECRET;
  const id = `${purpose}:${secret.length}:${secret.slice(0, 4)}`;
  let key = cache.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, "realmgate", `realmgate/${purpose}/v1`, 32));
    cache.set(id, key);
  }
  return key;
}

export const hmac = (key: Buffer, data: string) => createHmac("sha256", key).update(data, "utf8").digest("base64url");

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
