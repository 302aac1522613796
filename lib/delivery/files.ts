// Files in Realmgate's database, and the DeliveryPort realms use to store them and hand out signed URLs.
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { files } from "@/db/schema";
import { recordAudit, type AuditPrincipal } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { DeliveryPort } from "@/lib/realms/contract";
import { MAX_FILE_BYTES } from "./port";
import { signLiveUrl } from "./live-urls";
import { signUrl } from "./signed-urls";

export { MAX_FILE_BYTES };

export type DeliveryCaller = {
  tenantId: string;
  principalId: string;
  audit: AuditPrincipal;
  requestId: string;
  appUrl: string;
  now: Date;
  /** A read-only re-check (redeeming a URL): links are neither signed nor audited. */
  checkOnly?: boolean;
  /**
   * The grant that let an actor in (read when a link is minted): redemption requires it to be still live and to
   * cover what the link was minted for. Null for people.
   */
  grantId?: string | null;
  /** The operation of the call minting links (for agents): redemption checks it is still on and unsuspended. */
  operation?: string | null;
};

export function deliveryPort(tx: Executor, caller: DeliveryCaller): DeliveryPort {
  return {
    async storeFile({ namespace, name, contentType, bytes, ownerUserId }) {
      if (bytes.byteLength > MAX_FILE_BYTES) {
        throw new AppError("payload_too_large", `Files are limited to ${MAX_FILE_BYTES} bytes.`, { details: { max_bytes: MAX_FILE_BYTES, size: bytes.byteLength } });
      }
      const id = newId("fil");
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      await tx.insert(files).values({ id, tenantId: caller.tenantId, namespace, ownerUserId, name, contentType, size: bytes.byteLength, sha256, content: bytes });
      return { fileId: id, size: bytes.byteLength, sha256 };
    },
    async fileUrl(fileId, opts = {}) {
      const [f] = await tx.select({ id: files.id, namespace: files.namespace, name: files.name }).from(files).where(and(eq(files.id, fileId), eq(files.tenantId, caller.tenantId)));
      if (!f) throw new AppError("not_found", "No such file.", { details: { file_id: fileId } });
      if (caller.checkOnly) return { encoding: "url" as const, url: "", expires_at: caller.now.toISOString(), name: opts.name ?? f.name };
      const signed = signUrl(caller.appUrl, fileId, caller.principalId, caller.now, opts.ttlSeconds, opts.ref ?? null, caller.grantId ?? null, caller.grantId ? (caller.operation ?? null) : null);
      await recordAudit(tx, {
        tenantId: caller.tenantId,
        event: "url.minted",
        principal: caller.audit,
        requestId: caller.requestId,
        namespace: f.namespace,
        outcome: "ok",
        subjectId: fileId,
        details: { expires_at: signed.expires_at, ...(caller.grantId ? { grant_id: caller.grantId } : {}) },
      });
      return { encoding: "url" as const, url: signed.url, expires_at: signed.expires_at, name: opts.name ?? f.name };
    },
    async deleteFile(fileId) {
      await tx.delete(files).where(and(eq(files.id, fileId), eq(files.tenantId, caller.tenantId)));
    },
    async liveUrl({ namespace, ref, method, name, ttlSeconds, params = {} }) {
      if (caller.checkOnly) return { encoding: "url" as const, url: "", expires_at: caller.now.toISOString() };
      const grantId = caller.grantId ?? null;
      const signed = signLiveUrl(caller.appUrl, { method, tenantId: caller.tenantId, namespace, ref, principalId: caller.principalId, grantId, operation: caller.operation ?? null, name, params }, caller.now, ttlSeconds);
      await recordAudit(tx, {
        tenantId: caller.tenantId,
        event: "url.minted",
        principal: caller.audit,
        requestId: caller.requestId,
        namespace,
        ref,
        outcome: "ok",
        details: { expires_at: signed.expires_at, live: method, ...(grantId ? { grant_id: grantId } : {}) },
      });
      return { encoding: "url" as const, url: signed.url, expires_at: signed.expires_at };
    },
  };
}

export async function readFileRow(db: Executor, tenantId: string | null, fileId: string) {
  const [f] = await db.select().from(files).where(tenantId ? and(eq(files.id, fileId), eq(files.tenantId, tenantId)) : eq(files.id, fileId));
  return f ?? null;
}
