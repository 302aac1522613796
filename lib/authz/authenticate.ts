// Turn a request's credential (bearer token or session) into an AuthContext. Each credential kind is its
// own small resolver; this file only picks one.
import type { Db, Executor } from "@/db/client";
import { AppError } from "@/lib/errors";
import { callerBucket, hitRateLimit, rateLimitedError, type Limit } from "@/lib/limits/rate-limit";
import { ACTOR_TOKEN_PREFIX, actorForToken, type actorOfToken } from "./actors";
import { API_KEY_PREFIX, userForApiKey } from "./api-keys";
import type { AuthContext } from "./context";
import { primaryMembership } from "./users";

const unauthenticated = (message: string) =>
  new AppError("unauthenticated", message, { headers: { "WWW-Authenticate": 'Bearer realm="realmgate"' } });

/** The bearer token of an `Authorization` header, or null when there is none. Malformed headers are refused. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.get("authorization");
  if (header === null) return null;
  const m = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header.trim());
  if (!m) throw unauthenticated("The Authorization header must be `Bearer <token>`.");
  return m[1]!;
}

/** What authentication may also do in its one statement: count an actor's call against its rate limit. */
export type BearerOptions = { countActorCalls?: Limit };

export async function contextForBearer(db: Db, token: string, requestId: string, opts: BearerOptions = {}): Promise<AuthContext> {
  if (token.startsWith(`${API_KEY_PREFIX}_`)) {
    const ctx = await userForApiKey(db, token);
    if (ctx) return { ...ctx, requestId };
  } else if (token.startsWith(`${ACTOR_TOKEN_PREFIX}_`)) {
    const now = new Date();
    const l = opts.countActorCalls;
    const found = await actorForToken(db, token, now, l ? { limit: l } : undefined);
    if (found) {
      const { limited, ...ctx } = found;
      if (l && limited && !limited.allowed) throw rateLimitedError(l, limited, "requests");
      return { ...ctx, requestId };
    }
  }
  throw unauthenticated("The bearer token is unknown, expired or revoked.");
}

/**
 * An actor token not looked up yet. A REST tool call looks it up in its own transaction, in gate one's statement
 * (lib/tools/dispatch.ts), so authentication, the rate limit and gate one cost one statement. Anything that fails
 * before that statement ran is answered after `verifyPending`: a bad token is still 401 and an actor over its limit
 * still 429, whatever else is wrong with the request. `verified` is set once the token has been looked up.
 */
export type PendingActor = {
  kind: "pending_actor";
  token: string;
  requestId: string;
  clientRequestId?: string;
  countCalls?: Limit;
  verified: boolean;
};

export const pendingActor = (token: string, requestId: string, opts: BearerOptions, clientRequestId?: string): PendingActor => ({
  kind: "pending_actor",
  token,
  requestId,
  ...(clientRequestId ? { clientRequestId } : {}),
  ...(opts.countActorCalls ? { countCalls: opts.countActorCalls } : {}),
  verified: false,
});

/** A pending actor's token looked up on its own statement (and its call counted): its context, or 401 / 429. */
export async function verifyPending(db: Db, p: PendingActor): Promise<AuthContext> {
  let ctx: AuthContext;
  try {
    ctx = await contextForBearer(db, p.token, p.requestId, p.countCalls ? { countActorCalls: p.countCalls } : {});
  } finally {
    p.verified = true; // looked up (and counted) once, whatever it answered
  }
  return p.clientRequestId ? { ...ctx, clientRequestId: p.clientRequestId } : ctx;
}

/**
 * A pending actor's token as gate one's statement found it (`readGateOneForToken`): its context, or the 401 when the
 * token is not live, or the 429 when the call was over the actor's limit (its count commits with that answer).
 */
export function pendingAnswer(p: PendingActor, found: ReturnType<typeof actorOfToken>): AuthContext | AppError {
  p.verified = true;
  if (!found) return unauthenticated("The bearer token is unknown, expired or revoked.");
  const { limited, ...actor } = found;
  if (p.countCalls && limited && !limited.allowed) return rateLimitedError(p.countCalls, limited, "requests");
  return { ...actor, requestId: p.requestId, ...(p.clientRequestId ? { clientRequestId: p.clientRequestId } : {}) };
}

/** A pending actor's call counted again, when the transaction that counted it was rolled back. */
export async function countPendingAgain(db: Executor, p: PendingActor, actorId: string, now: Date): Promise<void> {
  if (p.countCalls) await hitRateLimit(db, callerBucket(actorId), p.countCalls, now);
}

/** `fn`, and if it fails before the pending token was looked up, the lookup first: its 401 or 429 comes before `fn`'s error. */
export async function verifiedFirst<T>(db: () => Promise<Db>, p: AuthContext | PendingActor, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (p.kind === "pending_actor" && !p.verified) await verifyPending(await db(), p);
    throw err;
  }
}

export async function contextForSessionUser(db: Db, userId: string, requestId: string): Promise<AuthContext> {
  const m = await primaryMembership(db, userId);
  if (!m) throw new AppError("forbidden", "Your account is not a member of any workspace.");
  return { kind: "user", tenantId: m.tenantId, userId, role: m.role, via: "session", requestId };
}

export { unauthenticated };
