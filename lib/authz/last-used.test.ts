// A token's `last_used_at` (and its actor's) is written at most once a minute, and a lookup carries the write only
// when one is due: the other calls of the minute send a statement without it (touchDue).
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { onStatement } from "@/db/client";
import { actors, actorTokens } from "@/db/schema";
import { makeActor, makeTenant, type TestTenant } from "@/test-support";
import { actorForToken } from "./actors";
import { readGateOneForToken } from "./gate-read";

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant({ alice: "owner" });
});

/** Whether each token lookup sent while `fn` runs writes `last_used_at`. */
async function touches(fn: () => Promise<unknown>): Promise<boolean[]> {
  const seen: boolean[] = [];
  const stop = onStatement((sql) => {
    if (sql.includes("from actor_tokens")) seen.push(/update actor_tokens set last_used_at/.test(sql));
  });
  try {
    await fn();
  } finally {
    stop();
  }
  return seen;
}

const lastUsed = async (agent: { credentialId: string; actorId: string }) => {
  const [tok] = await t.db.select({ at: actorTokens.lastUsedAt }).from(actorTokens).where(eq(actorTokens.id, agent.credentialId));
  const [act] = await t.db.select({ at: actors.lastUsedAt }).from(actors).where(eq(actors.id, agent.actorId));
  return { token: tok!.at?.toISOString() ?? null, actor: act!.at?.toISOString() ?? null };
};

describe("last_used_at: written once a minute, asked for only when due", () => {
  it("a token looked up on its own: the first lookup writes it, the next within the minute does not ask, one a minute later does", async () => {
    const agent = await makeActor(t, t.users.alice!, "Lookup agent");
    const t0 = new Date("2026-12-05T10:00:00.000Z");
    expect(await touches(() => actorForToken(t.db, agent.token, t0))).toEqual([true]);
    expect(await lastUsed(agent)).toEqual({ token: t0.toISOString(), actor: t0.toISOString() });

    const t1 = new Date(t0.getTime() + 20_000);
    expect(await touches(() => actorForToken(t.db, agent.token, t1))).toEqual([false]);
    expect(await lastUsed(agent)).toEqual({ token: t0.toISOString(), actor: t0.toISOString() });

    const t2 = new Date(t0.getTime() + 61_000);
    expect(await touches(() => actorForToken(t.db, agent.token, t2))).toEqual([true]);
    expect(await lastUsed(agent)).toEqual({ token: t2.toISOString(), actor: t2.toISOString() });
  });

  it("a tool call's lookup (gate one's statement): the same", async () => {
    const agent = await makeActor(t, t.users.alice!, "Call agent");
    const read = (now: Date) =>
      t.db.transaction((tx) => readGateOneForToken(tx, { namespace: "docs", operation: "object.search", risk: "read" }, agent.token, now, { limit: { limit: 1000, windowSeconds: 60 } }));
    const t0 = new Date("2026-12-05T11:00:00.000Z");
    expect(await touches(() => read(t0))).toEqual([true]);
    expect(await lastUsed(agent)).toEqual({ token: t0.toISOString(), actor: t0.toISOString() });
    expect(await touches(() => read(new Date(t0.getTime() + 59_000)))).toEqual([false]);
    expect(await lastUsed(agent)).toEqual({ token: t0.toISOString(), actor: t0.toISOString() });
    const t2 = new Date(t0.getTime() + 60_500);
    expect(await touches(() => read(t2))).toEqual([true]);
    expect(await lastUsed(agent)).toEqual({ token: t2.toISOString(), actor: t2.toISOString() });
  });
});
