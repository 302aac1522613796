import { createHook } from "node:async_hooks";
import { AsyncLocalStorage } from "node:async_hooks";
import { beforeAll, it } from "vitest";
import { dispatch } from "@/lib/tools/dispatch";
import { call, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { POST } from "@/app/api/v1/tools/[tool]/route";

let t: TestTenant;
let agent: Awaited<ReturnType<typeof makeActor>>;
beforeAll(async () => {
  t = await makeTenant({ alice: "owner" });
  const alice = t.users.alice!;
  await dispatch(call(alice), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Q3 planning" } });
  agent = await makeActor(t, alice);
  await grant(t, alice, agent.actorId, "docs", ["object.search", "object.get", "object.upsert"]);
});
async function rest() {
  const res = await POST(new Request(`http://realmgate.test/api/v1/tools/search_objects`, { method: "POST", headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" }, body: JSON.stringify({ namespace: "docs", query: "Q3" }) }), { params: Promise.resolve({ tool: "search_objects" }) });
  return res.text();
}
it("cpu", async () => {
  for (let i = 0; i < 1500; i++) await rest();
  const inspector = await import("node:inspector");
  const fs = await import("node:fs");
  const session = new inspector.Session();
  session.connect();
  const post = (m: string, p?: object) => new Promise<any>((res, rej) => session.post(m, p ?? {}, (e, r) => (e ? rej(e) : res(r))));
  const N = 3000;
  let c0 = process.cpuUsage(); let w0 = performance.now();
  for (let i = 0; i < N; i++) await rest();
  let c = process.cpuUsage(c0);
  console.log("cpu ms/call", ((c.user + c.system) / 1000 / N).toFixed(3), "wall", ((performance.now() - w0) / N).toFixed(3));
  const { AsyncLocalStorage } = await import("node:async_hooks");
  const stores = [new AsyncLocalStorage<number>(), new AsyncLocalStorage<number>(), new AsyncLocalStorage<number>()];
  const inAls = (i: number) => stores[0]!.run(i, () => stores[1]!.run(i, () => stores[2]!.run(i, () => rest())));
  for (let i = 0; i < 1000; i++) await inAls(i);
  c0 = process.cpuUsage(); w0 = performance.now();
  for (let i = 0; i < N; i++) await inAls(i);
  c = process.cpuUsage(c0);
  console.log("ALS: cpu ms/call", ((c.user + c.system) / 1000 / N).toFixed(3), "wall", ((performance.now() - w0) / N).toFixed(3));
  c0 = process.cpuUsage(); w0 = performance.now();
  for (let i = 0; i < N; i++) await rest();
  c = process.cpuUsage(c0);
  console.log("plain again: cpu ms/call", ((c.user + c.system) / 1000 / N).toFixed(3), "wall", ((performance.now() - w0) / N).toFixed(3));
  await post("Profiler.enable"); await post("Profiler.setSamplingInterval", { interval: 100 }); await post("Profiler.start");
  for (let i = 0; i < N; i++) await rest();
  const { profile } = await post("Profiler.stop");
  fs.writeFileSync("/tmp/inproc.cpuprofile", JSON.stringify(profile));
}, 600_000);
