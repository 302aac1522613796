// The authorization server behind the MCP gateway (OAuth 2.1): checking an authorization request, the
// consent decision (a delegated `mcp_client` actor with exactly the approved grants), the code exchange with
// PKCE, rotating refresh tokens with reuse detection, revocation, and access-token authentication — which
// re-reads the actor and the token family on every request, so revoking either cuts the client off at once.
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Executor, Tx } from "@/db/client";
import { actors, grants, memberships, mcpAuthorizationCodes, mcpRefreshTokens } from "@/db/schema";
import { recordAudit, recordChange } from "@/lib/audit/record";
import { createActor } from "@/lib/authz/actors";
import type { ActorContext, UserContext } from "@/lib/authz/context";
import { createGrantTx, expiresAtFor, expiryChoices, type ExpiryChoice } from "@/lib/authz/grants";
import { operationStates } from "@/lib/authz/policy";
import { recordVoided, voidApprovalRows } from "@/lib/authz/void-approvals";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { riskOf, type OperationKey, type Risk } from "@/lib/realms/contract";
import { listRealms } from "@/lib/realms/registry";
import { redirectUriMatches, resolveClient, type ResolvedClient } from "./clients";
import {
  AUTHORIZATION_CODE_TTL_SECONDS,
  mcpResourceUrl,
  oauthIssuer,
  OPEN_ENDED_REFRESH_TTL_SECONDS,
  SCOPE_READ,
  SCOPE_WRITE,
  scopesSupported,
} from "./config";
import { OAuthProtocolError } from "./errors";
import { codeChallengeSchema, hashToken, mintAccessToken, newOpaqueToken, verifyAccessToken, verifyPkce, type ConsentRequest } from "./tokens";

// --- the authorization request ---------------------------------------------------------------------

export type AuthorizeParams = Record<string, string | string[] | undefined>;

export type AuthorizeCheck =
  | { ok: true; request: ConsentRequest; client: ResolvedClient }
  /** Shown to the person, never redirected: the client or its redirect URI cannot be trusted. */
  | { ok: false; show: { title: string; message: string } }
  /** Sent back to the client's (verified) redirect URI. */
  | { ok: false; redirect: string };

/** The access token's audience: the resource a client names must be this server's MCP URL. */
export function isOurResource(given: string): boolean {
  let u: URL;
  try {
    u = new URL(given);
  } catch {
    return false;
  }
  if (u.hash || u.search || given.includes("#")) return false;
  return `${u.origin}${u.pathname.replace(/\/+$/, "")}` === mcpResourceUrl();
}

/** Requested scopes we know; none asked means both may be offered (the person still picks operations). */
export function parseScopes(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === "") return [...scopesSupported];
  const known = raw.split(" ").filter((s) => (scopesSupported as readonly string[]).includes(s));
  return known.length ? [...new Set(known)] : null;
}

export function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

const single = (p: AuthorizeParams, k: string): string | undefined | "__many__" => {
  const v = p[k];
  return Array.isArray(v) ? (v.length === 1 ? v[0] : "__many__") : v;
};

/** What a support account is told on the authorize page, whether it arrives there or comes back to it. */
export const SUPPORT_CANNOT_CONNECT = "Your account cannot connect apps (support accounts review agents; they do not connect them).";

/**
 * The authorize page's check for one signed-in person. Support staff review agents and never connect apps, so
 * they are refused before anything else: checking the request would fetch the client's metadata document.
 */
export async function checkAuthorizationFor(db: Executor, who: { role: string }, params: AuthorizeParams, query: string, now = new Date()): Promise<AuthorizeCheck> {
  if (who.role === "support") {
    return { ok: false, show: { title: "Support accounts cannot connect apps", message: SUPPORT_CANNOT_CONNECT } };
  }
  return checkAuthorizationRequest(db, params, query, now);
}

/**
 * Check an authorization request in the order OAuth 2.1 §4.1.2.1 demands: until the client and its redirect
 * URI are verified, errors are shown here and never redirected; after that they go back to the client.
 */
export async function checkAuthorizationRequest(db: Executor, params: AuthorizeParams, query: string, now = new Date()): Promise<AuthorizeCheck> {
  const clientId = single(params, "client_id");
  if (!clientId || clientId === "__many__" || clientId.length > 2000) {
    return { ok: false, show: { title: "This connection request is incomplete", message: "It does not say which app is asking (client_id is missing or repeated). Start again from your app." } };
  }
  let client: ResolvedClient;
  try {
    client = await resolveClient(db, clientId, now);
  } catch (err) {
    if (!(err instanceof OAuthProtocolError)) throw err;
    return { ok: false, show: { title: "We could not identify the app asking for access", message: err.description } };
  }
  let redirectUri = single(params, "redirect_uri");
  if (redirectUri === undefined && client.redirectUris.length === 1) redirectUri = client.redirectUris[0]!;
  if (!redirectUri || redirectUri === "__many__" || !redirectUriMatches(client.redirectUris, redirectUri)) {
    return {
      ok: false,
      show: {
        title: "This connection request was stopped",
        message: `The address ${client.name} asked us to send you back to is not one it registered, so we will not send anything there. If you did not start this, you can close this page.`,
      },
    };
  }
  const state = single(params, "state");
  const back = (error: string, description: string): AuthorizeCheck => ({
    ok: false,
    redirect: redirectWith(redirectUri, { error, error_description: description, state: state === "__many__" ? undefined : state, iss: oauthIssuer() }),
  });
  if (state === "__many__" || (state !== undefined && state.length > 2000)) return back("invalid_request", "state is repeated or too long.");
  if (single(params, "response_type") !== "code") return back("unsupported_response_type", "Only response_type=code is supported.");
  const challenge = single(params, "code_challenge");
  if (!challenge || challenge === "__many__" || !codeChallengeSchema.safeParse(challenge).success) {
    return back("invalid_request", "A PKCE code_challenge (S256, 43 characters) is required.");
  }
  if (single(params, "code_challenge_method") !== "S256") return back("invalid_request", "code_challenge_method must be S256.");
  const rawScope = single(params, "scope");
  if (rawScope === "__many__") return back("invalid_scope", "scope is repeated.");
  const scopes = parseScopes(rawScope);
  if (!scopes) return back("invalid_scope", `Supported scopes: ${scopesSupported.join(", ")}.`);
  const resource = single(params, "resource");
  if (resource === "__many__" || (resource !== undefined && !isOurResource(resource))) {
    return back("invalid_target", `The resource must be this server's MCP URL, ${mcpResourceUrl()}.`);
  }
  return {
    ok: true,
    client,
    request: {
      client_id: client.clientId,
      client_name: client.name,
      redirect_uri: redirectUri,
      state: state ?? null,
      code_challenge: challenge,
      scopes,
      resource: mcpResourceUrl(),
      query,
    },
  };
}

// --- consent ---------------------------------------------------------------------------------------

export type OfferedOperation = {
  key: OperationKey;
  label: string;
  risk: Risk;
  /** Ticked by default: only the realm's describing operations (what it is, what it offers). */
  checked: boolean;
  /** Already granted to this app for this person: shown, not asked again. */
  approved: boolean;
  /** The owner requires an exact grant for it: never pre-ticked. */
  exactOnly: boolean;
};
export type ConsentOffer = {
  realms: { namespace: string; title: string; purpose: string; operations: OfferedOperation[] }[];
  /** Operations the person's workspace or own choices keep from agents: not offered. */
  unavailable: number;
  /** Write and destructive operations are offered only when the client asked for `realms:write`. */
  writeOffered: boolean;
  /** This person already connected this app: its actor is extended, not duplicated. */
  existingActorId: string | null;
  /** How many operations it already holds. */
  approvedCount: number;
};

/** Describing a realm is what an app needs first; nothing else is ticked for the person. */
const DISCOVERY = new Set<string>(["provider.about", "object.schema"]);

/** The live mcp_client actor this person made for this client, if any: a new authorization extends it. */
export async function existingClientActor(db: Executor, tenantId: string, grantorId: string, clientId: string) {
  const [row] = await db
    .select()
    .from(actors)
    .where(and(eq(actors.tenantId, tenantId), eq(actors.grantorId, grantorId), eq(actors.kind, "mcp_client"), eq(actors.clientId, clientId), isNull(actors.revokedAt)))
    .orderBy(sql`${actors.createdAt} desc`)
    .limit(1);
  return row ?? null;
}

/** `namespace operation` pairs an actor holds through live grants (suspended operations excepted). */
async function approvedPairs(db: Executor, tenantId: string, actorId: string, now = new Date()): Promise<Set<string>> {
  const rows = await db.select().from(grants).where(and(eq(grants.tenantId, tenantId), eq(grants.actorId, actorId), isNull(grants.revokedAt)));
  const out = new Set<string>();
  for (const g of rows) {
    if (g.expiresAt && g.expiresAt.getTime() <= now.getTime()) continue;
    for (const op of g.operations) if (!Object.hasOwn(g.suspensions ?? {}, op)) out.add(`${g.namespace} ${op}`);
    if (g.allActions) out.add(`${g.namespace} object.action.*`);
  }
  return out;
}

/**
 * What the person may approve: the operations their agents may effectively use. Only discovery is ticked; what
 * this app already holds (from an earlier authorization by this person) is shown as approved.
 */
export async function consentOffer(db: Executor, who: Pick<UserContext, "tenantId" | "userId">, scopes: string[], clientId?: string): Promise<ConsentOffer> {
  const writeOffered = scopes.includes(SCOPE_WRITE);
  const readOffered = scopes.includes(SCOPE_READ);
  const existing = clientId ? await existingClientActor(db, who.tenantId, who.userId, clientId) : null;
  const approved = existing ? await approvedPairs(db, who.tenantId, existing.id) : new Set<string>();
  const out: ConsentOffer = { realms: [], unavailable: 0, writeOffered, existingActorId: existing?.id ?? null, approvedCount: 0 };
  for (const realm of await listRealms(db, who.tenantId)) {
    const m = realm.manifest;
    const states = await operationStates(db, who.tenantId, who.userId, m.namespace);
    const exact = new Set(m.actions.filter((a) => a.exact_grant_only).map((a) => `object.action.${a.name}`));
    const operations: OfferedOperation[] = [];
    for (const s of states) {
      const risk = riskOf(m, s.operation);
      // Off, or asked each time (a grant never covers an operation in ask mode): not offered.
      if (s.mode !== "on") {
        out.unavailable++;
        continue;
      }
      const isApproved = approved.has(`${m.namespace} ${s.operation}`) || (s.operation.startsWith("object.action.") && !exact.has(s.operation) && approved.has(`${m.namespace} object.action.*`));
      if (!isApproved && (risk === "read" ? !readOffered : !writeOffered)) continue;
      if (isApproved) out.approvedCount++;
      const exactOnly = exact.has(s.operation);
      operations.push({
        key: s.operation,
        label: m.service_card.operation_labels[s.operation] ?? s.operation,
        risk,
        checked: !isApproved && !exactOnly && DISCOVERY.has(s.operation),
        approved: isApproved,
        exactOnly,
      });
    }
    if (operations.length) out.realms.push({ namespace: m.namespace, title: m.service_card.title, purpose: m.service_card.purpose, operations });
  }
  return out;
}

export const consentForm = z.object({
  request: z.string().min(1).max(20_000),
  decision: z.enum(["approve", "deny"]),
  expires: z.enum(expiryChoices).default("1d"),
  op: z.array(z.string().min(3).max(300)).max(2000).default([]),
});

export type ConsentOutcome = { redirect: string } | { retry: string };

type Who = Pick<UserContext, "tenantId" | "userId" | "role" | "requestId">;

/**
 * The person's decision. Approving creates a delegated `mcp_client` actor with exactly the chosen grants,
 * and a single-use code bound to the client, redirect URI, PKCE challenge and resource.
 */
/** How long an expired code or refresh token is kept (so a late replay still meets reuse detection). */
export const EXPIRED_OAUTH_ROW_GRACE_MS = 86_400_000;

/**
 * Housekeeping on each new authorization: codes and refresh tokens past their expiry by more than a day are
 * deleted. Whatever is deleted was already unusable; a replay of it is answered `invalid_grant` as unknown.
 */
export async function pruneExpiredOAuthRows(tx: Executor, now: Date): Promise<void> {
  const before = new Date(now.getTime() - EXPIRED_OAUTH_ROW_GRACE_MS);
  await tx.delete(mcpAuthorizationCodes).where(lt(mcpAuthorizationCodes.expiresAt, before));
  await tx.delete(mcpRefreshTokens).where(lt(mcpRefreshTokens.expiresAt, before));
}

export async function decideAuthorization(
  db: Db,
  who: Who,
  req: ConsentRequest,
  input: { decision: "approve" | "deny"; operations: string[]; expires: ExpiryChoice },
  now = new Date(),
): Promise<ConsentOutcome> {
  const back = (params: Record<string, string | null>) => redirectWith(req.redirect_uri, { ...params, state: req.state, iss: oauthIssuer() });
  if (input.decision === "deny") {
    await db.transaction((tx) =>
      recordChange(tx, who, "oauth.denied", {
        details: { client_id: req.client_id, client_name: req.client_name },
      }),
    );
    return { redirect: back({ error: "access_denied", error_description: "The person declined the connection." }) };
  }
  if (who.role === "support") throw new AppError("forbidden", "Support accounts review agents; they cannot connect them.");

  const offer = await consentOffer(db, who, req.scopes, req.client_id);
  const offered = new Map<string, OfferedOperation>(offer.realms.flatMap((r) => r.operations.map((o) => [`${r.namespace} ${o.key}`, o] as const)));
  const chosen = new Map<string, OperationKey[]>();
  const risks = new Set<Risk>();
  for (const o of offered.values()) if (o.approved) risks.add(o.risk);
  for (const pick of new Set(input.operations)) {
    const o = offered.get(pick);
    if (!o) throw new AppError("invalid_input", `"${pick.slice(0, 100)}" is not an operation you can approve here.`, { details: { operation: pick.slice(0, 300) } });
    risks.add(o.risk);
    if (o.approved) continue; // already held: nothing to add
    const [ns, op] = pick.split(" ") as [string, OperationKey];
    chosen.set(ns, [...(chosen.get(ns) ?? []), op]);
  }
  if (chosen.size === 0 && offer.approvedCount === 0) return { retry: `/oauth/authorize?${req.query}${req.query ? "&" : ""}notice=empty` };

  // The token's scope follows what the app may do now — what it held plus what was just approved — within what it asked.
  const scopes = [
    ...(risks.has("read") && req.scopes.includes(SCOPE_READ) ? [SCOPE_READ] : []),
    ...((risks.has("write") || risks.has("destructive")) && req.scopes.includes(SCOPE_WRITE) ? [SCOPE_WRITE] : []),
  ];
  if (scopes.length === 0) scopes.push(...req.scopes.filter((s) => s === SCOPE_READ));
  const expiresAt = expiresAtFor(input.expires, now);
  const code = newOpaqueToken("rgc");
  await db.transaction(async (tx) => {
    // The actor, its grants and the code commit together: no half-approved client is left behind. The same app
    // authorized again by the same person extends its actor (its earlier grants stay), never a second one.
    const existing = offer.existingActorId ? await existingClientActor(tx, who.tenantId, who.userId, req.client_id) : null;
    const actor =
      existing ??
      (
        await createActor(
          tx,
          who,
          { name: req.client_name.slice(0, 80), kind: "mcp_client", issue_token: false, token_expires_in_days: null },
          { clientId: req.client_id },
        )
      ).actor;
    const grantIds: string[] = [];
    for (const [namespace, operations] of chosen) {
      const g = await createGrantTx(tx, who, { actorId: actor.id, namespace, operations, resourceScope: null, expiresAt });
      grantIds.push(g.id);
    }
    await pruneExpiredOAuthRows(tx, now);
    const codeId = newId("cod");
    await tx.insert(mcpAuthorizationCodes).values({
      id: codeId,
      tenantId: who.tenantId,
      codeHash: hashToken(code),
      clientId: req.client_id,
      actorId: actor.id,
      grantorId: who.userId,
      redirectUri: req.redirect_uri,
      codeChallenge: req.code_challenge,
      resource: req.resource,
      scope: scopes.join(" "),
      expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000),
      createdAt: now,
    });
    await recordChange(tx, who, "oauth.authorized", {
      subjectId: actor.id,
      details: { client_id: req.client_id, client_name: req.client_name, grants: grantIds, scope: scopes.join(" "), expires_at: expiresAt?.toISOString() ?? null, extended: existing !== null },
    });
  });
  return { redirect: back({ code }) };
}

// --- the token endpoint ----------------------------------------------------------------------------

export type TokenResponse = { access_token: string; token_type: "Bearer"; expires_in: number; refresh_token: string; scope: string };

/** Form parameters, each at most once (RFC 6749 §3.2). */
function formParams(form: URLSearchParams, names: readonly string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const n of names) {
    const all = form.getAll(n);
    if (all.length > 1) throw new OAuthProtocolError("invalid_request", `${n} must not be repeated.`);
    const v = all[0];
    if (v !== undefined && v.length > 4096) throw new OAuthProtocolError("invalid_request", `${n} is too long.`);
    out[n] = v === "" ? undefined : v;
  }
  return out;
}

export async function tokenRequest(db: Db, form: URLSearchParams, now = new Date()): Promise<TokenResponse> {
  const p = formParams(form, ["grant_type", "code", "redirect_uri", "client_id", "code_verifier", "refresh_token", "resource", "scope", "client_secret"]);
  if (p.client_secret) throw new OAuthProtocolError("invalid_client", "This server issues no client secrets; public clients authenticate with PKCE.");
  if (!p.client_id) throw new OAuthProtocolError("invalid_request", "client_id is required.");
  if (p.resource !== undefined && !isOurResource(p.resource)) throw new OAuthProtocolError("invalid_target", `The resource must be ${mcpResourceUrl()}.`);
  if (p.grant_type === "authorization_code") {
    if (!p.code || !p.code_verifier || !p.redirect_uri) throw new OAuthProtocolError("invalid_request", "code, code_verifier and redirect_uri are required.");
    return exchangeCode(db, { code: p.code, clientId: p.client_id, redirectUri: p.redirect_uri, codeVerifier: p.code_verifier }, now);
  }
  if (p.grant_type === "refresh_token") {
    if (!p.refresh_token) throw new OAuthProtocolError("invalid_request", "refresh_token is required.");
    return refresh(db, { refreshToken: p.refresh_token, clientId: p.client_id, scope: p.scope }, now);
  }
  throw new OAuthProtocolError("unsupported_grant_type", "Supported grant types: authorization_code, refresh_token.");
}

type Outcome<T> = { ok: T } | { fail: OAuthProtocolError };

/** Transactions that must commit a revocation and still refuse return the refusal instead of throwing it. */
async function settle<T>(p: Promise<Outcome<T>>): Promise<T> {
  const r = await p;
  if ("fail" in r) throw r.fail;
  return r.ok;
}

const invalidGrant = (why: string) => ({ fail: new OAuthProtocolError("invalid_grant", why) });

export async function exchangeCode(db: Db, p: { code: string; clientId: string; redirectUri: string; codeVerifier: string }, now = new Date()) {
  return settle(
    db.transaction(async (tx): Promise<Outcome<TokenResponse>> => {
      const [row] = await tx.select().from(mcpAuthorizationCodes).where(eq(mcpAuthorizationCodes.codeHash, hashToken(p.code))).for("update");
      if (!row) return invalidGrant("The authorization code is unknown.");
      if (row.usedAt) {
        // A replayed code means it leaked: whatever it produced is revoked (OAuth 2.1 §4.1.3).
        if (row.familyId) await revokeFamily(tx, row.tenantId, row.familyId, "authorization code reused", now);
        return invalidGrant("The authorization code was already used.");
      }
      // Single use whatever happens: this attempt burns the code, and the refusals below commit with it.
      const familyId = newId("rft");
      await tx.update(mcpAuthorizationCodes).set({ usedAt: now }).where(eq(mcpAuthorizationCodes.id, row.id));
      if (row.expiresAt.getTime() <= now.getTime()) return invalidGrant("The authorization code has expired.");
      if (row.clientId !== p.clientId) return invalidGrant("The authorization code was issued to another client.");
      if (row.redirectUri !== p.redirectUri) return invalidGrant("redirect_uri does not match the authorization request.");
      if (!verifyPkce(p.codeVerifier, row.codeChallenge)) return invalidGrant("The PKCE code_verifier does not match the code_challenge.");
      await tx.update(mcpAuthorizationCodes).set({ familyId }).where(eq(mcpAuthorizationCodes.id, row.id));
      const refreshExpiresAt = await refreshExpiry(tx, row.tenantId, row.actorId, now);
      if (!refreshExpiresAt || !(await liveActor(tx, row.tenantId, row.actorId, row.clientId))) return invalidGrant("The approval behind this code was revoked or has expired.");
      const tokens = await issueTokens(tx, { tenantId: row.tenantId, actorId: row.actorId, clientId: row.clientId, familyId, scope: row.scope, resource: row.resource, refreshExpiresAt }, now);
      await recordAudit(tx, {
        tenantId: row.tenantId,
        event: "oauth.token_issued",
        principal: { type: "actor", actorId: row.actorId, grantorId: row.grantorId },
        outcome: "ok",
        subjectId: familyId,
        details: { client_id: row.clientId, scope: row.scope, grant_type: "authorization_code" },
      });
      return { ok: tokens };
    }),
  );
}

export async function refresh(db: Db, p: { refreshToken: string; clientId: string; scope?: string }, now = new Date()) {
  return settle(
    db.transaction(async (tx): Promise<Outcome<TokenResponse>> => {
      const [row] = await tx.select().from(mcpRefreshTokens).where(eq(mcpRefreshTokens.tokenHash, hashToken(p.refreshToken))).for("update");
      if (!row) return invalidGrant("The refresh token is unknown.");
      if (row.revokedAt) return invalidGrant("The refresh token was revoked.");
      if (row.rotatedAt) {
        // Reuse of a rotated token: either the client or a thief holds a stale copy. Revoke the whole family.
        await revokeFamily(tx, row.tenantId, row.familyId, "refresh token reused", now);
        return invalidGrant("The refresh token was already used; every token of this connection is now revoked.");
      }
      if (row.expiresAt.getTime() <= now.getTime()) return invalidGrant("The refresh token has expired.");
      if (row.clientId !== p.clientId) return invalidGrant("The refresh token was issued to another client.");
      if (row.stepUpScope) {
        // The step-up signal: a call needed more than this connection holds. Refreshing would only renew what is
        // too little, so the family ends and the client authorizes again with the scope it was told.
        await revokeFamily(tx, row.tenantId, row.familyId, "step-up: authorize again", now);
        return invalidGrant(`step_up_required: this connection needs scope "${row.stepUpScope}"; start a new authorization asking for it.`);
      }
      let scope = row.scope;
      if (p.scope !== undefined) {
        const had = new Set(row.scope.split(" "));
        const asked = p.scope.split(" ").filter(Boolean);
        if (asked.length === 0 || asked.some((s) => !had.has(s))) return { fail: new OAuthProtocolError("invalid_scope", "A refresh may only narrow the scope.") };
        scope = [...new Set(asked)].join(" ");
      }
      const refreshExpiresAt = await refreshExpiry(tx, row.tenantId, row.actorId, now);
      if (!refreshExpiresAt || !(await liveActor(tx, row.tenantId, row.actorId, row.clientId))) return invalidGrant("The approval behind this token was revoked or has expired.");
      await tx.update(mcpRefreshTokens).set({ rotatedAt: now }).where(eq(mcpRefreshTokens.id, row.id));
      return { ok: await issueTokens(tx, { tenantId: row.tenantId, actorId: row.actorId, clientId: row.clientId, familyId: row.familyId, scope, resource: row.resource, refreshExpiresAt }, now) };
    }),
  );
}

async function issueTokens(
  tx: Tx,
  t: { tenantId: string; actorId: string; clientId: string; familyId: string; scope: string; resource: string; refreshExpiresAt: Date },
  now: Date,
): Promise<TokenResponse> {
  const refreshToken = newOpaqueToken("rgr");
  await tx.insert(mcpRefreshTokens).values({
    id: newId("rft"),
    tenantId: t.tenantId,
    familyId: t.familyId,
    tokenHash: hashToken(refreshToken),
    clientId: t.clientId,
    actorId: t.actorId,
    resource: t.resource,
    scope: t.scope,
    expiresAt: t.refreshExpiresAt,
    createdAt: now,
  });
  const scopes = t.scope.split(" ").filter(Boolean);
  const access = await mintAccessToken({ actorId: t.actorId, tenantId: t.tenantId, clientId: t.clientId, familyId: t.familyId, scopes }, { now });
  return { access_token: access.token, token_type: "Bearer", expires_in: access.expiresIn, refresh_token: refreshToken, scope: t.scope };
}

/** Refresh tokens live as long as the actor's longest live grant; open-ended grants give a sliding window. Null: nothing left. */
async function refreshExpiry(tx: Executor, tenantId: string, actorId: string, now: Date): Promise<Date | null> {
  const live = (await tx.select({ expiresAt: grants.expiresAt }).from(grants).where(and(eq(grants.tenantId, tenantId), eq(grants.actorId, actorId), isNull(grants.revokedAt)))).filter(
    (g) => g.expiresAt === null || g.expiresAt.getTime() > now.getTime(),
  );
  if (live.length === 0) return null;
  if (live.some((g) => g.expiresAt === null)) return new Date(now.getTime() + OPEN_ENDED_REFRESH_TTL_SECONDS * 1000);
  return new Date(Math.max(...live.map((g) => g.expiresAt!.getTime())));
}

async function liveActor(tx: Executor, tenantId: string, actorId: string, clientId: string) {
  const [row] = await tx
    .select({ id: actors.id })
    .from(actors)
    .innerJoin(memberships, and(eq(memberships.tenantId, actors.tenantId), eq(memberships.userId, actors.grantorId)))
    .where(and(eq(actors.id, actorId), eq(actors.tenantId, tenantId), eq(actors.kind, "mcp_client"), eq(actors.clientId, clientId), isNull(actors.revokedAt)));
  return Boolean(row);
}

export async function revokeFamily(tx: Executor, tenantId: string, familyId: string, reason: string, now = new Date()) {
  const revoked = await tx
    .update(mcpRefreshTokens)
    .set({ revokedAt: now, revokeReason: reason })
    .where(and(eq(mcpRefreshTokens.tenantId, tenantId), eq(mcpRefreshTokens.familyId, familyId), isNull(mcpRefreshTokens.revokedAt)))
    .returning({ id: mcpRefreshTokens.id });
  // What this connection asked a person to approve no longer counts: a new connection asks again. Locked before
  // the audit head (lock order: lib/authz/void-approvals.ts).
  const why = `the connection's tokens were revoked (${reason})`;
  const voided = await voidApprovalRows(tx, tenantId, { credentialId: familyId }, why);
  if (revoked.length) {
    await recordAudit(tx, { tenantId, event: "oauth.tokens_revoked", principal: { type: "system" }, outcome: "ok", subjectId: familyId, reason, details: { refresh_tokens: revoked.length } });
  }
  await recordVoided(tx, tenantId, voided, why);
}

/**
 * A call on this connection needed `scope`, which it lacks: mark the family so its next refresh answers
 * invalid_grant — the signal for the client to discard its tokens and authorize again with that scope.
 */
export async function requestStepUp(db: Executor, tenantId: string, familyId: string, scope: string): Promise<void> {
  await db
    .update(mcpRefreshTokens)
    .set({ stepUpScope: scope.slice(0, 200) })
    .where(and(eq(mcpRefreshTokens.tenantId, tenantId), eq(mcpRefreshTokens.familyId, familyId), isNull(mcpRefreshTokens.revokedAt)));
}

/** RFC 7009: revoke the family of a refresh or access token. Unknown tokens are not an error. */
export async function revokeToken(db: Db, token: string, clientId: string | undefined, now = new Date()): Promise<void> {
  let target: { tenantId: string; familyId: string; clientId: string } | null = null;
  const [row] = await db.select().from(mcpRefreshTokens).where(eq(mcpRefreshTokens.tokenHash, hashToken(token)));
  if (row) target = row;
  else {
    const claims = await verifyAccessToken(token, now).catch(() => null);
    if (claims) target = claims;
  }
  if (!target || (clientId && clientId !== target.clientId)) return;
  const t = target;
  await db.transaction((tx) => revokeFamily(tx, t.tenantId, t.familyId, "revoked by the client", now));
}

// --- authenticating MCP requests -------------------------------------------------------------------

/**
 * The actor behind an access token: the token must verify (key, audience, expiry), and the actor must still be
 * live, its grantor still a member, and its token family unrevoked — read now, on every request.
 * Returns null when any of that no longer holds; throws TokenRejected for a bad token.
 */
export async function actorForAccessToken(db: Executor, token: string, requestId: string, now = new Date()): Promise<{ auth: ActorContext; scopes: string[] } | null> {
  const c = await verifyAccessToken(token, now);
  const [row] = await db
    .select({ actor: actors })
    .from(actors)
    .innerJoin(memberships, and(eq(memberships.tenantId, actors.tenantId), eq(memberships.userId, actors.grantorId)))
    .where(
      and(
        eq(actors.id, c.actorId),
        eq(actors.tenantId, c.tenantId),
        eq(actors.kind, "mcp_client"),
        eq(actors.clientId, c.clientId),
        isNull(actors.revokedAt),
        sql`exists (select 1 from ${mcpRefreshTokens} where ${mcpRefreshTokens.familyId} = ${c.familyId} and ${mcpRefreshTokens.tenantId} = ${c.tenantId} and ${mcpRefreshTokens.revokedAt} is null)`,
      ),
    );
  if (!row) return null;
  const a = row.actor;
  if (!a.lastUsedAt || now.getTime() - a.lastUsedAt.getTime() > 60_000) await db.update(actors).set({ lastUsedAt: now }).where(eq(actors.id, a.id));
  return {
    auth: { kind: "actor", tenantId: a.tenantId, actorId: a.id, actorKind: a.kind, actorName: a.name, grantorId: a.grantorId, via: "mcp_oauth", credentialId: c.familyId, requestId },
    scopes: c.scopes,
  };
}
