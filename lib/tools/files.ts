// Redeeming a signed file URL: the signature and expiry first, then a fresh check that the caller named in
// the URL may still read the file (a revoked actor or grant stops the download too). Audited.
import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { actors } from "@/db/schema";
import { recordAudit, type AuditPrincipal } from "@/lib/audit/record";
import { readAndDecideGateOne } from "@/lib/authz/gate-read";
import { readFileRow } from "@/lib/delivery/files";
import { verifySignedUrl } from "@/lib/delivery/signed-urls";
import { AppError } from "@/lib/errors";

export async function redeemFileUrl(
  db: Db,
  input: { fileId: string; method: string; path: string; by: string | null; exp: string | null; sig: string | null; now?: Date },
) {
  const now = input.now ?? new Date();
  const { principalId } = verifySignedUrl({ ...input, now });
  return db.transaction(async (tx) => {
    const file = await readFileRow(tx, null, input.fileId);
    if (!file) throw new AppError("not_found", "No such file.");
    let principal: AuditPrincipal;
    const gone = () => new AppError("forbidden", "You may no longer read this file.", { details: { file_id: file.id } });
    if (principalId.startsWith("usr_")) {
      if (principalId !== file.ownerUserId) throw gone();
      principal = { type: "user", userId: principalId };
    } else {
      const [actor] = await tx.select().from(actors).where(and(eq(actors.id, principalId), eq(actors.tenantId, file.tenantId)));
      if (!actor || actor.revokedAt || actor.grantorId !== file.ownerUserId) throw gone();
      const decision = await readAndDecideGateOne(tx, {
        tenantId: file.tenantId,
        principal: { type: "actor", actorId: actor.id, grantorId: actor.grantorId, actorKind: actor.kind },
        namespace: file.namespace,
        operation: "object.get",
        ref: null,
        now,
      });
      if (!decision.allow) throw gone();
      principal = { type: "actor", actorId: actor.id, grantorId: actor.grantorId };
    }
    await recordAudit(tx, {
      tenantId: file.tenantId,
      event: "url.redeemed",
      principal,
      namespace: file.namespace,
      outcome: "ok",
      subjectId: file.id,
      details: { size: file.size },
    });
    return { name: file.name, contentType: file.contentType, bytes: file.content, sha256: file.sha256 };
  });
}
