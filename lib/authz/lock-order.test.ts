// Lock order on PostgreSQL: a tool call locks the approval it names (gate one) and takes the tenant's audit head
// last. A revoke that voids that approval must lock it before its own first audit record, or the two deadlock
// (found by an attack on the dev server, 2026-12-03: the revoke answered 500 and the token stayed live).
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { dbKind, getDb } from "@/db/client";
import { actorTokens, approvals } from "@/db/schema";
import { decideApproval } from "@/lib/approvals/decide";
import { payloadDigest } from "@/lib/approvals/record";
import { recordAudit } from "@/lib/audit/record";
import { dispatch } from "@/lib/tools/dispatch";
import { call, errorOf, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { revokeActor, revokeActorToken } from "./actors";
import { readAndDecideGateOne } from "./gate-read";

const onPostgres = (await dbKind()) === "postgres";

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant(undefined, { destructiveDefault: "ask" });
});

/** An agent's delete, asked and approved: the approval its retry names. */
async function approvedDelete() {
  const agent = await makeActor(t, t.users.alice!);
  const ref = ((await dispatch(call(t.users.alice!), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Lock order" } })) as { ref: string }).ref;
  const id = (await errorOf(dispatch(call(agent), "delete_object", { ref }))).details.approval_id as string;
  await decideApproval(t.db, call(t.users.alice!), id, { decision: "approve" });
  return { agent, ref, id };
}

/** Until another backend of this database waits on a lock (at most 5 s). */
async function untilSomeoneWaits() {
  const db = await getDb();
  for (let i = 0; i < 100; i++) {
    const r = (await db.execute(sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)) as unknown as { rows: { n: number }[] };
    if (r.rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("nobody waited on a lock");
}

describe.skipIf(!onPostgres)("a revoke while a call holds the approval it names", () => {
  for (const [what, revoke] of [
    ["revoking the token that asked", (a: Awaited<ReturnType<typeof approvedDelete>>) => revokeActorToken(t.db, t.users.alice!, a.agent.actorId, a.agent.credentialId)],
    ["revoking the agent", (a: Awaited<ReturnType<typeof approvedDelete>>) => revokeActor(t.db, t.users.alice!, a.agent.actorId, "lock order test")],
  ] as const) {
    it(`${what}: waits for the call and then voids the approval; neither deadlocks`, async () => {
      const a = await approvedDelete();
      const principal = { type: "actor" as const, actorId: a.agent.actorId, grantorId: t.users.alice!.userId, actorKind: "hosted_agent" };
      let revoking!: Promise<unknown>;
      // The call: gate one locks the approval, then (while the revoke waits) its audit record takes the head.
      await t.db.transaction(async (tx) => {
        const d = await readAndDecideGateOne(tx, {
          tenantId: t.tenantId, principal, namespace: "docs", operation: "object.delete", refs: [a.ref], now: new Date(), risk: "destructive",
          approval: { id: a.id, digest: payloadDigest({ ref: a.ref }), tool: "delete_object" },
        });
        expect(d.allow).toBe(true);
        revoking = revoke(a);
        await untilSomeoneWaits();
        await recordAudit(tx, { tenantId: t.tenantId, event: "tool.call", principal: { type: "actor", actorId: a.agent.actorId, grantorId: principal.grantorId }, outcome: "allow", namespace: "docs", operation: "object.delete", ref: a.ref });
      });
      await revoking; // no deadlock on either side
      const [row] = await t.db.select().from(approvals).where(eq(approvals.id, a.id));
      expect(row!.status).toBe("void");
      const [tok] = await t.db.select().from(actorTokens).where(eq(actorTokens.id, a.agent.credentialId));
      expect(tok!.revokedAt).not.toBeNull();
    });
  }
});
