// Redeeming a signed file URL (a stored file; a provider-backed live link is redeemLiveUrl below): the signature
// and expiry first, then a fresh check that the caller named in the URL may still read the file. For an agent, the
// link follows the grant it was minted under: that grant must still be live and cover what the link was minted for
// (the object it was reached through, or what contains it — an export's document); a revoked grant or actor stops
// the link at once. Then the realm's own get (gate two) when the URL names an object, so an unshared document stops
// it too; otherwise only the file's owner may redeem it. Audited.
import { createHash } from "node:crypto";
import { and, eq, lt } from "drizzle-orm";
import type { Db, Tx } from "@/db/client";
import { actors, liveUrlUses, memberships } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { readFileRow } from "@/lib/delivery/files";
import { verifySignedUrl } from "@/lib/delivery/signed-urls";
import { AppError, isAppError } from "@/lib/errors";
import { verifyLiveUrl } from "@/lib/delivery/live-urls";
import { isOperationKey, type OperationKey, type ParsedRef, type Principal, type Realm, type RealmContext, type StreamedFile } from "@/lib/realms/contract";
import { namespaceOfRef } from "@/lib/realms/refs";
import { findRealm } from "@/lib/realms/registry";
import { auditPrincipalFor, openCall } from "./call";

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
    if (principal.type === "actor" && !grantId) throw gone("the grant it was issued under has ended");
    // People's links carry no operation (gate one lets people in as themselves); an agent's names the minting one.
    const minting = principal.type === "user" ? "object.get" : operation && isOperationKey(operation) ? operation : null;
    if (!minting) throw gone("the operation it was issued by is turned off or changed");
    const realm = ref ? await realmOf(tx, file, ref) : null;
    if (ref && !realm) throw gone("the object it came from is no longer yours to read");
    const why = await stillReadable(tx, { file, principal, ref, realm: realm?.realm ?? null, parsed: realm?.parsed ?? {}, grantId, operation: minting, now });
    if (why) throw gone(why);
    if (!ref) {
      const authority = principal.type === "user" ? principal.userId : principal.grantorId;
      if (authority !== file.ownerUserId) throw gone("it belongs to someone else");
    }
    await recordAudit(tx, {
      tenantId: file.tenantId,
      event: "url.redeemed",
      principal: auditPrincipalFor(principal),
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
async function principalFor(tx: Tx, file: Pick<FileRow, "tenantId">, principalId: string): Promise<Principal | null> {
  if (principalId.startsWith("usr_")) {
    const [m] = await tx.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.tenantId, file.tenantId), eq(memberships.userId, principalId)));
    return m ? { type: "user", userId: principalId } : null;
  }
  const [actor] = await tx.select().from(actors).where(and(eq(actors.id, principalId), eq(actors.tenantId, file.tenantId)));
  if (!actor || actor.revokedAt) return null;
  return { type: "actor", actorId: actor.id, grantorId: actor.grantorId, actorKind: actor.kind };
}

/** The realm of the object the link was minted through (the file's own), and that ref as it parses there. */
async function realmOf(tx: Tx, file: Pick<FileRow, "tenantId" | "namespace">, ref: string): Promise<{ realm: Realm; parsed: Record<string, ParsedRef> } | null> {
  if (namespaceOfRef(ref) !== file.namespace) return null;
  const realm = await findRealm(tx, file.tenantId, file.namespace);
  if (!realm) return null;
  try {
    return { realm, parsed: { [ref]: realm.adapter.parseRef(ref) } };
  } catch (err) {
    if (isAppError(err)) return null;
    throw err;
  }
}

type Redemption = { file: Pick<FileRow, "tenantId" | "namespace">; principal: Principal; ref: string | null; realm: Realm | null; parsed: Record<string, ParsedRef>; grantId: string | null; operation: OperationKey; now: Date };

/**
 * Gate one, as for a call, with the minting grant the only one that may let it in: it must be live and still
 * cover the minting operation (not suspended, not turned off by the ceiling or the grantor) and reach the object
 * (or what contains it). Then the realm's own get. Null when the file may still be read; otherwise why not.
 */
async function stillReadable(tx: Tx, r: Redemption, run?: (ctx: RealmContext) => Promise<void>): Promise<string | null> {
  const party = { tenantId: r.file.tenantId, principal: r.principal, requestId: "redeem", now: r.now, checkOnly: true };
  // A link minted by a call a person approved carries that approval (apr_…) instead of a grant.
  const by = r.grantId?.startsWith("apr_") ? { approval: { id: r.grantId, digest: "", tool: "", link: true as const } } : r.grantId ? { grantId: r.grantId } : {};
  const ask = { realm: r.realm, namespace: r.file.namespace, operation: r.operation, refs: r.ref ? [r.ref] : [], parsed: r.parsed, ...by };
  const objectGone = "the object it came from is no longer yours to read";
  let opened: Awaited<ReturnType<typeof openCall>>;
  try {
    opened = await openCall(tx, party, ask);
  } catch (err) {
    if (isAppError(err) && r.ref) return objectGone;
    throw err;
  }
  const d = opened.decision;
  if (!d.allow) {
    if (d.wall === "approval") return r.grantId?.startsWith("apr_") ? "the approval it was issued under no longer holds" : "the operation now waits for a person's approval of each call";
    if (d.code === "operation_disabled" || d.suspended) return "the operation it was issued by is turned off or changed";
    // The grant is live and covers the operation; it does not reach the object (a link without one needs no reach).
    if (d.code === "consent_required" && d.outsideScope) return r.ref ? objectGone : null;
    return "the grant it was issued under has ended";
  }
  if (!r.ref || !r.realm) return null;
  const { ctx } = opened;
  const realm = r.realm;
  const ref = r.ref;
  try {
    await tx.transaction(async (sp) => void (run ? await run({ ...ctx, tx: sp }) : await realm.adapter.get({ ...ctx, tx: sp }, { ref, full: false }))).finally(() => opened.settled.run(tx));
    return null;
  } catch (err) {
    // The provider's own trouble (an outage, a rate limit, a file too large) is said as it is; anything else is a refusal.
    if (isAppError(err) && run && (err.code === "provider_unavailable" || err.code === "rate_limited" || err.code === "payload_too_large")) throw err;
    if (isAppError(err)) return objectGone;
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
    grant: q.get("g"),
    op: q.get("op"),
    now: opts.now,
  });
}

/**
 * Redeem a provider-backed link (lib/delivery/live-urls.ts): the signature and expiry, the caller still there,
 * gate one with the minting grant only (as for stored files), then the realm itself, whose hook runs gate two
 * (the account still connected, its claims) before it fetches the current bytes (GET, `streamFile`) or hands the
 * PUT bytes to the provider (`receiveUpload`). Nothing is stored; audited.
 */
async function useUploadSlot(tx: Tx, tenantId: string, sig: string, expiresAt: number, now: Date, gone: (why: string) => AppError) {
  // Uses of slots long expired say nothing any more.
  await tx.delete(liveUrlUses).where(lt(liveUrlUses.expiresAt, new Date(now.getTime() - 3_600_000)));
  const sigHash = createHash("sha256").update(sig).digest("hex");
  const [fresh] = await tx.insert(liveUrlUses).values({ sigHash, tenantId, expiresAt: new Date(expiresAt * 1000) }).onConflictDoNothing().returning({ h: liveUrlUses.sigHash });
  if (!fresh) throw gone("this upload slot was already used; ask for a new one (request_upload again)");
}

export async function redeemLiveUrl(db: Db, url: string | URL, opts: { method: string; now?: Date; body?: { bytes: Uint8Array; contentType: string } }): Promise<{ kind: "download"; file: StreamedFile } | { kind: "upload"; result: Record<string, unknown> }> {
  const now = opts.now ?? new Date();
  const p = verifyLiveUrl(new URL(url), opts.method, now);
  return db.transaction(async (tx) => {
    const where = { tenantId: p.tenantId, namespace: p.namespace };
    const gone = (why: string) => new AppError("forbidden", `This link no longer works: ${why}.`, { details: { ref: p.ref } });
    const principal = await principalFor(tx, where, p.principalId);
    if (!principal) throw gone("the caller it was issued to is gone");
    if (principal.type === "actor" && !p.grantId) throw gone("the grant it was issued under has ended");
    // The link names the operation that minted it; a person's download link may name none (their own get).
    const minting = p.operation && isOperationKey(p.operation) ? p.operation : principal.type === "user" && p.method === "GET" ? "object.get" : null;
    if (!minting) throw gone("the operation it was issued by is turned off or changed");
    const realm = await realmOf(tx, where, p.ref);
    if (!realm) throw gone("the object it came from is no longer yours to read");
    const hook = p.method === "GET" ? realm.realm.adapter.streamFile : realm.realm.adapter.receiveUpload;
    if (!hook) throw gone(`${p.namespace} no longer serves such links`);
    // An upload slot uploads once: its use is recorded in this transaction (a second PUT, even concurrent, waits
    // for the first and is refused; a failed upload rolls its use back, so the slot can be tried again).
    if (p.method === "PUT") await useUploadSlot(tx, p.tenantId, new URL(url).searchParams.get("sig") ?? "", p.expiresAt, now, gone);
    let out: { kind: "download"; file: StreamedFile } | { kind: "upload"; result: Record<string, unknown> } | null = null;
    const run = async (ctx: RealmContext) => {
      if (p.method === "GET") out = { kind: "download", file: await realm.realm.adapter.streamFile!(ctx, { ref: p.ref, params: p.params }) };
      else out = { kind: "upload", result: await realm.realm.adapter.receiveUpload!(ctx, { ref: p.ref, name: p.name, contentType: opts.body?.contentType ?? "application/octet-stream", bytes: opts.body?.bytes ?? new Uint8Array(), params: p.params }) };
    };
    const why = await stillReadable(tx, { file: where, principal, ref: p.ref, realm: realm.realm, parsed: realm.parsed, grantId: p.grantId, operation: minting, now }, run);
    if (why) throw gone(why);
    await recordAudit(tx, {
      tenantId: p.tenantId,
      event: "url.redeemed",
      principal: auditPrincipalFor(principal),
      namespace: p.namespace,
      ref: p.ref,
      outcome: "ok",
      details: { live: p.method, ...(p.grantId ? { grant_id: p.grantId } : {}) },
    });
    return out!;
  });
}
