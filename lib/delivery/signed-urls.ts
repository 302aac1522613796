// Signed, short-lived download URLs: HMAC over method, path, file, caller, expiry, (when the realm gave one) the
// ref the file was reached through, so redemption can ask that realm again, and (for agents) the grant the link
// was minted under, so redemption follows that grant. At most 15 minutes.
import { AppError } from "@/lib/errors";
import { deriveKey, hmac, safeEqual } from "./keys";

export const MAX_URL_TTL_SECONDS = 15 * 60;

export type SignedUrlParts = {
  method: "GET";
  path: string;
  fileId: string;
  principalId: string;
  expiresAt: number;
  ref: string | null;
  grantId: string | null;
  /** The operation the link was minted by (for agents): turned off or suspended since, the link stops. */
  operation: string | null;
};

/** Every field is signed, each on its own line, so no value can be shifted into another. */
const payload = (p: SignedUrlParts) => ["v4", p.method, p.path, p.fileId, p.principalId, String(p.expiresAt), p.ref ?? "", p.grantId ?? "", p.operation ?? ""].join("\n");

export function signUrl(
  appUrl: string,
  fileId: string,
  principalId: string,
  now: Date,
  ttlSeconds = MAX_URL_TTL_SECONDS,
  ref: string | null = null,
  grantId: string | null = null,
  operation: string | null = null,
) {
  const ttl = Math.max(1, Math.min(ttlSeconds, MAX_URL_TTL_SECONDS));
  const expiresAt = Math.floor(now.getTime() / 1000) + ttl;
  const path = `/api/v1/files/${fileId}`;
  const sig = hmac(deriveKey("signed-url"), payload({ method: "GET", path, fileId, principalId, expiresAt, ref, grantId, operation }));
  const url = `${appUrl}${path}?${new URLSearchParams({ by: principalId, exp: String(expiresAt), ...(ref === null ? {} : { ref }), ...(grantId === null ? {} : { g: grantId }), ...(operation === null ? {} : { op: operation }), sig })}`;
  return { url, expires_at: new Date(expiresAt * 1000).toISOString() };
}

/** Check a presented URL. Altered → `bad_signature`; past its expiry → `url_expired`. */
export function verifySignedUrl(input: { method: string; path: string; fileId: string; by: string | null; exp: string | null; sig: string | null; ref?: string | null; grant?: string | null; op?: string | null; now: Date }) {
  const { by, exp, sig } = input;
  if (!by || !exp || !sig || !/^\d{1,12}$/.test(exp)) throw new AppError("bad_signature", "This download link is incomplete or altered.");
  const expected = hmac(
    deriveKey("signed-url"),
    payload({
      method: input.method === "HEAD" ? "GET" : (input.method as "GET"),
      path: input.path,
      fileId: input.fileId,
      principalId: by,
      expiresAt: Number(exp),
      ref: input.ref ?? null,
      grantId: input.grant ?? null,
      operation: input.op ?? null,
    }),
  );
  if (!safeEqual(sig, expected)) throw new AppError("bad_signature", "This download link is altered or was not issued by Realmgate.");
  if (Math.floor(input.now.getTime() / 1000) >= Number(exp)) {
    throw new AppError("url_expired", "This download link has expired. Ask for the object again to get a fresh link.", {
      details: { expired_at: new Date(Number(exp) * 1000).toISOString(), retry_hint: "call get_object again for a new URL" },
    });
  }
  return { principalId: by, ref: input.ref ?? null, grantId: input.grant ?? null, operation: input.op ?? null };
}
