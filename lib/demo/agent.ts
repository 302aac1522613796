// The demo's delegated actor: "Demo Agent" acting for alice, granted the read operations of the native realms
// and every action on `board` — and nothing on `docs` actions, so a docs action meets consent_required.
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { actors, actorTokens, grants } from "@/db/schema";
import type { DemoSeedStep } from "@/db/seed";
import { newId } from "@/lib/ids";
import { createActor, issueActorToken } from "@/lib/authz/actors";
import { createGrantTx } from "@/lib/authz/grants";
import { hashSecret } from "@/lib/authz/secrets";

const READS = ["provider.about", "object.schema", "object.list", "object.search", "object.get"];

/** Realm → operations the demo agent holds. Realms not registered in this build are skipped. */
export const demoAgentGrants: Record<string, string[]> = {
  memory: READS,
  docs: READS,
  board: [...READS, "object.action.*"],
  mail: READS,
};

export const seedDemoAgent: DemoSeedStep = async (db: Db, demo, previous) => {
  const alice = demo.users.alice!;
  const who = { tenantId: demo.tenant.id, userId: alice.user_id, role: "owner" as const, requestId: newId("req") };
  let [actor] = await db
    .select()
    .from(actors)
    .where(and(eq(actors.tenantId, who.tenantId), eq(actors.grantorId, who.userId), eq(actors.name, "Demo Agent"), isNull(actors.revokedAt)));
  let token = previous?.agent?.token;
  if (!actor) {
    const created = await createActor(db, who, { name: "Demo Agent", kind: "hosted_agent", issue_token: true, token_expires_in_days: null });
    [actor] = await db.select().from(actors).where(eq(actors.id, created.actor.id));
    token = created.token!.token;
  } else {
    const live = token
      ? await db.select().from(actorTokens).where(and(eq(actorTokens.hash, hashSecret(token)), eq(actorTokens.actorId, actor.id), isNull(actorTokens.revokedAt)))
      : [];
    if (live.length === 0) token = (await issueActorToken(db, who, actor.id, { expires_in_days: null, revoke_others: false })).token;
  }
  const { findRealm } = await import("@/lib/realms/registry");
  for (const [namespace, operations] of Object.entries(demoAgentGrants)) {
    if (!(await findRealm(db, who.tenantId, namespace))) continue;
    const existing = await db
      .select({ id: grants.id })
      .from(grants)
      .where(and(eq(grants.actorId, actor!.id), eq(grants.namespace, namespace), isNull(grants.revokedAt)));
    if (existing.length) continue;
    await db.transaction((tx) => createGrantTx(tx, who, { actorId: actor!.id, namespace, operations, resourceScope: null, expiresAt: null }));
  }
  demo.agent = { actor_id: actor!.id, name: "Demo Agent", grantor: "alice", token: token!, grants: demoAgentGrants };
};
