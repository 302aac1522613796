// Redeeming a signed file URL: the signature and expiry first, then a fresh check that the caller named in
// the URL may still read the file. For an agent, the link follows the grant it was minted under: that grant must
// still be live and cover what the link was minted for (the object it was reached through, or what contains it —
// an export's document); a revoked grant or actor stops the link at once. Then the realm's own get (gate two)
// when the URL names an object, so an unshared document stops it too; otherwise only the file's owner may redeem
// it. Audited.
import { and, eq } from "drizzle-orm";
import type { Db, Tx } from "@/db/client";
import { actors, grants, memberships } from "@/db/schema";
import { recordAudit, type AuditPrincipal } from "@/lib/audit/record";
import { coversOperation, coversRef, isLive, isSuspended } from "@/lib/authz/gate";
import { readSwitches } from "@/lib/authz/gate-read";
import { deliveryPort, readFileRow } from "@/lib/delivery/files";
import { verifySignedUrl } from "@/lib/delivery/signed-urls";
import { env } from "@/lib/env";
import { AppError, isAppError } from "@/lib/errors";
import { isOperationKey, type Principal, type Realm, type RealmContext, type ResourceScope } from "@/lib/realms/contract";
import { settledWrites } from "@/lib/realms/settled";
import { namespaceOfRef } from "@/lib/realms/refs";
import { findRealm } from "@/lib/realms/registry";

type FileRow = NonNullable<Awaited<ReturnType<typeof readFileRow>>>;

export async function redeemFileUrl(
  db: Db,
  input: { fileId: string; method: string; path: string; by: string | null; exp: string | null; sig: string | null; ref?: string | null; grant?: string | null; op?: string | null; now?: Date },
) {
  const now = input.now ?? new Date();
  const { principalId, ref, grantId, operation } = verifySignedUrl({ ...input, now });
  return db.transaction(async (tx) => {
    const file = await readFileRow(tx, null, input.fileId);
    if (!file) throw new AppError("not_found", "No such file.");
    const gone = (why: string) => new AppError("forbidden", `You may no longer read this file: ${why}.`, { details: { file_id: file.id } });
    const principal = await principalFor(tx, file, principalId);
    if (!principal) throw gone("the caller it was issued to is gone");
    let scope: ResourceScope | null = null;
    if (principal.type === "actor") {
      const g = grantId ? await liveGrantOf(tx, file, principal, grantId, now) : null;
      if (!g) throw gone("the grant it was issued under has ended");
      if (operation && !(await operationStillOn(tx, file, principal, g, operation))) throw gone("the operation it was issued by is turned off or changed");
      scope = g.resourceScope ?? null;
    }
    if (ref) {
      if (!(await realmStillShows(tx, file, principal, ref, scope, now))) throw gone("the object it came from is no longer yours to read");
    } else {
      const authority = principal.type === "user" ? principal.userId : principal.grantorId;
      if (authority !== file.ownerUserId) throw gone("it belongs to someone else");
    }
    const audit: AuditPrincipal = principal.type === "user" ? principal : { type: "actor", actorId: principal.actorId, grantorId: principal.grantorId };
    await recordAudit(tx, {
      tenantId: file.tenantId,
      event: "url.redeemed",
      principal: audit,
      namespace: file.namespace,
      ref,
      outcome: "ok",
      subjectId: file.id,
      details: { size: file.size, ...(grantId ? { grant_id: grantId } : {}) },
    });
    return { name: file.name, contentType: file.contentType, bytes: file.content, sha256: file.sha256 };
  });
}

/** The user (still a member of the file's tenant) or the live actor the URL was minted for. */
async function principalFor(tx: Tx, file: FileRow, principalId: string): Promise<Principal | null> {
  if (principalId.startsWith("usr_")) {
    const [m] = await tx.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.tenantId, file.tenantId), eq(memberships.userId, principalId)));
    return m ? { type: "user", userId: principalId } : null;
  }
  const [actor] = await tx.select().from(actors).where(and(eq(actors.id, principalId), eq(actors.tenantId, file.tenantId)));
  if (!actor || actor.revokedAt) return null;
  return { type: "actor", actorId: actor.id, grantorId: actor.grantorId, actorKind: actor.kind };
}

/** The minting grant, read FOR SHARE like gate one does: the actor's own, in the file's realm, still live. */
async function liveGrantOf(tx: Tx, file: FileRow, principal: Extract<Principal, { type: "actor" }>, grantId: string, now: Date) {
  const [g] = await tx
    .select()
    .from(grants)
    .where(and(eq(grants.id, grantId), eq(grants.tenantId, file.tenantId), eq(grants.actorId, principal.actorId), eq(grants.namespace, file.namespace)))
    .for("share");
  return g && isLive(g, now) ? g : null;
}

/** The minting operation is still covered by the grant (not suspended) and not turned off by the ceiling or the grantor. */
async function operationStillOn(tx: Tx, file: FileRow, principal: Extract<Principal, { type: "actor" }>, g: typeof grants.$inferSelect, operation: string): Promise<boolean> {
  if (!isOperationKey(operation) || !coversOperation(g, operation) || isSuspended(g, operation)) return false;
  const { ceilingEnabled, choiceEnabled } = await readSwitches(tx, { tenantId: file.tenantId, grantorId: principal.grantorId, namespace: file.namespace, operation });
  return ceilingEnabled !== false && choiceEnabled !== false;
}

/** Ask the realm again: the minting grant's scope must reach the object (or what contains it), then its own get. */
async function realmStillShows(tx: Tx, file: FileRow, principal: Principal, ref: string, scope: ResourceScope | null, now: Date): Promise<boolean> {
  if (namespaceOfRef(ref) !== file.namespace) return false;
  const realm = await findRealm(tx, file.tenantId, file.namespace);
  if (!realm) return false;
  const delivery = deliveryPort(tx, {
    tenantId: file.tenantId,
    principalId: principal.type === "user" ? principal.userId : principal.actorId,
    audit: principal.type === "user" ? principal : { type: "actor", actorId: principal.actorId, grantorId: principal.grantorId },
    requestId: "redeem",
    appUrl: env().appUrl,
    now,
    checkOnly: true,
  });
  const settled = settledWrites();
  try {
    return await tx.transaction(async (sp) => {
      const ctx: RealmContext = { tx: sp, tenantId: file.tenantId, principal, requestId: "redeem", now, delivery, appUrl: env().appUrl, grantScope: scope, gateRef: async () => {}, settled: settled.add };
      if (scope && !(await scopeReaches(realm, ctx, scope, ref))) return false;
      await realm.adapter.get(ctx, { ref, full: false });
      return true;
    }).finally(() => settled.run(tx));
  } catch (err) {
    if (isAppError(err)) return false;
    throw err;
  }
}

async function scopeReaches(realm: Realm, ctx: RealmContext, scope: ResourceScope, ref: string): Promise<boolean> {
  const parsed = realm.adapter.parseRef(ref);
  if (coversRef(scope, ref, [], parsed)) return true;
  const lineage = realm.adapter.lineage ? ((await realm.adapter.lineage(ctx, { refs: [ref] }))[ref] ?? []) : [];
  return coversRef(scope, ref, lineage, parsed);
}

/** Redeem a signed URL as presented (path and query), e.g. from a route or a test. */
export function redeemSignedUrl(db: Db, url: string | URL, opts: { method?: string; now?: Date } = {}) {
  const u = new URL(url);
  const q = u.searchParams;
  return redeemFileUrl(db, {
    fileId: u.pathname.split("/").pop() ?? "",
    method: opts.method ?? "GET",
    path: u.pathname,
    by: q.get("by"),
    exp: q.get("exp"),
    sig: q.get("sig"),
    ref: q.get("ref"),
    grant: q.get("g"),
    op: q.get("op"),
    now: opts.now,
  });
}
