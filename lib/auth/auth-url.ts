// Where Auth.js thinks it lives. It derives its URLs (the OIDC redirect_uri, sign-in and sign-out URLs, in route
// handlers and server actions alike) from AUTH_URL when set, else from the Host and X-Forwarded-* headers. Unless
// a proxy we trust overwrites those they are the client's to choose, so Auth.js is pinned to APP_URL's origin.
import { env } from "@/lib/env";
import { appOrigin, requestHost, requestProto } from "@/lib/http/forwarded";

/** The AUTH_URL we set, to tell it from an operator's own (global: Next may load this module more than once). */
const pinned = globalThis as unknown as { __realmgateAuthUrl?: string };

/** Set AUTH_URL to APP_URL's origin unless the proxy is trusted; an AUTH_URL the operator set is left alone. */
export function pinAuthUrl(): void {
  const current = process.env.AUTH_URL;
  if (current !== undefined && current !== pinned.__realmgateAuthUrl) return;
  pinned.__realmgateAuthUrl = env().REALMGATE_TRUST_PROXY ? undefined : appOrigin();
  if (pinned.__realmgateAuthUrl) process.env.AUTH_URL = pinned.__realmgateAuthUrl;
  else delete process.env.AUTH_URL;
}

/** The origin Auth.js should see a request on: APP_URL's, or behind a trusted proxy the one it forwarded. */
export function authOrigin(req: Request): string {
  return env().REALMGATE_TRUST_PROXY ? new URL(`${requestProto(req)}://${requestHost(req)}`).origin : appOrigin();
}
