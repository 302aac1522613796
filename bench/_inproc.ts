// scratch: in-process loop of the REST tool route (not committed)
import { scratchDatabase } from "./scratch-db";
const N = Number(process.env.N ?? 3000);
async function main() {
  const scratch = await scratchDatabase("inproc");
  process.env.DATABASE_URL = scratch.url;
  process.env.AUTH_SECRET ??= "x".repeat(40);
  process.env.APP_URL ??= "http://127.0.0.1:3000";
  const { openDb } = await import("@/db/client");
  const { runDataSteps } = await import("@/db/data-steps");
  const { memberships, tenants, users } = await import("@/db/schema");
  const { createActor } = await import("@/lib/authz/actors");
  const { createGrantTx } = await import("@/lib/authz/grants");
  const { newId } = await import("@/lib/ids");
  const { seedDemo } = await import("@/lib/realms/docs/demo");
  const db = await openDb(runDataSteps);
  const tenantId = newId("tnt");
  await db.insert(tenants).values({ id: tenantId, slug: `t-${tenantId.slice(4, 12).toLowerCase()}`, name: "T" });
  const people: Record<string, string> = {};
  for (const [key, role] of [["alice", "owner"], ["bob", "member"]] as const) {
    const userId = newId("usr");
    await db.insert(users).values({ id: userId, email: `${key}.${userId}@b.test`, name: key });
    await db.insert(memberships).values({ tenantId, userId, role });
    people[key] = userId;
  }
  const u = (key: string) => ({ email: "", name: key, role: "owner" as const, password: "", api_key: "", user_id: people[key]! });
  await seedDemo(db, { app_url: "http://127.0.0.1", tenant: { id: tenantId, slug: "t", name: "t" }, users: { alice: u("alice"), bob: u("bob") } }, null);
  const who = { tenantId, userId: people.alice!, role: "owner" as const, requestId: newId("req") };
  const tokens: string[] = [];
  for (let i = 0; i < 50; i++) {
    const { actor, token } = await createActor(db, who, { name: `a${i}`, kind: "hosted_agent", issue_token: true, token_expires_in_days: null });
    await db.transaction((tx) => createGrantTx(tx, who, { actorId: actor.id, namespace: "docs", operations: ["provider.about", "object.search", "object.get", "object.upsert"], resourceScope: null, expiresAt: null }));
    tokens.push(token!.token);
  }
  const { POST } = await import("@/app/api/v1/tools/[tool]/route");
  const TOOL = process.env.TOOL ?? "search_objects";
  const callTool = async (tool: string, input: Record<string, unknown>, i: number) => {
    const res = await POST(new Request(`http://127.0.0.1:3000/api/v1/tools/${tool}`, { method: "POST", headers: { authorization: `Bearer ${tokens[i % tokens.length]}`, "content-type": "application/json" }, body: JSON.stringify(input) }), { params: Promise.resolve({ tool }) });
    if (res.status !== 200) throw new Error(`status ${res.status} ${await res.text()}`);
    return (await res.json()) as { items?: { ref: string }[] };
  };
  const ref = (await callTool("search_objects", { namespace: "docs", query: "Q3" }, 0)).items![0]!.ref;
  const one = async (i: number) => {
    if (TOOL === "get_object") await callTool("get_object", { ref }, i);
    else if (TOOL === "upsert_object") await callTool("upsert_object", { namespace: "docs", kind: "docs.document", ref, fields: { title: `Q3 planning ${i % 7}` } }, i);
    else await callTool("search_objects", { namespace: "docs", query: "Q3" }, i);
  };
  let captured: { text: string; values: unknown[] } | null = null;
  if (process.env.GATE) {
    const Conn = (await import("pg/lib/connection.js" as string)).default as { prototype: Record<string, (...a: unknown[]) => unknown> };
    const texts = new Map<string, string>();
    const op = Conn.prototype.parse!, ob = Conn.prototype.bind!;
    Conn.prototype.parse = function (this: unknown, c: unknown) { const x = c as { text: string; name?: string }; texts.set(x.name ?? "", x.text); return op.call(this, c); };
    Conn.prototype.bind = function (this: unknown, c: unknown) {
      const x = c as { statement?: string; values?: unknown[] };
      const t = texts.get(x.statement ?? "");
      if (!captured && t?.trimStart().startsWith("with tok as")) captured = { text: t, values: [...(x.values ?? [])] };
      return ob.call(this, c);
    };
  }
  for (let i = 0; i < 800; i++) await one(i);
  if (process.env.GATE) {
    const g = captured as unknown as { text: string; values: unknown[] };
    const fs = await import("node:fs");
    fs.writeFileSync("/work/scratch/gate-captured.json", JSON.stringify(g));
    const pgm = (await import("pg")).default;
    const variants: Record<string, string> = { full: g.text };
    const noGc = g.text.replace(/,\s*rl_x as materialized \(select array\(.*?\) as ids\),\s*rl_gc as \(delete from rate_limit_hits .*?from rl_x\)\)/s, "");
    variants.noGc = noGc;
    const touchRe = /touch_token as \(.*?\)\),\s*touch_actor as \(.*?skip locked\)\)/s;
    const params = [...(g.text.match(touchRe)?.[0].matchAll(/\$(\d+)/g) ?? [])].map((m) => m[1]);
    variants.noGcNoTouch = noGc.replace(touchRe, `touch_token as (select ${params.map((n) => `$${n}::timestamptz`).join(", ")})`);
    variants.trivial = `select ${g.values.map((_, i) => `$${i + 1}::text`).join(", ")}`;
    console.log("touch params", params, "gc removed", noGc !== g.text);
    const client = new pgm.Client({ connectionString: scratch.url });
    await client.connect();
    const order = process.env.ORDER?.split(",") ?? ["full", "noGc", "noGcNoTouch"];
    for (let round = 0; round < 5; round++) for (const name of order) {
      const q = { name: `g_${name}`, text: variants[name]!, values: g.values };
      for (let i = 0; i < 300; i++) { await client.query("begin"); await client.query(q); await client.query("rollback"); }
      const n = 3000; const c0 = process.cpuUsage(); const t0 = performance.now();
      for (let i = 0; i < n; i++) { await client.query("begin"); await client.query(q); await client.query("rollback"); }
      console.log(`${name}: ${((performance.now() - t0) / n).toFixed(3)} ms per begin+gate+rollback`);
    }
    await client.end();
  }
  for (let r = 0; r < Number(process.env.R ?? 3); r++) {
    const c0 = process.cpuUsage(); const t0 = performance.now();
    for (let i = 0; i < N; i++) await one(i);
    const wall = (performance.now() - t0) / N; const c = process.cpuUsage(c0);
    console.log(`per call: wall ${wall.toFixed(3)} ms, cpu ${((c.user + c.system) / 1000 / N).toFixed(3)} ms`);
  }
  const { closeDb } = await import("@/db/client");
  await closeDb();
  await scratch.drop();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
