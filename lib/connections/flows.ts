// The Connection Hub's OAuth flows: connect a new account, upgrade one (asking only for the missing
// scopes), reconnect one. A flow's `state` is random, single use, short-lived and bound to the person who
// started it; only its hash is stored. The callback checks all of that before the code is exchanged.
import { createHash } from "node:crypto";
import { and, eq, gt, isNull, lt, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Tx } from "@/db/client";
import { connectedAccounts, connectionFlows, connectionIntents, type ConnectedAccount, type ConnectionFlow, type ConnectionIntent } from "@/db/schema";
import { recordChange, type AuditEventName } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { safeReturnPath } from "@/lib/input/return-to";
import { newId } from "@/lib/ids";
import { accountView, narrowingOf, openTokens, ownAccount, sealTokens, type AccountView, type Who } from "./accounts";
import { accountName } from "./gate-two";
import { authorizationUrl, exchangeCode, fetchUserinfo, identityFromApi, randomToken, revokeGrant, TokenGrantError, verifyIdToken, type TokenResponse } from "./oauth";
import { apiFamily, claimsFromScopes, requireProvider, scopesForClaims, type Identity, type ProviderConfig } from "./providers";
import { VaultError } from "./vault";

export const FLOW_TTL_MS = 10 * 60 * 1000;

/**
 * What a person can start. `narrow` removes permissions: `claims` are the ones to keep (at least one, fewer than
 * the account holds). A provider whose new token carries only what was asked (`incremental: "union"`) is simply
 * asked again for the remaining claims; one that merges every grant (`missing_only`, Google) would hand the
 * removed ones back, so the account's access there is revoked first and the person signs in again for the rest.
 * Stored as a `reconnect` flow whose claims are fewer than the account's: that is how the callback knows.
 */
export const startIntents = [...connectionIntents, "narrow"] as const;
export type StartIntent = (typeof startIntents)[number];

export const startConnectionBody = z.strictObject({
  intent: z.enum(startIntents).default("connect"),
  /** For connect: which provider. For upgrade/reconnect the account's provider is used. */
  provider: z.string().min(1).max(40).optional(),
  account_id: z.string().min(1).max(64).optional(),
  /** Claims wanted (connect: at least these; upgrade: the ones to add; narrow: the ones to keep). */
  claims: z.array(z.string().min(1).max(60)).max(20).default([]),
  label: z.string().trim().min(1).max(60).optional(),
  /** Same-origin path to come back to; anything else falls back to /connections. */
  return_to: z.string().max(2000).optional(),
});
export type StartConnectionBody = z.infer<typeof startConnectionBody>;

/** Errors of the callback carry `flow_error` (a stable code for the page) and, once known, where to return. */
export type FlowErrorCode =
  | "state_missing"
  | "state_invalid"
  | "state_reused"
  | "state_expired"
  | "provider_denied"
  | "provider_error"
  | "issuer_mismatch"
  | "code_rejected"
  | "id_token_invalid"
  | "account_mismatch";

function flowError(code: FlowErrorCode, message: string, returnTo?: string, cause?: unknown): AppError {
  return new AppError("invalid_input", message, { details: { flow_error: code, ...(returnTo ? { return_to: returnTo } : {}) }, cause });
}

const hashState = (state: string) => createHash("sha256").update(state, "utf8").digest("hex");
const union = (...lists: string[][]) => [...new Set(lists.flat())];

export type Started = { authorization_url: string; flow_id: string; expires_at: string; revoked_first?: boolean };

export async function startConnection(db: Db, who: Who, body: StartConnectionBody, now = new Date()): Promise<Started> {
  let provider: ProviderConfig;
  let account: ConnectedAccount | null = null;
  let scopes: string[];
  let claims: string[];
  if (body.intent === "connect") {
    if (!body.provider) throw new AppError("invalid_input", "Name the provider to connect.", { details: { field: "provider" } });
    provider = requireProvider(body.provider);
    const api = apiFamily(provider.api);
    claims = body.claims.length ? union(body.claims) : [api.claims[0]!.name];
    scopes = union(provider.baseScopes, scopesForClaims(api, claims));
  } else {
    if (!body.account_id) throw new AppError("invalid_input", `An ${body.intent} names the account.`, { details: { field: "account_id" } });
    account = await ownAccount(db, who, body.account_id);
    if (account.status === "revoked") throw new AppError("invalid_input", "That account was disconnected; connect it again instead.", { details: { account_id: account.id } });
    provider = requireProvider(account.provider);
    if (body.provider && body.provider !== provider.id) throw new AppError("invalid_input", "That account belongs to another provider.", { details: { provider: provider.id } });
    const api = apiFamily(provider.api);
    if (body.intent === "narrow") return startNarrowing(db, who, body, account, provider, now);
    const added = body.claims.filter((c) => !account!.claims.includes(c));
    if (body.intent === "upgrade" && added.length === 0) {
      throw new AppError("invalid_input", "The account already has every claim asked for.", { details: { account_id: account.id, claims: account.claims } });
    }
    claims = union(account.claims, added);
    const newScopes = scopesForClaims(api, added);
    // Incremental authorization: providers that merge grants are asked only for what is missing.
    scopes =
      body.intent === "upgrade" && provider.incremental === "missing_only"
        ? union(provider.baseScopes, newScopes)
        : union(provider.baseScopes, account.scopes.length ? account.scopes : scopesForClaims(api, account.claims), newScopes);
  }

  return recordFlow(db, who, { intent: body.intent, provider, account, scopes, claims, label: body.label, returnTo: body.return_to }, now);
}

/** Narrow: ask only for the claims kept (after revoking, where the provider would merge the old grant back). */
async function startNarrowing(db: Db, who: Who, body: StartConnectionBody, account: ConnectedAccount, provider: ProviderConfig, now: Date): Promise<Started> {
  const api = apiFamily(provider.api);
  const keep = union(body.claims);
  const unknown = keep.filter((c) => !account.claims.includes(c));
  if (keep.length === 0) throw new AppError("invalid_input", "Keep at least one permission; to remove them all, disconnect the account.", { details: { field: "claims" } });
  if (unknown.length) throw new AppError("invalid_input", "The account does not hold every permission named to keep.", { details: { field: "claims", claims: unknown } });
  if (keep.length === account.claims.length) throw new AppError("invalid_input", "Name fewer permissions than the account holds: the ones to keep.", { details: { field: "claims", claims: account.claims } });
  const removed = account.claims.filter((c) => !keep.includes(c));
  const scopes = union(provider.baseScopes, scopesForClaims(api, keep));
  const revokedFirst = narrowingOf(provider) === "revoke_first";
  if (revokedFirst) {
    // The provider would merge the earlier grant into the new token: end that grant first (an HTTP call, outside any
    // transaction), then the account waits for the person's sign-in with the remaining permissions.
    let revocation: "revoked" | "unsupported" | "failed" | "no_token" = "no_token";
    try {
      revocation = await revokeGrant(provider, openTokens(account));
    } catch (err) {
      if (!(err instanceof VaultError)) throw err;
    }
    if (revocation === "failed" || revocation === "unsupported") {
      throw new AppError("provider_unavailable", `${provider.label} could not be asked to take back the permission; nothing changed. Try again, or disconnect the account.`, {
        status: 502,
        details: { account_id: account.id, provider_revocation: revocation },
      });
    }
    await db.transaction(async (tx) => {
      await tx
        .update(connectedAccounts)
        .set({ status: "needs_reconnect", statusReason: "Removing a permission: sign in again to keep the others", secret: null, secretKid: null, tokenExpiresAt: null, version: sql`${connectedAccounts.version} + 1`, updatedAt: now })
        .where(and(eq(connectedAccounts.id, account.id), eq(connectedAccounts.tenantId, who.tenantId), eq(connectedAccounts.userId, who.userId)));
      await recordChange(tx, who, "account.needs_reconnect", {
        subjectId: account.id,
        reason: "narrowing",
        details: { provider: provider.id, label: account.label, removing: removed, keeping: keep, provider_revocation: revocation },
      });
    });
  }
  const flow = await recordFlow(db, who, { intent: "reconnect", provider, account, scopes, claims: keep, label: body.label, returnTo: body.return_to }, now);
  return { ...flow, ...(revokedFirst ? { revoked_first: true } : {}) };
}

type FlowInput = { intent: ConnectionIntent; provider: ProviderConfig; account: ConnectedAccount | null; scopes: string[]; claims: string[]; label?: string; returnTo?: string };

async function recordFlow(db: Db, who: Who, f: FlowInput, now: Date): Promise<Started> {
  const { provider, account, scopes, claims } = f;
  const body = { intent: f.intent, label: f.label, return_to: f.returnTo };
  const state = randomToken();
  const nonce = randomToken();
  const codeVerifier = randomToken();
  const id = newId("cfl");
  const expiresAt = new Date(now.getTime() + FLOW_TTL_MS);
  const url = await authorizationUrl(provider, { intent: body.intent, scopes, state, nonce, codeVerifier, account: account ? { externalId: account.externalId, email: account.email } : null });
  await db.transaction(async (tx) => {
    // Housekeeping: the person's finished or stale flows are no longer needed.
    await tx
      .delete(connectionFlows)
      .where(and(eq(connectionFlows.tenantId, who.tenantId), eq(connectionFlows.userId, who.userId), lt(connectionFlows.expiresAt, new Date(now.getTime() - FLOW_TTL_MS))));
    await tx.insert(connectionFlows).values({
      id,
      tenantId: who.tenantId,
      userId: who.userId,
      provider: provider.id,
      intent: body.intent,
      accountId: account?.id ?? null,
      stateHash: hashState(state),
      codeVerifier,
      nonce,
      scopes,
      claims,
      label: body.label ?? null,
      returnTo: safeReturnPath(body.return_to, "/connections"),
      createdAt: now,
      expiresAt,
    });
  });
  return { authorization_url: url, flow_id: id, expires_at: expiresAt.toISOString() };
}

export const callbackQuery = z.object({
  state: z.string().max(512).optional(),
  code: z.string().max(4096).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1000).optional(),
  iss: z.string().max(1000).optional(),
});
export type CallbackQuery = z.infer<typeof callbackQuery>;

/** `narrow`: a permission was removed; `narrow_kept`: the provider handed back a permission asked to be removed. */
export type Completed = { account: AccountView; intent: ConnectionIntent | "narrow" | "narrow_kept"; returnTo: string };

/** Take the flow named by `state`: exactly once, by its own person, before it expires. */
async function consumeFlow(db: Db, who: Who, state: string | undefined, now: Date): Promise<ConnectionFlow> {
  if (!state) throw flowError("state_missing", "The provider's answer carries no state; start again from the Connection Hub.");
  const h = hashState(state);
  const [taken] = await db
    .update(connectionFlows)
    .set({ consumedAt: now })
    .where(and(eq(connectionFlows.stateHash, h), eq(connectionFlows.tenantId, who.tenantId), eq(connectionFlows.userId, who.userId), isNull(connectionFlows.consumedAt), gt(connectionFlows.expiresAt, now)))
    .returning();
  if (taken) return taken;
  // Explain, but only to its own person: someone else's state is as unknown as a forged one.
  const [row] = await db.select().from(connectionFlows).where(and(eq(connectionFlows.stateHash, h), eq(connectionFlows.tenantId, who.tenantId), eq(connectionFlows.userId, who.userId)));
  if (!row) throw flowError("state_invalid", "This sign-in answer does not belong to a connection you started; start again from the Connection Hub.");
  if (row.consumedAt) throw flowError("state_reused", "This sign-in answer was already used; start again from the Connection Hub.", row.returnTo);
  throw flowError("state_expired", "This connection attempt took too long and expired; start again.", row.returnTo);
}

export async function completeConnection(db: Db, who: Who, q: CallbackQuery, now = new Date()): Promise<Completed> {
  const flow = await consumeFlow(db, who, q.state, now);
  const provider = requireProvider(flow.provider);
  // RFC 9207: an answer naming another issuer is a mix-up, whatever else it carries.
  if (q.iss !== undefined && q.iss.replace(/\/+$/, "") !== provider.issuer && !provider.issuerAliases.includes(q.iss)) {
    throw flowError("issuer_mismatch", `The answer did not come from ${provider.label}.`, flow.returnTo);
  }
  if (q.error) {
    const denied = q.error === "access_denied";
    throw flowError(denied ? "provider_denied" : "provider_error", denied ? `${provider.label} access was not granted; nothing changed.` : `${provider.label} refused the request (${q.error.slice(0, 60)}).`, flow.returnTo);
  }
  if (!q.code) throw flowError("provider_error", `${provider.label} answered without a code.`, flow.returnTo);

  let tokens: TokenResponse;
  try {
    tokens = await exchangeCode(provider, { code: q.code, codeVerifier: flow.codeVerifier });
  } catch (err) {
    if (err instanceof TokenGrantError) throw flowError("code_rejected", `${provider.label} did not accept the sign-in code (${err.error}); start again.`, flow.returnTo, err);
    throw err;
  }
  let identity: Identity;
  try {
    identity = await signedInAs(provider, tokens, flow);
  } catch (err) {
    if (err instanceof AppError && err.code === "invalid_input") throw flowError("id_token_invalid", err.message, flow.returnTo, err);
    throw err;
  }

  const api = apiFamily(provider.api);
  // Without a `scope` in the answer, the provider granted what was asked (RFC 6749 §5.1).
  const granted = tokens.scope ? tokens.scope.split(" ").filter(Boolean) : flow.scopes;
  const expiresAt = tokens.expires_in ? new Date(now.getTime() + tokens.expires_in * 1000) : null;

  // Tokens from a failed completion are dropped, not revoked: at providers that keep one grant per person
  // and client, revoking them would also end that person's other, working connection.
  return db.transaction(async (tx) => {
    const target = flow.accountId
      ? await ownAccount(tx, who, flow.accountId)
      : ((
          await tx
            .select()
            .from(connectedAccounts)
            .where(and(eq(connectedAccounts.tenantId, who.tenantId), eq(connectedAccounts.userId, who.userId), eq(connectedAccounts.provider, provider.id), eq(connectedAccounts.externalId, identity.sub)))
        )[0] ?? null);
    if (flow.accountId && target && target.externalId !== identity.sub) {
      throw flowError("account_mismatch", `You signed in to ${provider.label} as ${identity.label ?? identity.email ?? "another account"}, not ${accountName(target)}; nothing changed.`, flow.returnTo);
    }
    // A merging provider that did not echo the scopes still holds the earlier ones.
    const scopes = target && flow.intent === "upgrade" && provider.incremental === "missing_only" && !tokens.scope ? union(target.scopes, granted) : granted;
    const claims = claimsFromScopes(api, scopes);
    let previousRefresh: string | null = null;
    if (target?.secret) {
      try {
        previousRefresh = openTokens(target).refresh_token;
      } catch (err) {
        if (!(err instanceof VaultError)) throw err;
      }
    }
    const tokenSet = { access_token: tokens.access_token, refresh_token: tokens.refresh_token ?? previousRefresh };
    let row: ConnectedAccount;
    let event: AuditEventName;
    if (target) {
      const label = flow.label && flow.label !== target.label ? await uniqueLabel(tx, who, flow.label, target.id) : target.status === "revoked" ? await uniqueLabel(tx, who, target.label, target.id) : target.label;
      event = flow.intent === "upgrade" ? "account.upgraded" : target.status === "revoked" ? "account.connected" : "account.reconnected";
      [row] = await tx
        .update(connectedAccounts)
        .set({
          ...sealTokens(target, tokenSet),
          email: identity.email ?? target.email,
          label,
          scopes,
          claims,
          status: "active",
          statusReason: null,
          tokenExpiresAt: expiresAt,
          version: sql`${connectedAccounts.version} + 1`,
          updatedAt: now,
        })
        .where(and(eq(connectedAccounts.id, target.id), eq(connectedAccounts.tenantId, who.tenantId)))
        .returning() as [ConnectedAccount];
    } else {
      const id = newId("acc");
      const base = { id, tenantId: who.tenantId, userId: who.userId };
      event = "account.connected";
      [row] = await tx
        .insert(connectedAccounts)
        .values({
          ...base,
          ...sealTokens(base, tokenSet),
          provider: provider.id,
          api: provider.api,
          externalId: identity.sub,
          email: identity.email,
          label: await uniqueLabel(tx, who, flow.label ?? identity.label ?? identity.email ?? `${provider.label} account`, null),
          scopes,
          claims,
          status: "active",
          tokenExpiresAt: expiresAt,
          createdAt: now,
          updatedAt: now,
        })
        .returning() as [ConnectedAccount];
    }
    // A reconnect that asked for fewer claims than the account held is a narrowing (startNarrowing).
    const narrowed = target && flow.intent === "reconnect" && flow.claims.length < target.claims.length ? target.claims.filter((c) => !flow.claims.includes(c)) : null;
    const kept = narrowed ? narrowed.filter((c) => claims.includes(c)) : [];
    await recordChange(tx, who, event, {
      subjectId: row.id,
      details: { provider: provider.id, label: row.label, claims, intent: narrowed ? "narrow" : flow.intent, ...(narrowed ? { removed: narrowed.filter((c) => !claims.includes(c)), ...(kept.length ? { not_removed: kept } : {}) } : {}) },
    });
    return { account: accountView(row), intent: narrowed ? (kept.length ? "narrow_kept" : "narrow") : flow.intent, returnTo: flow.returnTo };
  });
}

/** Who signed in, by the provider's identity strategy: a verified ID token (required then), its userinfo endpoint, or its API. */
async function signedInAs(provider: ProviderConfig, tokens: TokenResponse, flow: ConnectionFlow): Promise<Identity> {
  const how = provider.identity;
  if (how.kind === "userinfo") return fetchUserinfo(provider, how.url, tokens.access_token, how.map);
  if (how.kind === "api") return identityFromApi(provider, tokens.access_token, how.resolve);
  if (!tokens.id_token) throw flowError("id_token_invalid", `${provider.label} did not say which account signed in.`, flow.returnTo);
  return verifyIdToken(provider, tokens.id_token, flow.nonce);
}

/** A label not used by the person's other live accounts (case-insensitive): `Work`, `Work 2`… */
async function uniqueLabel(tx: Tx, who: Pick<Who, "tenantId" | "userId">, wanted: string, selfId: string | null): Promise<string> {
  const rows = await tx
    .select({ label: connectedAccounts.label })
    .from(connectedAccounts)
    .where(
      and(
        eq(connectedAccounts.tenantId, who.tenantId),
        eq(connectedAccounts.userId, who.userId),
        ne(connectedAccounts.status, "revoked"),
        selfId ? ne(connectedAccounts.id, selfId) : undefined,
      ),
    );
  const taken = new Set(rows.map((r) => r.label.toLowerCase()));
  const base = wanted.trim().slice(0, 60) || "Account";
  if (!taken.has(base.toLowerCase())) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base} ${i}`.toLowerCase())) return `${base} ${i}`;
}
