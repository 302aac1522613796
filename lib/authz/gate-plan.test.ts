// Gate one's statement for a REST tool call (token, rate limit, gate one and the audit lane in one) is set up by
// PostgreSQL on every call: each plan node costs it time whether or not it runs. The token's row (`tok`) is read
// once by the main select (a left join), not by a scalar subquery per column and per use (~9 % of PostgreSQL's time
// per call); a call whose `last_used_at` touch is not due carries no update of it; and expired rate-limit tallies are
// swept elsewhere (lib/limits). This test explains the statement a real call sends, with the values it sent, and
// counts (checked: it fails on the statement as it was before these changes).
import { beforeAll, describe, expect, it } from "vitest";
import { onStatement } from "@/db/client";
import { makeActor, makeTenant, type TestTenant } from "@/test-support";
import { readGateOneForToken } from "./gate-read";

type PlanNode = { "Node Type": string; "Relation Name"?: string; "CTE Name"?: string; Operation?: string; Plans?: PlanNode[] };
type RawClient = { query(text: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }> };

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

let t: TestTenant;
let agent: Awaited<ReturnType<typeof makeActor>>;
beforeAll(async () => {
  t = await makeTenant({ alice: "owner" });
  agent = await makeActor(t, t.users.alice!, "Plan agent");
});

/** The plan of gate one's statement as a call at `now` sends it. */
async function planOf(now: Date): Promise<PlanNode[]> {
  let sent: { sql: string; values: readonly unknown[] } | null = null;
  const stop = onStatement((sql, values) => {
    if (sql.includes("from actor_tokens") && sql.includes("from ceiling_settings") && values) sent = { sql, values };
  });
  try {
    await t.db.transaction((tx) => readGateOneForToken(tx, { namespace: "docs", operation: "object.search", risk: "read" }, agent.token, now, { limit: { limit: 1000, windowSeconds: 60 } }));
  } finally {
    stop();
  }
  const s = sent as { sql: string; values: readonly unknown[] } | null;
  expect(s).not.toBeNull();
  const raw = (t.db as unknown as { $client: RawClient & { connect?: () => Promise<RawClient & { release(): void }> } }).$client;
  const conn = raw.connect ? await raw.connect() : null;
  const on = conn ?? raw;
  try {
    await on.query(`prepare gate_plan_probe as ${s!.sql}`);
    const values = s!.values.map((v) => (v === null ? "null" : `'${String(v).replaceAll("'", "''")}'`));
    const r = await on.query(`explain (format json) execute gate_plan_probe(${values.join(", ")})`);
    const plan = r.rows[0]!["QUERY PLAN"] as { Plan: PlanNode }[] | string;
    return nodes((typeof plan === "string" ? (JSON.parse(plan) as { Plan: PlanNode }[]) : plan)[0]!.Plan);
  } finally {
    await on.query("deallocate gate_plan_probe").catch(() => {});
    conn?.release();
  }
}

describe("gate one's statement, as PostgreSQL sets it up on every call", () => {
  it("reads the token's row by one join, not a subquery per use, and touches last_used_at only when due", async () => {
    const t0 = new Date("2026-12-05T12:00:00.000Z");
    // The token's first call of the minute: the touch is due.
    const first = await planOf(t0);
    // A call 10 s later: not due.
    const later = await planOf(new Date(t0.getTime() + 10_000));
    const tokScans = (plan: PlanNode[]) => plan.filter((n) => n["Node Type"] === "CTE Scan" && n["CTE Name"] === "tok").length;
    const updates = (plan: PlanNode[]) => plan.filter((n) => n["Node Type"] === "ModifyTable" && n.Operation === "Update" && ["actor_tokens", "actors"].includes(n["Relation Name"] ?? "")).length;
    // The main select's join, and one each in the CTEs that need the token's actor or tenant (18 with a subquery
    // per use).
    expect(tokScans(later)).toBeLessThanOrEqual(5);
    expect(updates(later)).toBe(0);
    // With the touch: two updates, each joined to `tok` once more.
    expect(updates(first)).toBe(2);
    expect(tokScans(first)).toBeLessThanOrEqual(7);
    // Everything set up on a call that is not due: a bound on the plan's size, so that a part added to the
    // statement is a deliberate choice (47 nodes; 78 with a subquery per use, the touch and the sweep always in).
    expect(later.length).toBeLessThanOrEqual(50);
  });
});
