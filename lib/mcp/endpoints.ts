// The OAuth endpoints' HTTP side: form bodies, the OAuth error format, CORS preflight. Route handlers under
// app/api/oauth/ stay one line each.
import { getDb } from "@/db/client";
import type { UserContext } from "@/lib/authz/context";
import { AppError, isAppError, parseWith } from "@/lib/errors";
import { readBodyBytes, readJson } from "@/lib/http/body";
import { rateLimits } from "./config";
import { registerClient } from "./clients";
import { corsHeaders, OAuthProtocolError, oauthErrorResponse } from "./errors";
import { consentForm, decideAuthorization, revokeToken, tokenRequest } from "./oauth";
import { clientAddress } from "@/lib/http/forwarded";
import { enforceRateLimit, type Limit } from "@/lib/limits/rate-limit";
import { TokenRejected, verifyConsentRequest } from "./tokens";

const FORM_MAX_BYTES = 64 * 1024;

/** Our AppErrors (body too large, rate limited) in OAuth's own format, so OAuth clients can read them. */
function asOAuthError(err: unknown): OAuthProtocolError | null {
  if (err instanceof OAuthProtocolError) return err;
  if (!isAppError(err)) return null;
  if (err.code === "rate_limited") return new OAuthProtocolError("temporarily_unavailable", err.message, 429, err.headers);
  if (err.status < 500) return new OAuthProtocolError("invalid_request", err.message);
  return null;
}

export function oauthRoute(handler: (req: Request) => Promise<Response>) {
  return async (req: Request, requestId: string): Promise<Response> => {
    try {
      const res = await handler(req);
      for (const [k, v] of Object.entries(corsHeaders)) res.headers.set(k, v);
      return res;
    } catch (err) {
      const o = asOAuthError(err);
      if (o) return oauthErrorResponse(o, requestId);
      throw err;
    }
  };
}

export async function readForm(req: Request): Promise<URLSearchParams> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw new OAuthProtocolError("invalid_request", "Send the parameters as application/x-www-form-urlencoded.");
  const bytes = await readBodyBytes(req, FORM_MAX_BYTES);
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

const noStore = { "cache-control": "no-store", pragma: "no-cache" };

export const tokenEndpoint = oauthRoute(async (req) => {
  if (req.headers.get("authorization")) throw new OAuthProtocolError("invalid_client", "This server issues no client secrets; public clients authenticate with PKCE alone.");
  const tokens = await tokenRequest(await getDb(), await readForm(req));
  return Response.json(tokens, { headers: noStore });
});

/**
 * The budgets a registration counts against. Registration takes no credential and belongs to no tenant, so
 * behind a trusted proxy each client address gets OAUTH_REGISTER_LIMIT_PER_HOUR (and everyone together ten
 * times that); without one the address is whatever the client claims, so one budget holds for everyone.
 */
export function registrationBuckets(req: Request): { bucket: string; limit: Limit }[] {
  const l = rateLimits().register;
  const address = clientAddress(req);
  if (address === null) return [{ bucket: "register:all", limit: l }];
  return [
    { bucket: `register:addr:${address}`, limit: l },
    { bucket: "register:all", limit: { ...l, limit: l.limit * 10 } },
  ];
}

export const registrationEndpoint = oauthRoute(async (req) => {
  const db = await getDb();
  for (const { bucket, limit } of registrationBuckets(req)) await enforceRateLimit(db, bucket, limit, "client registrations");
  const body = await readJson(req, FORM_MAX_BYTES);
  return Response.json(await registerClient(db, body), { status: 201, headers: noStore });
});

export const revocationEndpoint = oauthRoute(async (req) => {
  const form = await readForm(req);
  const token = form.get("token");
  if (!token) throw new OAuthProtocolError("invalid_request", "token is required.");
  await revokeToken(await getDb(), token, form.get("client_id") ?? undefined);
  return new Response(null, { status: 200, headers: noStore });
});

export const preflight = () => new Response(null, { status: 204, headers: corsHeaders });

const seeOther = (location: string) => new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });

/**
 * The consent form's post. It must come from the signed-in person's own browser session (the caller checked
 * the Origin), and carry the consent request signed for that same person when the page was shown.
 * A person who submits a form gets pages, not JSON: problems go back to the consent page as a notice.
 */
export async function submitConsent(req: Request, user: UserContext): Promise<Response> {
  if (user.via !== "session") throw new AppError("forbidden", "Connections are approved in the browser, by a signed-in person.");
  const form = await readForm(req).catch(() => null);
  const raw = form && { request: form.get("request"), decision: form.get("decision"), expires: form.get("expires") ?? undefined, op: form.getAll("op") };
  let request;
  try {
    request = await verifyConsentRequest(String(raw?.request ?? ""), user.userId);
  } catch (err) {
    if (err instanceof TokenRejected) return seeOther("/oauth/authorize?notice=expired");
    throw err;
  }
  const back = (notice: string) => seeOther(`/oauth/authorize?${request.query}${request.query ? "&" : ""}notice=${notice}`);
  try {
    const input = parseWith(consentForm, raw, "consent form");
    const outcome = await decideAuthorization(await getDb(), user, request, { decision: input.decision, operations: input.op, expires: input.expires });
    return seeOther("redirect" in outcome ? outcome.redirect : outcome.retry);
  } catch (err) {
    if (isAppError(err) && err.status < 500) return back(err.code);
    throw err;
  }
}
