// The support console's reads beside the plain audit list: the names behind the ids in the trail, and the chain
// check. A support person's views are themselves audited, in the same transaction as the read.
import { eq } from "drizzle-orm";
import type { Db, Executor } from "@/db/client";
import { actors, memberships, users, type Role } from "@/db/schema";
import { assertAuditReader } from "./query";
import { recordChange } from "./record";
import { verifyAuditChain, type VerifyResult } from "./verify";
import { recentlyVerified } from "./views";

type Viewer = { tenantId: string; userId: string; role: Role; requestId: string };

export type Directory = {
  users: { id: string; name: string; email: string; role: Role }[];
  actors: { id: string; name: string; kind: string; grantor_id: string; revoked: boolean }[];
};

/** The people and actors of a workspace, to put names on the ids in the audit trail (owners and support). */
export async function auditDirectory(db: Executor, who: Viewer): Promise<Directory> {
  assertAuditReader(who);
  const [people, agents] = await Promise.all([
    db
      .select({ id: users.id, name: users.name, email: users.email, role: memberships.role })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.tenantId, who.tenantId))
      .orderBy(users.name),
    db
      .select({ id: actors.id, name: actors.name, kind: actors.kind, grantorId: actors.grantorId, revokedAt: actors.revokedAt })
      .from(actors)
      .where(eq(actors.tenantId, who.tenantId))
      .orderBy(actors.name),
  ]);
  return {
    users: people,
    actors: agents.map((a) => ({ id: a.id, name: a.name, kind: a.kind, grantor_id: a.grantorId, revoked: a.revokedAt !== null })),
  };
}

/**
 * Walk the chain and record that it was checked (by whom, with what result), after the walk so the
 * record is not part of what it reports on. Owners and support staff only. `coalesce` (the console's check on
 * opening) records nothing when the same person found the same result in the last ten minutes; an asked-for
 * check ("Verify again", the API) is always recorded.
 */
export async function verifyAuditChainAs(db: Db, who: Viewer, opts: { coalesce?: boolean } = {}): Promise<VerifyResult & { verified_at: string }> {
  assertAuditReader(who);
  const result = await verifyAuditChain(db, who.tenantId);
  const verifiedAt = new Date();
  await db.transaction(async (tx) => {
    if (opts.coalesce && (await recentlyVerified(tx, who, result.ok, verifiedAt))) return;
    await recordChange(tx, who, "audit.verified", {
      at: verifiedAt,
      details: { ok: result.ok, checked: result.checked, ...(result.ok ? {} : { first_broken: result.first_broken }), viewer_role: who.role },
    });
  });
  return { ...result, verified_at: verifiedAt.toISOString() };
}
