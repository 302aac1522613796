// Turn a request's credential (bearer token or session) into an AuthContext. Each credential kind is its
// own small resolver; this file only picks one.
import type { Db } from "@/db/client";
import { AppError } from "@/lib/errors";
import { rateLimitedError, type Limit } from "@/lib/limits/rate-limit";
import { ACTOR_TOKEN_PREFIX, actorForToken } from "./actors";
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

export async function contextForSessionUser(db: Db, userId: string, requestId: string): Promise<AuthContext> {
  const m = await primaryMembership(db, userId);
  if (!m) throw new AppError("forbidden", "Your account is not a member of any workspace.");
  return { kind: "user", tenantId: m.tenantId, userId, role: m.role, via: "session", requestId };
}

export { unauthenticated };
