// Where Auth.js thinks it lives. It derives its URLs (the OIDC redirect_uri, sign-in and sign-out URLs, in route
// handlers and server actions alike) from AUTH_URL when set, else from the Host and X-Forwarded-* headers. Unless
// a proxy we trust overwrites those they are the client's to choose, so Auth.js is pinned to APP_URL's origin.
import { env } from "@/lib/env";
import { appOrigin, requestHost, requestProto } from "@/lib/http/forwarded";

/** The AUTH_URL we set, to tell it from an operator's own (global: Next may load this module more than once). */
const pinned = globalThis as unknown as { __realmgateAuthUrl?: string };

/**
 * APP_URL on a loopback IP literal (`http://127.0.0.1:3000`, local runs and tests): Next normalises such hosts to
 * `localhost` in every NextRequest Auth.js builds from AUTH_URL, so the callback's redirect_uri would no longer be
 * the one the sign-in sent. There AUTH_URL is not pinned; the route handlers still hand Auth.js APP_URL's origin
 * (withRequestOrigin), and only this machine can reach a loopback-bound server.
 */
export function appUrlOnLoopbackIp(): boolean {
  const host = new URL(appOrigin()).hostname;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "[::1]";
}

/** Whether Auth.js may take its origin from the request (behind a trusted proxy, or on a loopback IP). */
export const authTrustsHost = (): boolean => env().REALMGATE_TRUST_PROXY || appUrlOnLoopbackIp();

/** Set AUTH_URL to APP_URL's origin unless the proxy is trusted; an AUTH_URL the operator set is left alone. */
export function pinAuthUrl(): void {
  const current = process.env.AUTH_URL;
  if (current !== undefined && current !== pinned.__realmgateAuthUrl) return;
  pinned.__realmgateAuthUrl = authTrustsHost() ? undefined : appOrigin();
  if (pinned.__realmgateAuthUrl) process.env.AUTH_URL = pinned.__realmgateAuthUrl;
  else delete process.env.AUTH_URL;
}

/** The origin Auth.js should see a request on: APP_URL's, or behind a trusted proxy the one it forwarded. */
export function authOrigin(req: Request): string {
  return env().REALMGATE_TRUST_PROXY ? new URL(`${requestProto(req)}://${requestHost(req)}`).origin : appOrigin();
}
