// Redeeming a signed file URL: the signature and expiry first, then a fresh check that the caller named in
// the URL may still read the file — a revoked actor, a revoked grant, or an object no longer shared stops the
// download too. When the URL names the object it was reached through, that realm is asked again (gate one for
// agents, then the realm's own get); otherwise only the file's owner may redeem it. Audited.
import { and, eq } from "drizzle-orm";
import type { Db, Tx } from "@/db/client";
import { actors, memberships } from "@/db/schema";
import { recordAudit, type AuditPrincipal } from "@/lib/audit/record";
import { readAndDecideGateOne } from "@/lib/authz/gate-read";
import { deliveryPort, readFileRow } from "@/lib/delivery/files";
import { verifySignedUrl } from "@/lib/delivery/signed-urls";
import { env } from "@/lib/env";
import { AppError, isAppError } from "@/lib/errors";
import type { Principal, RealmContext } from "@/lib/realms/contract";
import { namespaceOfRef } from "@/lib/realms/refs";
import { findRealm } from "@/lib/realms/registry";

type FileRow = NonNullable<Awaited<ReturnType<typeof readFileRow>>>;

export async function redeemFileUrl(
  db: Db,
  input: { fileId: string; method: string; path: string; by: string | null; exp: string | null; sig: string | null; ref?: string | null; now?: Date },
) {
  const now = input.now ?? new Date();
  const { principalId, ref } = verifySignedUrl({ ...input, now });
  return db.transaction(async (tx) => {
    const file = await readFileRow(tx, null, input.fileId);
    if (!file) throw new AppError("not_found", "No such file.");
    const gone = () => new AppError("forbidden", "You may no longer read this file.", { details: { file_id: file.id } });
    const principal = await principalFor(tx, file, principalId);
    if (!principal) throw gone();
    if (ref) {
      if (!(await realmStillShows(tx, file, principal, ref, now))) throw gone();
    } else {
      const authority = principal.type === "user" ? principal.userId : principal.grantorId;
      if (authority !== file.ownerUserId) throw gone();
      if (principal.type === "actor") {
        const d = await readAndDecideGateOne(tx, { tenantId: file.tenantId, principal, namespace: file.namespace, operation: "object.get", ref: null, now });
        if (!d.allow) throw gone();
      }
    }
    const audit: AuditPrincipal = principal.type === "user" ? principal : { type: "actor", actorId: principal.actorId, grantorId: principal.grantorId };
    await recordAudit(tx, { tenantId: file.tenantId, event: "url.redeemed", principal: audit, namespace: file.namespace, ref, outcome: "ok", subjectId: file.id, details: { size: file.size } });
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

/** Ask the realm again, as the call that minted the URL would be asked now: gate one for agents, then its get. */
async function realmStillShows(tx: Tx, file: FileRow, principal: Principal, ref: string, now: Date): Promise<boolean> {
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
  try {
    return await tx.transaction(async (sp) => {
      const ctx: RealmContext = { tx: sp, tenantId: file.tenantId, principal, requestId: "redeem", now, delivery, appUrl: env().appUrl, grantScope: null };
      if (principal.type === "actor") {
        const lineage = realm.adapter.lineage ? async () => (await realm.adapter.lineage!(ctx, { refs: [ref] }))[ref] ?? [] : undefined;
        const d = await readAndDecideGateOne(sp, { tenantId: file.tenantId, principal, namespace: file.namespace, operation: "object.get", ref, now, lineage });
        if (!d.allow) return false;
        ctx.grantScope = d.scope ?? null;
      }
      await realm.adapter.get(ctx, { ref, full: false });
      return true;
    });
  } catch (err) {
    if (isAppError(err)) return false;
    throw err;
  }
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
    now: opts.now,
  });
}
