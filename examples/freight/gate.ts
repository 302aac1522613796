// Gate two: the desk's own people and claims, decided on the grantor's email (never on a session), and the
// grant's resource scope, which list and search narrow by. Realmgate has already passed gate one.
import { realmDenied } from "../../provider-kit/errors";
import type { AuthContext } from "../../provider-kit/types";
import type { Db } from "./db";
import { CLAIM_DISPATCH, CLAIM_READ } from "./manifest";
import { parseRef, type Kind } from "./refs";

export const WHO_CAN_OPEN = "The freight desk lead (dispatch@acme.test)";

const CLAIM_WORDS: Record<string, string> = {
  [CLAIM_READ]: "see the freight desk",
  [CLAIM_DISPATCH]: "dispatch (reschedule shipments or assign carriers)",
};

/** The claims the desk gives this email (none for anyone it does not know). */
export async function claimsOf(db: Db, email: string): Promise<string[]> {
  const res = await db.query<{ claims: string[] }>("select claims from people where lower(email) = lower($1)", [email]);
  return res.rows[0]?.claims ?? [];
}

/** Refuses the call (realm_denied, naming the claim and who can open it) unless the grantor holds every claim. */
export async function requireClaims(db: Db, ctx: AuthContext, claims: string[]): Promise<void> {
  const held = await claimsOf(db, ctx.grantor.email);
  for (const claim of claims) {
    if (!held.includes(claim))
      throw realmDenied({ message: `${ctx.grantor.email} may not ${CLAIM_WORDS[claim] ?? claim} at the freight desk: it needs the ${claim} claim`, who_can_open: WHO_CAN_OPEN, claim });
  }
}

/**
 * What a grant's scope lets list and search show. `refs`: objects named, or inside a named shipment (exceptions and
 * documents); `kinds` (should a scope name kinds): only those kinds. Anything else (an account scope, which a
 * remote realm has none of) does not narrow.
 */
export type ScopeFilter = { kinds: Set<string> | null; ids: Map<Kind, Set<string>> | null };

export function scopeFilter(scope: AuthContext["scope"]): ScopeFilter {
  const s = scope as { refs?: unknown; kinds?: unknown } | null;
  const kinds = Array.isArray(s?.kinds) ? new Set(s.kinds.filter((k): k is string => typeof k === "string")) : null;
  if (!Array.isArray(s?.refs)) return { kinds, ids: null };
  const ids = new Map<Kind, Set<string>>();
  for (const ref of s.refs) {
    const p = typeof ref === "string" ? parseRef(ref) : null;
    if (!p) continue;
    if (!ids.has(p.kind)) ids.set(p.kind, new Set());
    ids.get(p.kind)!.add(p.id);
  }
  return { kinds, ids };
}
