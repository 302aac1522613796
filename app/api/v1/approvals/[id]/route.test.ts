// The approval routes in-process: a person's API key reads and decides; an actor token is refused; another
// tenant's or another member's approval is not found; a bad body is invalid_input; deciding twice is a conflict.
import { beforeAll, describe, expect, it } from "vitest";
import { call, errorOf, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { createApiKey } from "@/lib/authz/api-keys";
import { dispatch } from "@/lib/tools/dispatch";
import { GET as LIST } from "../route";
import { GET, POST } from "./route";

let t: TestTenant;
let aliceKey: string;
let bobKey: string;
let agentToken: string;
let id: string;
let ref: string;
beforeAll(async () => {
  t = await makeTenant(undefined, { destructiveDefault: "ask" });
  aliceKey = (await createApiKey(t.db, t.users.alice!, "approvals test")).key;
  bobKey = (await createApiKey(t.db, t.users.bob!, "approvals test")).key;
  const doc = (await dispatch(call(t.users.alice!), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Budget 2027" } })) as { ref: string };
  ref = doc.ref;
  const agent = await makeActor(t, t.users.alice!, "Cleaner");
  agentToken = agent.token;
  id = (await errorOf(dispatch(call(agent), "delete_object", { ref }))).details.approval_id as string;
});

const url = (path: string) => `http://realmgate.test/api/v1/approvals${path}`;
const get = (key: string, at = id) => GET(new Request(url(`/${at}`), { headers: { authorization: `Bearer ${key}` } }), { params: Promise.resolve({ id: at }) });
const decide = (key: string, body: unknown, at = id) =>
  POST(new Request(url(`/${at}`), { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }), { params: Promise.resolve({ id: at }) });
const codeOfRes = async (res: Response) => ((await res.json()) as { error: { code: string; details: Record<string, unknown> } }).error;

describe("/api/v1/approvals", () => {
  it("lists and reads the grantor's approval by name, and refuses an actor token", async () => {
    const list = await LIST(new Request(url("?status=pending"), { headers: { authorization: `Bearer ${aliceKey}` } }), { params: Promise.resolve({}) });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { approvals: { id: string }[] }).approvals.map((a) => a.id)).toEqual([id]);
    const bad = await LIST(new Request(url("?status=maybe"), { headers: { authorization: `Bearer ${aliceKey}` } }), { params: Promise.resolve({}) });
    expect(bad.status).toBe(400);

    const one = await get(aliceKey);
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ id, status: "pending", actor: { name: "Cleaner" }, target: { ref, label: "Budget 2027" } });

    for (const res of [await get(agentToken), await decide(agentToken, { decision: "approve" })]) {
      expect(res.status).toBe(403);
      expect((await codeOfRes(res)).code).toBe("forbidden");
    }
  });

  it("is not found for another member and another tenant, whatever the id", async () => {
    expect((await get(bobKey)).status).toBe(404);
    expect((await decide(bobKey, { decision: "approve" })).status).toBe(404);
    const other = await makeTenant();
    const otherKey = (await createApiKey(other.db, other.users.alice!, "other")).key;
    expect((await decide(otherKey, { decision: "approve" })).status).toBe(404);
    expect((await get(aliceKey, "apr_doesnotexist")).status).toBe(404);
  });

  it("refuses a bad body with invalid_input, then decides once; the second decision names the first", async () => {
    for (const body of [{ decision: "maybe" }, { decision: "approve", note: "x".repeat(501) }, { decision: "approve", expires: "1d" }, {}]) {
      const res = await decide(aliceKey, body);
      expect(res.status).toBe(400);
      expect((await codeOfRes(res)).code).toBe("invalid_input");
    }
    const ok = await decide(aliceKey, { decision: "approve", note: " ok " });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: "approved", note: "ok" });
    const again = await decide(aliceKey, { decision: "deny" });
    expect(again.status).toBe(409);
    expect(await codeOfRes(again)).toMatchObject({ code: "conflict", details: { status: "approved", decided_by: "alice" } });
  });
});
