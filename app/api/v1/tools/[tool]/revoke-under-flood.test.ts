// A revoke gets its turn while its agent keeps calling (PostgreSQL: calls at once). Gate one reads the agent's grants
// FOR SHARE; without the per-actor turn (lib/authz/grant-turns.ts) each new call joined the share lock ahead of the waiting
// revoke, which then waited out the statement timeout (503) while the grant stayed live (found by an attack).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbKind } from "@/db/client";
import { POST } from "./route";
import { envOverride, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { revokeActor } from "@/lib/authz/actors";
import { revokeGrant } from "@/lib/authz/grants";

const onPostgres = (await dbKind()) === "postgres";
const env = envOverride();
beforeAll(() => env.set({ MCP_RATE_LIMIT_PER_MINUTE: "1000000" }));
afterAll(() => env.restore());

type Answer = { status: number; code: string | null; sentAt: number };

/** Nine callers (the pool holds ten connections; the revoke takes the tenth) searching docs as the agent without pause, until `stop`; each answer with when it was sent. */
function flood(token: string) {
  let stop = false;
  const answers: Answer[] = [];
  const one = async () => {
    const sentAt = performance.now();
    const res = await POST(
      new Request("http://realmgate.test/api/v1/tools/search_objects", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ namespace: "docs", query: "Q3" }) }),
      { params: Promise.resolve({ tool: "search_objects" }) },
    );
    const body = (await res.json()) as { error?: { code: string } };
    answers.push({ status: res.status, code: body.error?.code ?? null, sentAt });
  };
  const loops = Array.from({ length: 9 }, async () => {
    while (!stop) await one();
  });
  return {
    answers,
    stop: async () => {
      stop = true;
      await Promise.all(loops);
    },
  };
}

describe.skipIf(!onPostgres)("a revoke while its agent keeps calling", () => {
  /** An agent with a docs grant floods calls; after 0.4 s `revoke` runs. Its time, and the answers sent after it. */
  async function revokeUnderFlood(revoke: (t: TestTenant, actorId: string, grantId: string) => Promise<unknown>) {
    const t = await makeTenant({ alice: "owner" });
    const agent = await makeActor(t, t.users.alice!);
    const g = await grant(t, t.users.alice!, agent.actorId, "docs", ["object.search"]);
    const f = flood(agent.token);
    await new Promise((r) => setTimeout(r, 400));
    const started = performance.now();
    await revoke(t, agent.actorId, g.id);
    const answered = performance.now();
    await new Promise((r) => setTimeout(r, 200));
    await f.stop();
    const after = f.answers.filter((a) => a.sentAt > answered);
    expect(after.length).toBeGreaterThan(0);
    return { took: answered - started, before: f.answers.filter((a) => a.sentAt < started), after };
  }

  it("a grant's revoke answers promptly, and every call sent after it is refused", async () => {
    const r = await revokeUnderFlood((t, _actorId, grantId) => revokeGrant(t.db, t.users.alice!, grantId, "while calling"));
    expect(r.took).toBeLessThan(2_500);
    expect(r.before.filter((a) => a.status === 200).length).toBeGreaterThan(10);
    expect(r.after.map((a) => `${a.status} ${a.code}`)).toEqual(r.after.map(() => "403 grant_revoked"));
  });

  it("an agent's revoke answers promptly, and every call sent after it is refused", async () => {
    const r = await revokeUnderFlood((t, actorId) => revokeActor(t.db, t.users.alice!, actorId, "while calling"));
    expect(r.took).toBeLessThan(2_500);
    expect(r.after.map((a) => a.status)).toEqual(r.after.map(() => 401));
  });
});
