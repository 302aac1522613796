// Sign-in (Auth.js v5): any OpenID Connect issuer from the environment, plus a development sign-in that
// exists only when REALMGATE_DEV_LOGIN is set. Sessions are JWTs carrying our user id only; role and
// tenant are read from the database on every request.
import type { NextRequest } from "next/server";
import NextAuth, { customFetch, type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import type { Provider } from "next-auth/providers";
import { getDb } from "@/db/client";
import { userForDevSignIn, userForOidcSignIn } from "@/lib/authz/users";
import { env } from "@/lib/env";
import { netFetch } from "@/lib/net";
import { authOrigin, authTrustsHost, pinAuthUrl } from "./auth-url";
import { endSession, newSessionId, SESSION_MAX_AGE_SECONDS, sessionIsLive, sessionVersionOf } from "./sessions";

export const OIDC_PROVIDER_ID = "oidc";
export const DEV_PROVIDER_ID = "dev";

const signInFetch = netFetch({ timeoutMs: () => env().REALMGATE_PROVIDER_TIMEOUT_MS, maxBytes: 1024 * 1024, allowPrivate: true });

function providers(): Provider[] {
  const cfg = env();
  const list: Provider[] = [];
  if (cfg.AUTH_OIDC_ISSUER && cfg.AUTH_OIDC_CLIENT_ID && cfg.AUTH_OIDC_CLIENT_SECRET) {
    list.push({
      id: OIDC_PROVIDER_ID,
      name: cfg.AUTH_OIDC_NAME,
      type: "oidc",
      issuer: cfg.AUTH_OIDC_ISSUER,
      clientId: cfg.AUTH_OIDC_CLIENT_ID,
      clientSecret: cfg.AUTH_OIDC_CLIENT_SECRET,
      checks: ["pkce", "state", "nonce"],
      authorization: { params: { scope: "openid email profile" } },
      // Discovery, the token exchange and userinfo go out through lib/net like every other outbound call: bounded
      // in time and size. The issuer is the operator's own configuration, so a private address is allowed.
      [customFetch]: signInFetch,
    });
  }
  if (cfg.REALMGATE_DEV_LOGIN) {
    list.push(
      Credentials({
        id: DEV_PROVIDER_ID,
        name: "Development sign-in",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials) {
          const email = typeof credentials?.email === "string" ? credentials.email : "";
          const password = typeof credentials?.password === "string" ? credentials.password : "";
          if (!email || !password) return null;
          return userForDevSignIn(await getDb(), email, password);
        },
      }),
    );
  }
  return list;
}

export const signInMethods = () => {
  const cfg = env();
  return {
    oidc: Boolean(cfg.AUTH_OIDC_ISSUER) ? { id: OIDC_PROVIDER_ID, name: cfg.AUTH_OIDC_NAME } : null,
    dev: cfg.REALMGATE_DEV_LOGIN,
  };
};

function config(): NextAuthConfig {
  const cfg = env();
  pinAuthUrl();
  return {
    secret: cfg.AUTH_SECRET,
    // Trusting the host means trusting X-Forwarded-Host: only behind our proxy. Otherwise Auth.js trusts
    // AUTH_URL, pinned to APP_URL's origin (lib/auth/auth-url.ts; Auth.js sets trustHost itself when it is set).
    ...(authTrustsHost() ? { trustHost: true } : {}),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/signin", error: "/signin" },
    providers: providers(),
    callbacks: {
      async jwt({ token, user, account, profile }) {
        if (account?.provider === OIDC_PROVIDER_ID && profile?.sub) {
          token.uid = await userForOidcSignIn(await getDb(), {
            issuer: String(profile.iss ?? cfg.AUTH_OIDC_ISSUER),
            subject: String(profile.sub),
            email: typeof profile.email === "string" ? profile.email : null,
            emailVerified: profile.email_verified === true,
            name: typeof profile.name === "string" ? profile.name : null,
          });
        } else if (account?.provider === DEV_PROVIDER_ID && user?.id) {
          token.uid = user.id;
        }
        // A fresh sign-in: a session id of its own, under the user's current session version.
        if (account && typeof token.uid === "string") {
          token.sid = newSessionId();
          token.sv = await sessionVersionOf(await getDb(), token.uid);
        }
        return token;
      },
      async session({ session, token }) {
        // Checked on every request: a session ended by sign-out (here or on another device) carries no user.
        if (typeof token.uid === "string" && (await sessionIsLive(await getDb(), { userId: token.uid, sessionId: token.sid, version: token.sv }))) {
          (session.user as { id?: string }).id = token.uid;
        }
        return session;
      },
    },
    events: {
      async signOut(message) {
        const token = "token" in message ? message.token : null;
        if (token && typeof token.uid === "string") {
          const exp = typeof token.exp === "number" ? new Date(token.exp * 1000) : new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000);
          await endSession(await getDb(), { userId: token.uid, sessionId: token.sid, expiresAt: exp });
        }
      },
    },
  };
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => config());

/**
 * Auth.js builds the OAuth redirect_uri from the request URL in route handlers, but from AUTH_URL (or the Host
 * header) in server actions; Next's request URL rewrites loopback hosts (`127.0.0.1` becomes `localhost`). Hand
 * Auth.js a request whose URL is on the origin both sides agree on: APP_URL's, or behind a trusted proxy the
 * one it forwarded.
 */
function withRequestOrigin(req: NextRequest): NextRequest {
  pinAuthUrl();
  // With AUTH_URL set (pinned to APP_URL, or the operator's), Auth.js moves the request onto that origin itself,
  // and it needs a NextRequest to do it (it reads `nextUrl`).
  if (process.env.AUTH_URL) return req;
  const url = `${authOrigin(req)}${req.nextUrl.pathname}${req.nextUrl.search}`;
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers: req.headers, body: req.body, duplex: "half" };
  // A plain Request, not a NextRequest: NextRequest normalises loopback hosts to `localhost`, which would make the
  // callback's redirect_uri differ from the one the authorization request carried.
  return new Request(url, init) as NextRequest; // Auth.js reads only the Request interface
}

export const authRouteHandlers = {
  GET: (req: NextRequest) => handlers.GET(withRequestOrigin(req)),
  POST: (req: NextRequest) => handlers.POST(withRequestOrigin(req)),
};
