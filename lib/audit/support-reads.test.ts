// A support person reading the trail while opening timelines, at once (PostgreSQL: transactions at once). Each
// read records a support view under the person's view lock, then appends (the numbering turn, shared); the trail's
// listing also takes the numbering turn alone to find how far it may page. Taken in opposite orders they deadlocked
// (found by an attack: 12 deadlocks in 15 s of one listing loop and one timeline loop, and the tenant's tool calls
// stalled with them). The listing now takes the turn alone in a transaction of its own, before anything else.
import { describe, expect, it } from "vitest";
import { dbKind } from "@/db/client";
import { grantTimeline } from "@/lib/views/timeline";
import { call, grant, makeActor, makeTenant } from "@/test-support";
import { listAuditEvents, listAuditQuery } from "./query";

const onPostgres = (await dbKind()) === "postgres";

describe.skipIf(!onPostgres)("support reads at once", () => {
  it("listing the trail and opening grant timelines in parallel loops: no deadlock, every read answered", async () => {
    const t = await makeTenant({ alice: "owner", sam: "support" });
    const agent = await makeActor(t, t.users.alice!);
    const grants = await Promise.all(["docs", "memory", "board"].map((ns) => grant(t, t.users.alice!, agent.actorId, ns, ["object.search"])));
    const sam = t.users.sam!;
    let n = 0;
    const loop = (read: () => Promise<unknown>) => async () => {
      for (let i = 0; i < 40; i++) await read();
    };
    const results = await Promise.allSettled([
      loop(() => listAuditEvents(t.db, call(sam), listAuditQuery.parse({ limit: 20, outcome: ["ok", "allow", "deny"][n++ % 3] })))(),
      loop(() => listAuditEvents(t.db, call(sam), listAuditQuery.parse({ limit: 5 })))(),
      loop(() => grantTimeline(t.db, call(sam), grants[n++ % 3]!.id))(),
      loop(() => grantTimeline(t.db, call(sam), grants[n++ % 3]!.id))(),
    ]);
    expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
  });
});
