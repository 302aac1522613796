// The consent page's view of one request: the operations asked for, the companions offered with them, and the
// connected-account walls still ahead of the agent's call (recomputed from the grantor's accounts on every
// load, so the page says "everything is done" as soon as it is); the call that asked, as its realm presents it;
// and the decision that continues into them.
import { z } from "zod";
import type { Db, Executor } from "@/db/client";
import type { UserContext } from "@/lib/authz/context";
import { decideConsentBody, decideConsentRequest, offeredCompanions, type ConsentRequestView, type NamedRef } from "@/lib/authz/consent";
import type { GrantView } from "@/lib/authz/grants";
import { wallsAhead, type WallView } from "@/lib/connections/walls";
import { env } from "@/lib/env";
import type { ParsedRef } from "@/lib/realms/contract";
import { presentCallAs } from "@/lib/realms/present-call";
import { UNSEEN, type PresentedRequest } from "@/lib/realms/presenters";
import { findRealm } from "@/lib/realms/registry";

type Who = Pick<UserContext, "tenantId" | "userId">;

/** The page's own query: the account the agent named (a hint for which account the walls are about). */
export const consentPageQuery = z.object({ account: z.string().trim().min(1).max(200).optional() });
export type ConsentHints = z.infer<typeof consentPageQuery>;

/** The consent page's path for a request, with the hint it was reached with (where every fix comes back to). */
export function consentPath(id: string, hints: ConsentHints = {}): string {
  return `/consent/${encodeURIComponent(id)}${hints.account ? `?${new URLSearchParams({ account: hints.account }).toString()}` : ""}`;
}

/**
 * The walls of gate two still ahead of the request's call, with the deciding person's own accounts (the
 * request is theirs: getConsentRequest answered not_found to anyone else). None for a denied or expired request.
 */
export async function consentWalls(db: Executor, who: Who, request: ConsentRequestView, hints: ConsentHints = {}): Promise<WallView[]> {
  if (request.status !== "pending" && request.status !== "approved") return [];
  const realm = await findRealm(db, who.tenantId, request.namespace);
  if (!realm?.manifest.connection) return [];
  const parsed: ParsedRef[] = [];
  for (const ref of [...(request.ref ? [request.ref] : []), ...request.named_refs]) {
    try {
      parsed.push(realm.adapter.parseRef(ref));
    } catch {
      // A ref the realm no longer reads pins nothing.
    }
  }
  return wallsAhead(db, {
    tenantId: who.tenantId,
    userId: who.userId,
    manifest: realm.manifest,
    operations: request.operations,
    parsed,
    selector: hints.account ?? null,
    actor: { id: request.actor.id, name: request.actor.name },
    appUrl: env().appUrl,
    returnTo: consentPath(request.id, hints),
  });
}

/** The companion operations this request offers (not asked for; checked by default on the page), each with why it goes along. */
export async function consentCompanions(db: Executor, who: Who, request: ConsentRequestView): Promise<{ key: string; why: string }[]> {
  const keys = await offeredCompanions(db, who.tenantId, request);
  if (keys.length === 0) return [];
  const realm = await findRealm(db, who.tenantId, request.namespace);
  const groups = realm?.manifest.companions ?? [];
  return keys.map((key) => ({ key, why: groups.find((g) => g.operations.includes(key) && g.operations.some((o) => request.operations.includes(o)))?.why ?? "" }));
}

export type Decided = { request: ConsentRequestView; grant: GrantView | null; also_needed: WallView[] };

/** Decide, then say what is still ahead of the agent's call: the page continues straight into it. */
export async function decideAndContinue(db: Db, who: UserContext, id: string, body: z.infer<typeof decideConsentBody>, hints: ConsentHints = {}): Promise<Decided> {
  const decided = await decideConsentRequest(db, who, id, body);
  const also = decided.request.status === "approved" ? await consentWalls(db, who, decided.request, hints) : [];
  return { ...decided, also_needed: also };
}

/** "The request that asked for this": the call as its realm presents it, or a note that its input was too large to keep. */
export type PresentedCall = ({ kind: "presented" } & PresentedRequest) | { kind: "too_large"; bytes: number };

/**
 * The call that made the request, as the deciding person reads it: the realm's presenter with their own authority
 * (names they can see; nothing they cannot), else the generic lines of its fields or payload. Null when no input
 * was kept (a request recorded before inputs were).
 */
export async function presentedCall(db: Executor, who: Who & { requestId?: string }, request: ConsentRequestView, items: NamedRef[] = []): Promise<PresentedCall | null> {
  const kept = request.input;
  if (!kept) return null;
  if ("too_large" in kept) return { kind: "too_large", bytes: kept.bytes };
  const realm = await findRealm(db, who.tenantId, request.namespace);
  // Items by the names the grantor reads them by; one they cannot see is said to be so, never shown as a bare ref.
  const names = Object.fromEntries(items.map((i) => [i.ref, i.visible && i.label ? i.label : UNSEEN]));
  const shown = await presentCallAs(db, { ...who, appUrl: env().appUrl }, { realm, operation: request.operations[0] ?? "", ref: request.ref, input: kept.value, names });
  return { kind: "presented", ...shown };
}
