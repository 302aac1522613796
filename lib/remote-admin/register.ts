// Registering remote providers (owners): by URL from the owner, or by the provider itself with a one-time
// registration token an owner minted. Either way the manifest is fetched and validated before anything is written
// (a manifest that fails registers nothing; the answer lists every problem), then the registration row, its sealed
// secret and the audit record land in one transaction. The secret is returned once (docs/provider-protocol.md).
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { consentRequests, grants, memberships, remoteProviders, remoteRegistrationTokens, workingSetTools } from "@/db/schema";
import { recordAudit, recordChange } from "@/lib/audit/record";
import type { UserContext } from "@/lib/authz/context";
import { takeTurnsOf } from "@/lib/authz/grant-turns";
import { hashSecret, newSecret } from "@/lib/authz/secrets";
import { recordVoided, voidApprovalRows } from "@/lib/authz/void-approvals";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { builtInRealms, findRealm } from "@/lib/realms/registry";
import { breakerState } from "@/lib/remote/breaker";
import { checkBaseUrl, fetchManifestDocument } from "@/lib/remote/client";
import { checkManifestDocument, MAX_MANIFEST_BYTES } from "@/lib/remote/manifest";
import { refreshManifest } from "@/lib/remote/refresh";
import { providerById, providerRows, sealSecret, type RemoteProvider } from "@/lib/remote/store";
import type { RealmManifest } from "@/lib/realms/contract";

export const TOKEN_TTL_MS = 60 * 60 * 1000;
export const registerBody = z.strictObject({ url: z.string().trim().min(1).max(2000) });

export type ProviderView = {
  id: string;
  namespace: string;
  title: string;
  url: string;
  manifest_version: string;
  status: "active" | "unavailable";
  status_reason: string | null;
  breaker: "closed" | "open";
  registered_via: string;
  kinds: number;
  actions: number;
  created_at: string;
  updated_at: string;
};

export function providerView(row: RemoteProvider): ProviderView {
  const m = row.manifest as RealmManifest;
  return {
    id: row.id,
    namespace: row.namespace,
    title: m.service_card.title,
    url: row.baseUrl,
    manifest_version: row.manifestVersion,
    status: row.status,
    status_reason: row.statusReason,
    breaker: breakerState(row.id),
    registered_via: row.registeredVia,
    kinds: m.kinds.length,
    actions: m.actions.length,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Fetch and check a provider's manifest: the manifest, or invalid_input listing every problem (nothing is written). */
async function checkedManifest(url: string) {
  const check = checkManifestDocument(await fetchManifestDocument(url, MAX_MANIFEST_BYTES));
  if (!check.ok) {
    throw new AppError("invalid_input", `The provider's manifest does not meet the provider protocol (${check.problems.length} problem${check.problems.length === 1 ? "" : "s"}); nothing was registered.`, {
      details: { field: "manifest", problems: check.problems, protocol: "docs/provider-protocol.md" },
    });
  }
  return check;
}

type Registrant = { tenantId: string; userId: string; requestId: string | null };

async function insertProvider(db: Db, who: Registrant, url: string, via: "owner" | "token", tokenId: string | null) {
  const check = await checkedManifest(url);
  const ns = check.manifest.namespace;
  const secret = newSecret("rgs");
  const id = newId("rrp");
  const row = await db.transaction(async (tx) => {
    if (Object.hasOwn(builtInRealms, ns)) throw new AppError("conflict", `"${ns}" is a built-in realm; the provider must use another namespace.`, { details: { namespace: ns } });
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`realm-namespace|${who.tenantId}|${ns}`}, 0))`);
    if (await findRealm(tx, who.tenantId, ns)) throw new AppError("conflict", `The namespace "${ns}" is taken by another realm of this workspace.`, { details: { namespace: ns } });
    const [inserted] = await tx
      .insert(remoteProviders)
      .values({ id, tenantId: who.tenantId, namespace: ns, baseUrl: url, manifest: check.manifest, manifestVersion: check.manifestVersion, secretSealed: sealSecret(who.tenantId, id, secret), registeredBy: who.userId, registeredVia: via })
      .returning();
    // The token is used up in the same transaction (a concurrent second use waits, then finds it used).
    if (tokenId) {
      const used = await tx
        .update(remoteRegistrationTokens)
        .set({ usedAt: new Date(), providerId: id })
        .where(and(eq(remoteRegistrationTokens.id, tokenId), isNull(remoteRegistrationTokens.usedAt), gt(remoteRegistrationTokens.expiresAt, new Date())))
        .returning({ id: remoteRegistrationTokens.id });
      if (!used.length) throw tokenRefused();
    }
    await recordChange(tx, who, "remote_provider.registered", {
      namespace: ns,
      subjectId: id,
      details: { url, via, manifest_version: check.manifestVersion, kinds: check.manifest.kinds.map((k) => k.name), actions: check.manifest.actions.map((a) => a.name) },
    });
    return inserted!;
  });
  return { provider: providerView(row), secret, tenant_id: who.tenantId };
}

/** The owner registers a provider by URL; the answer carries the secret once. */
export async function registerByUrl(db: Db, who: UserContext, body: z.infer<typeof registerBody>) {
  return insertProvider(db, { tenantId: who.tenantId, userId: who.userId, requestId: who.requestId ?? null }, checkBaseUrl(body.url), "owner", null);
}

/** A one-time registration token (shown once; only its hash is kept), valid one hour. */
export async function mintRegistrationToken(db: Db, who: UserContext) {
  const token = newSecret("rgr");
  const expiresAt = new Date(Date.now() + TOKEN_TTL_MS);
  const id = newId("rrt");
  await db.transaction(async (tx) => {
    await tx.insert(remoteRegistrationTokens).values({ id, tenantId: who.tenantId, tokenHash: hashSecret(token), createdBy: who.userId, expiresAt });
    await recordChange(tx, { tenantId: who.tenantId, userId: who.userId, requestId: who.requestId ?? null }, "remote_provider.token_minted", { subjectId: id, details: { expires_at: expiresAt.toISOString() } });
  });
  return { token, expires_at: expiresAt.toISOString(), register_url: "/api/v1/remote-providers/register" };
}

const tokenRefused = () =>
  new AppError("unauthenticated", "This registration token is unknown, already used or expired; ask a workspace owner for a new one.", { details: { reason: "registration_token" } });

/** The provider registers itself with a one-time token (Authorization: Bearer rgr_…); the token is used up. */
export async function registerWithToken(db: Db, authorization: string | null, body: z.infer<typeof registerBody>, requestId: string | null) {
  const token = /^Bearer (rgr_[A-Za-z0-9_-]{20,100})$/.exec(authorization ?? "")?.[1];
  if (!token) throw tokenRefused();
  const [t] = await db
    .select({ id: remoteRegistrationTokens.id, tenantId: remoteRegistrationTokens.tenantId, createdBy: remoteRegistrationTokens.createdBy, role: memberships.role })
    .from(remoteRegistrationTokens)
    .leftJoin(memberships, and(eq(memberships.tenantId, remoteRegistrationTokens.tenantId), eq(memberships.userId, remoteRegistrationTokens.createdBy)))
    .where(and(eq(remoteRegistrationTokens.tokenHash, hashSecret(token)), isNull(remoteRegistrationTokens.usedAt), gt(remoteRegistrationTokens.expiresAt, new Date())))
    .limit(1);
  // The owner who minted it must still be one.
  if (!t || t.role !== "owner") throw tokenRefused();
  return insertProvider(db, { tenantId: t.tenantId, userId: t.createdBy, requestId }, checkBaseUrl(body.url), "token", t.id);
}

export async function listProviders(db: Db, who: UserContext): Promise<ProviderView[]> {
  return (await providerRows(db, who.tenantId)).map(providerView);
}

async function requireProvider(db: Db, who: UserContext, id: string): Promise<RemoteProvider> {
  const row = await providerById(db, who.tenantId, id);
  if (!row) throw new AppError("not_found", "No such remote provider in this workspace.", { details: { id: id.slice(0, 80) } });
  return row;
}

export async function getProvider(db: Db, who: UserContext, id: string): Promise<ProviderView> {
  return providerView(await requireProvider(db, who, id));
}

/** Fetch and validate the manifest now (an owner's "check again"): stored and audited as a call's refresh is. */
export async function recheckProvider(db: Db, who: UserContext, id: string) {
  const row = await requireProvider(db, who, id);
  const outcome = await db.transaction((tx) => refreshManifest(tx, row, { type: "user", userId: who.userId }, who.requestId ?? null));
  return { ...outcome, provider: providerView((await providerById(db, who.tenantId, id))!) };
}

/**
 * Remove a registration: the realm goes with it, and so does everything people approved for it — its grants are
 * revoked (links they minted die with them), waiting approvals voided, pending consent requests lapse, agents' exact tools
 * of it dropped — so whatever registers that namespace later starts from nothing, in the same transaction.
 */
export async function removeProvider(db: Db, who: UserContext, id: string) {
  return db.transaction(async (tx) => {
    const notFound = () => new AppError("not_found", "No such remote provider in this workspace.", { details: { id: id.slice(0, 80) } });
    const [found] = await tx.select({ namespace: remoteProviders.namespace }).from(remoteProviders).where(and(eq(remoteProviders.tenantId, who.tenantId), eq(remoteProviders.id, id)));
    if (!found) throw notFound();
    // The turns of the actors holding its grants before any row is locked (lib/authz/grant-turns.ts): their calls
    // from now on wait for this removal.
    const holders = await tx.selectDistinct({ actorId: grants.actorId }).from(grants).where(and(eq(grants.tenantId, who.tenantId), eq(grants.namespace, found.namespace), isNull(grants.revokedAt)));
    await takeTurnsOf(tx, holders.map((h) => h.actorId));
    const [row] = await tx.delete(remoteProviders).where(and(eq(remoteProviders.tenantId, who.tenantId), eq(remoteProviders.id, id))).returning();
    if (!row) throw notFound(); // removed by someone else meanwhile
    const ns = row.namespace;
    const revoked = await tx
      .update(grants)
      .set({ revokedAt: new Date(), revokedBy: who.userId, revokeReason: "provider_removed" })
      .where(and(eq(grants.tenantId, who.tenantId), eq(grants.namespace, ns), isNull(grants.revokedAt)))
      .returning({ id: grants.id, actorId: grants.actorId, operations: grants.operations });
    // Every row this locks is locked before its first audit record (lock order: lib/authz/void-approvals.ts).
    const voidedRows = await voidApprovalRows(tx, who.tenantId, { namespace: ns }, "provider_removed");
    const voided = voidedRows.length;
    const closed = await tx
      .update(consentRequests)
      .set({ expiresAt: new Date() })
      .where(and(eq(consentRequests.tenantId, who.tenantId), eq(consentRequests.namespace, ns), eq(consentRequests.status, "pending"), or(isNull(consentRequests.expiresAt), gt(consentRequests.expiresAt, new Date()))))
      .returning({ id: consentRequests.id });
    await tx.delete(workingSetTools).where(and(eq(workingSetTools.tenantId, who.tenantId), eq(workingSetTools.namespace, ns)));
    const by = { tenantId: who.tenantId, userId: who.userId, requestId: who.requestId ?? null };
    for (const g of revoked) await recordChange(tx, by, "grant.revoked", { namespace: ns, subjectId: g.id, reason: "provider_removed", details: { actor_id: g.actorId, operations: g.operations } });
    await recordVoided(tx, who.tenantId, voidedRows, "provider_removed", who.requestId ?? null);
    await recordAudit(tx, {
      tenantId: who.tenantId,
      event: "remote_provider.removed",
      principal: { type: "user", userId: who.userId },
      requestId: who.requestId ?? null,
      namespace: ns,
      outcome: "ok",
      subjectId: row.id,
      details: { url: row.baseUrl, grants_revoked: revoked.length, approvals_voided: voided, consent_requests_closed: closed.length },
    });
    return { removed: true, id: row.id, namespace: ns, grants_revoked: revoked.length, approvals_voided: voided, consent_requests_closed: closed.length };
  });
}
