// The consent decision route in-process, authenticated by a personal API key: an approval grants what stayed
// checked (the ask and its offered companions, nothing else) and answers the walls still ahead of the call.
import { beforeAll, describe, expect, it } from "vitest";
import { connectedAccounts } from "@/db/schema";
import { call, errorOf, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";
import { createApiKey } from "@/lib/authz/api-keys";
import { newId } from "@/lib/ids";
import { dispatch } from "@/lib/tools/dispatch";
import { GET, POST } from "./route";

let t: TestTenant;
let aliceKey: string;
let bobKey: string;
beforeAll(async () => {
  t = await makeTenant();
  aliceKey = (await createApiKey(t.db, t.users.alice!, "consent test")).key;
  bobKey = (await createApiKey(t.db, t.users.bob!, "consent test")).key;
});

const decide = (key: string, id: string, body: unknown, query = "") =>
  POST(
    new Request(`http://realmgate.test/api/v1/consent-requests/${id}${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ id }) },
  );

describe("POST /api/v1/consent-requests/:id", () => {
  it("grants an upload with the attach step the person left checked, and refuses what was never offered", async () => {
    const agent = await makeActor(t, t.users.alice!, "Filer");
    const upload = { namespace: "docs", name: "a.txt", content_type: "text/plain", content_base64: Buffer.from("a").toString("base64") };
    const id = (await errorOf(dispatch(call(agent), "host_file", upload))).details.consent_request_id as string;
    // What the page offers, over the API too: the companion, checked by default there; no wall ahead in docs.
    const pending = await GET(new Request(`http://realmgate.test/api/v1/consent-requests/${id}`, { headers: { authorization: `Bearer ${aliceKey}` } }), { params: Promise.resolve({ id }) });
    expect(await pending.json()).toMatchObject({ status: "pending", operations: ["file.host"], companions: [{ key: "object.action.attach_file", why: expect.stringContaining("attach") }], also_needed: [] });

    const wider = await decide(aliceKey, id, { decision: "approve", expires: "1h", operations: ["file.host", "object.delete"] });
    expect(wider.status).toBe(400);
    expect((await wider.json()).error.details.not_requested).toEqual(["object.delete"]);
    // Someone else's request: not theirs to decide.
    expect((await decide(bobKey, id, { decision: "approve", expires: "1h" })).status).toBe(404);

    const res = await decide(aliceKey, id, { decision: "approve", expires: "1h", operations: ["file.host", "object.action.attach_file"] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { request: { status: string }; grant: { operations: string[] }; also_needed: unknown[] };
    expect(body.request.status).toBe("approved");
    expect([...body.grant.operations].sort()).toEqual(["file.host", "object.action.attach_file"]);
    expect(body.also_needed).toEqual([]);
    const got = await GET(new Request(`http://realmgate.test/api/v1/consent-requests/${id}`, { headers: { authorization: `Bearer ${aliceKey}` } }), { params: Promise.resolve({ id }) });
    expect(await got.json()).toMatchObject({ status: "approved", grant_id: expect.stringMatching(/^grt_/) });
  });

  it("answers the connected-account wall still ahead, with its fix coming back to the consent page", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice, "Mailer");
    await grant(t, alice, agent.actorId, "mail", ["object.search"]);
    const accountId = newId("acc");
    await t.db.insert(connectedAccounts).values({ id: accountId, tenantId: t.tenantId, userId: alice.userId, provider: "devmail", api: "gmail", externalId: accountId, email: "alice@mail.test", label: "Work", claims: ["gmail:read"], scopes: [], status: "active" });
    const denied = await errorOf(dispatch(call(agent), "object_action", { namespace: "mail", action: "send", payload: { to: ["d@n.test"], subject: "s", body: "b", account: "Work" } }));
    const id = denied.details.consent_request_id as string;

    const res = await decide(aliceKey, id, { decision: "approve", expires: "1h" }, "?account=Work");
    expect(res.status).toBe(200);
    const { also_needed } = (await res.json()) as { also_needed: { reason: string; account_id: string; start: unknown; connection_hub_url: string }[] };
    expect(also_needed).toEqual([expect.objectContaining({ reason: "claim_upgrade_required", account_id: accountId, start: { intent: "upgrade", account_id: accountId, claims: ["gmail:send"] } })]);
    expect(new URL(also_needed[0]!.connection_hub_url).searchParams.get("return_to")).toBe(`/consent/${id}?account=Work`);
    // Decided once: a second decision is a conflict, whatever it asks.
    const again = await decide(aliceKey, id, { decision: "deny" });
    expect(again.status).toBe(409);
    expect((await again.json()).error.code).toBe("conflict");
  });
});
