// Route wrappers: request id, error shaping, and the capability a route needs declared up front
// (`route`, `withUser`, `withRole`). Route handlers stay thin: parse, call lib/, return.
import { getDb } from "@/db/client";
import type { Role } from "@/db/schema";
import { ACTOR_TOKEN_PREFIX } from "@/lib/authz/actors";
import { bearerToken, contextForBearer, contextForSessionUser, pendingActor, unauthenticated, verifiedFirst, type BearerOptions, type PendingActor } from "@/lib/authz/authenticate";
import type { AuthContext, UserContext } from "@/lib/authz/context";
import { AppError, toErrorBody } from "@/lib/errors";
import { assertServedHost, clientRequestIdOf, isOwnOrigin } from "@/lib/http/forwarded";
import { logServerError } from "@/lib/server-log";
import { assertCleanText } from "@/lib/input/text";
import { newId } from "@/lib/ids";

type Params = Record<string, string | string[]>;
type NextCtx = { params: Promise<Params> };
export type RouteCtx = { params: Params; requestId: string };
type Handler<C> = (req: Request, ctx: C) => Promise<Response> | Response;

/** Our request id: always generated here. A client's own X-Request-Id is kept apart (`clientRequestIdOf`). */
export function requestIdOf(_req: Request): string {
  return newId("req");
}

export function errorResponse(err: unknown, requestId: string): Response {
  const { status, body, headers } = toErrorBody(err, requestId);
  // One sanitized line: a failed query's message is its SQL and parameters (lib/server-log.ts).
  if (status >= 500) logServerError(err, requestId);
  return Response.json(body, { status, headers: { ...headers, "x-request-id": requestId, "cache-control": "no-store" } });
}

/** No authentication: health, discovery documents, the unknown-route answer. */
export function route(handler: Handler<RouteCtx>) {
  return async (req: Request, next?: NextCtx): Promise<Response> => {
    const requestId = requestIdOf(req);
    try {
      const params = (await next?.params) ?? {};
      const res = await handler(req, { params, requestId });
      res.headers.set("x-request-id", requestId);
      return withClientRequestId(res, req);
    } catch (err) {
      return withClientRequestId(errorResponse(err, requestId), req);
    }
  };
}

/** The caller's own X-Request-Id, when sane, is echoed back beside ours for correlation. */
function withClientRequestId(res: Response, req: Request): Response {
  const given = clientRequestIdOf(req);
  if (given) {
    try {
      res.headers.set("x-client-request-id", given);
    } catch {} // an immutable Response (a redirect)
  }
  return res;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cookie-authenticated writes must come from our own pages: the Host must be one we serve (APP_URL's, an
 * alias, loopback) and the Origin (sent by every browser on non-GET fetches) APP_URL's or the request's own.
 * Forwarded headers count only behind a trusted proxy (REALMGATE_TRUST_PROXY). Bearer-authenticated calls
 * carry no ambient authority and need no such check.
 */
export function assertSameOrigin(req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  assertServedHost(req);
  const origin = req.headers.get("origin");
  if (!origin || !isOwnOrigin(req, origin)) {
    throw new AppError("forbidden", "Cross-site request refused: cookie-authenticated writes must come from Realmgate's own pages.");
  }
}

async function sessionUserId(): Promise<string | null> {
  const { auth } = await import("@/lib/auth/next-auth");
  const session = await auth();
  return (session?.user as { id?: string } | undefined)?.id ?? null;
}

/** Authenticate a request by bearer token, else by session cookie (`opts`: what the bearer's lookup also does). */
export async function authenticate(req: Request, requestId: string, opts: BearerOptions = {}): Promise<AuthContext> {
  const db = await getDb();
  const clientRequestId = clientRequestIdOf(req);
  const withClientId = (ctx: AuthContext): AuthContext => (clientRequestId ? { ...ctx, clientRequestId } : ctx);
  const token = bearerToken(req);
  if (token !== null) return withClientId(await contextForBearer(db, token, requestId, opts));
  const userId = await sessionUserId();
  if (!userId) throw unauthenticated("Sign in, or send `Authorization: Bearer <API key>`.");
  assertSameOrigin(req);
  return withClientId(await contextForSessionUser(db, userId, requestId));
}

/**
 * Any authenticated caller: a person, or a delegated actor (the nine tools). `countActorCalls`: an actor's request
 * is counted against this limit in the same statement that authenticates it (429 `rate_limited` over it).
 */
export function withCaller(handler: Handler<RouteCtx & { auth: AuthContext }>, opts: BearerOptions | (() => BearerOptions) = {}) {
  return route(async (req, ctx) => handler(req, { ...ctx, auth: await authenticate(req, ctx.requestId, typeof opts === "function" ? opts() : opts) }));
}

/**
 * The nine tools' route: like `withCaller`, but an actor token is handed on unread (`PendingActor`) for the call to
 * look up in its own transaction, in gate one's statement; any error before it was looked up comes after its 401
 * or 429 (`verifiedFirst`).
 */
export function withToolCaller(handler: Handler<RouteCtx & { caller: AuthContext | PendingActor }>, opts: () => BearerOptions) {
  return route(async (req, ctx) => {
    const token = bearerToken(req);
    if (token === null || !token.startsWith(`${ACTOR_TOKEN_PREFIX}_`)) return handler(req, { ...ctx, caller: await authenticate(req, ctx.requestId, opts()) });
    const caller = pendingActor(token, ctx.requestId, opts(), clientRequestIdOf(req));
    return verifiedFirst(getDb, caller, async () => handler(req, { ...ctx, caller }));
  });
}

/** Where an agent that guessed a path under /api/v1 is sent. */
const AGENT_API_START = "GET /api/v1/tools lists the tools and how to call them (POST /api/v1/tools/<name>).";

/**
 * What an /api path no route serves answers: 404 `not_found` naming the method and path (JSON, not Next.js's HTML
 * page); under /api/v1, also where the agent API starts.
 */
export function unknownApiRoute(req: Request): AppError {
  const path = new URL(req.url).pathname;
  const v1 = path === "/api/v1" || path.startsWith("/api/v1/");
  return new AppError("not_found", `No API route ${req.method} ${path}.${v1 ? ` ${AGENT_API_START}` : ""}`, { details: { method: req.method, path, ...(v1 ? { start: "GET /api/v1/tools" } : {}) } });
}

/** A handler for a method a route does not serve: 405 `method_not_allowed`, naming the methods it does (`Allow`). */
export function methodNotAllowed(allowed: readonly string[]) {
  return route(async (req) => {
    throw new AppError("method_not_allowed", `${req.method} is not served here: send ${allowed.join(" or ")}.`, {
      headers: { Allow: allowed.join(", ") },
      details: { method: req.method, allowed },
    });
  });
}

/** A signed-in user (session or personal API key), any role. */
export function withUser(handler: Handler<RouteCtx & { user: UserContext }>) {
  return route(async (req, ctx) => {
    const auth = await authenticate(req, ctx.requestId);
    if (auth.kind !== "user") throw new AppError("forbidden", "This endpoint is for people, not delegated actors.");
    return handler(req, { ...ctx, user: auth });
  });
}

/** A signed-in user holding one of `roles` in their tenant. */
export function withRole(roles: readonly Role[], handler: Handler<RouteCtx & { user: UserContext }>) {
  return withUser(async (req, ctx) => {
    if (!roles.includes(ctx.user.role)) {
      throw new AppError("forbidden", `This needs the ${roles.join(" or ")} role; you are ${ctx.user.role}.`, {
        details: { required_roles: roles, role: ctx.user.role },
      });
    }
    return handler(req, ctx);
  });
}

/** Query string parameters as a plain object (repeated keys keep the last value); NUL in a key or value is refused. */
export const queryOf = (req: Request): Record<string, string> => {
  const params = new URL(req.url).searchParams;
  for (const [k, v] of params) assertCleanText(Object.fromEntries([[k, v]]), "query");
  return Object.fromEntries(params);
};

export const param = (ctx: RouteCtx, name: string): string => {
  const v = ctx.params[name];
  const value = Array.isArray(v) ? v.join("/") : (v ?? "");
  assertCleanText(value, "path parameter", [name]);
  return value;
};
