// Signed links to provider-backed files: no stored file, only what to ask for again. A link names the tenant,
// the realm, the ref, the caller, (for agents) the grant and operation it was minted under, whether it is a
// download (GET) or an upload slot (PUT), the name shown, and the minting call's parameters — all signed, each
// on its own line. Redemption (lib/tools/files.ts `redeemLiveUrl`) re-runs gate one and the realm's gate two
// before any byte moves. At most 15 minutes, as for stored files.
import { AppError } from "@/lib/errors";
import { deriveKey, hmac, safeEqual } from "./keys";
import { MAX_URL_TTL_SECONDS } from "./signed-urls";

export const LIVE_PATH = "/api/v1/files/live";
export { MAX_LIVE_BYTES } from "./port";

export type LiveUrlParts = {
  method: "GET" | "PUT";
  tenantId: string;
  namespace: string;
  ref: string;
  principalId: string;
  expiresAt: number;
  grantId: string | null;
  operation: string | null;
  name: string;
  params: Record<string, string>;
};

const encodeParams = (p: Record<string, string>) => (Object.keys(p).length ? Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(p).sort(([a], [b]) => (a < b ? -1 : 1)))), "utf8").toString("base64url") : "");

const payload = (p: LiveUrlParts, x: string) =>
  ["live1", p.method, LIVE_PATH, p.tenantId, p.namespace, p.ref, p.principalId, String(p.expiresAt), p.grantId ?? "", p.operation ?? "", p.name, x].join("\n");

export function signLiveUrl(appUrl: string, parts: Omit<LiveUrlParts, "expiresAt">, now: Date, ttlSeconds = MAX_URL_TTL_SECONDS) {
  const ttl = Math.max(1, Math.min(ttlSeconds, MAX_URL_TTL_SECONDS));
  const expiresAt = Math.floor(now.getTime() / 1000) + ttl;
  const x = encodeParams(parts.params);
  const sig = hmac(deriveKey("signed-url"), payload({ ...parts, expiresAt }, x));
  const q = new URLSearchParams({ m: parts.method, t: parts.tenantId, ns: parts.namespace, ref: parts.ref, by: parts.principalId, exp: String(expiresAt), name: parts.name });
  if (parts.grantId !== null) q.set("g", parts.grantId);
  if (parts.operation !== null) q.set("op", parts.operation);
  if (x) q.set("x", x);
  q.set("sig", sig);
  return { url: `${appUrl}${LIVE_PATH}?${q}`, expires_at: new Date(expiresAt * 1000).toISOString() };
}

/** Check a presented link for the method it is used with. Altered or used with another method → `bad_signature`; past its expiry → `url_expired`. */
export function verifyLiveUrl(url: URL, method: string, now: Date): LiveUrlParts {
  const q = url.searchParams;
  const bad = () => new AppError("bad_signature", "This link is incomplete, altered or not issued by Realmgate.");
  const m = q.get("m");
  const [t, ns, ref, by, exp, name, sig] = ["t", "ns", "ref", "by", "exp", "name", "sig"].map((k) => q.get(k));
  if (url.pathname !== LIVE_PATH || (m !== "GET" && m !== "PUT") || !t || !ns || !ref || !by || !exp || name === null || !sig || !/^\d{1,12}$/.test(exp)) throw bad();
  const used = method === "HEAD" ? "GET" : method;
  if (used !== m) throw new AppError("bad_signature", `This link is for ${m === "GET" ? "downloading (GET)" : "uploading (PUT)"}.`, { details: { method: m } });
  const x = q.get("x") ?? "";
  let params: Record<string, string> = {};
  if (x) {
    try {
      const parsed: unknown = JSON.parse(Buffer.from(x, "base64url").toString("utf8"));
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== "string")) throw bad();
      params = parsed as Record<string, string>;
    } catch {
      throw bad();
    }
  }
  const parts: LiveUrlParts = { method: m, tenantId: t!, namespace: ns!, ref: ref!, principalId: by!, expiresAt: Number(exp), grantId: q.get("g"), operation: q.get("op"), name: name!, params };
  if (!safeEqual(sig, hmac(deriveKey("signed-url"), payload(parts, x)))) throw bad();
  if (Math.floor(now.getTime() / 1000) >= parts.expiresAt) {
    throw new AppError("url_expired", "This link has expired. Ask for the object again to get a fresh link.", {
      details: { expired_at: new Date(parts.expiresAt * 1000).toISOString(), retry_hint: "call get_object (or the action) again for a new URL" },
    });
  }
  return parts;
}
