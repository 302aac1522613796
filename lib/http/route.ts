// Route wrappers: request id, error shaping, and the capability a route needs declared up front
// (`route`, `withUser`, `withRole`). Route handlers stay thin: parse, call lib/, return.
import { getDb } from "@/db/client";
import type { Role } from "@/db/schema";
import { bearerToken, contextForBearer, contextForSessionUser, unauthenticated } from "@/lib/authz/authenticate";
import type { AuthContext, UserContext } from "@/lib/authz/context";
import { AppError, toErrorBody } from "@/lib/errors";
import { newId } from "@/lib/ids";

type Params = Record<string, string | string[]>;
type NextCtx = { params: Promise<Params> };
export type RouteCtx = { params: Params; requestId: string };
type Handler<C> = (req: Request, ctx: C) => Promise<Response> | Response;

export function requestIdOf(req: Request): string {
  const given = req.headers.get("x-request-id");
  return given && /^[A-Za-z0-9_.-]{8,64}$/.test(given) ? given : newId("req");
}

export function errorResponse(err: unknown, requestId: string): Response {
  const { status, body, headers } = toErrorBody(err, requestId);
  if (status >= 500) console.error(`[${requestId}]`, err instanceof Error ? (err.stack ?? err.message) : err);
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
      return res;
    } catch (err) {
      return errorResponse(err, requestId);
    }
  };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cookie-authenticated writes must come from our own pages: the Origin (sent by every browser on
 * non-GET fetches) must match the request's own origin. Bearer-authenticated calls carry no ambient
 * authority and need no such check.
 */
export function assertSameOrigin(req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.get("origin");
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  const proto = req.headers.get("x-forwarded-proto") ?? new URL(req.url).protocol.replace(":", "");
  if (!origin || !host || origin !== `${proto}://${host}`) {
    throw new AppError("forbidden", "Cross-site request refused: cookie-authenticated writes must come from Realmgate's own pages.");
  }
}

async function sessionUserId(): Promise<string | null> {
  const { auth } = await import("@/lib/auth/next-auth");
  const session = await auth();
  return (session?.user as { id?: string } | undefined)?.id ?? null;
}

/** Authenticate a request by bearer token, else by session cookie. */
export async function authenticate(req: Request, requestId: string): Promise<AuthContext> {
  const db = await getDb();
  const token = bearerToken(req);
  if (token !== null) return contextForBearer(db, token, requestId);
  const userId = await sessionUserId();
  if (!userId) throw unauthenticated("Sign in, or send `Authorization: Bearer <API key>`.");
  assertSameOrigin(req);
  return contextForSessionUser(db, userId, requestId);
}

/** Any authenticated caller: a person, or a delegated actor (the nine tools). */
export function withCaller(handler: Handler<RouteCtx & { auth: AuthContext }>) {
  return route(async (req, ctx) => handler(req, { ...ctx, auth: await authenticate(req, ctx.requestId) }));
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

/** Query string parameters as a plain object (repeated keys keep the last value). */
export const queryOf = (req: Request): Record<string, string> => Object.fromEntries(new URL(req.url).searchParams);

export const param = (ctx: RouteCtx, name: string): string => {
  const v = ctx.params[name];
  return Array.isArray(v) ? v.join("/") : (v ?? "");
};
