// An agent's whole path through the REST transport, as the demo agent acting for alice.
import { expect, test, type APIRequestContext } from "@playwright/test";
import { demo } from "./support/helpers";

type Json = Record<string, unknown>;

async function tool(request: APIRequestContext, token: string, name: string, input: unknown) {
  const res = await request.post(`/api/v1/tools/${name}`, { headers: { authorization: `Bearer ${token}` }, data: input });
  return { status: res.status(), body: (await res.json()) as Json };
}

test("discover, search capabilities, expand one operation, find an object, act, and read an export", async ({ request }) => {
  const { agent, users } = demo();
  const listed = await request.get("/api/v1/tools", { headers: { authorization: `Bearer ${agent.token}` } });
  const names = ((await listed.json()).tools as { name: string }[]).map((t) => t.name);
  expect(names).toEqual(["provider_about", "object_schema", "list_objects", "search_objects", "get_object", "object_action", "upsert_object", "host_file", "delete_object"]); // delete_object too, though never granted: calling it asks alice

  const about = await tool(request, agent.token, "provider_about", {});
  expect((about.body.realms as Json[]).map((r) => r.namespace)).toEqual(expect.arrayContaining(["docs", "board", "memory"]));

  const query = await tool(request, agent.token, "object_schema", { query: "move a card to done" });
  const best = (query.body.matches as Json[])[0]!;
  expect(best).toMatchObject({ namespace: "board", operation: "object.action.move_card" });

  const contract = await tool(request, agent.token, "object_schema", { namespace: "board", operation: "object.action.move_card" });
  expect(contract.body).toMatchObject({ tool: "object_action", action: "move_card" });

  const cards = await tool(request, agent.token, "search_objects", { namespace: "board", query: "launch", kind: "board.card" });
  expect(cards.status).toBe(200);
  const card = (cards.body.items as Json[])[0]!;
  const moved = await tool(request, agent.token, "object_action", { ref: card.ref, action: "move_card", payload: { column: "Done" } });
  expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  const after = await tool(request, agent.token, "get_object", { ref: card.ref });
  expect(JSON.stringify(after.body)).toContain("Done");

  // docs actions were never granted: the answer says who can open the wall and where.
  const docs = await tool(request, agent.token, "search_objects", { namespace: "docs", query: "Q3 planning", kind: "docs.document" });
  const docRef = (docs.body.items as Json[])[0]!.ref as string;
  const denied = await tool(request, agent.token, "object_action", { ref: docRef, action: "export", payload: { format: "markdown" } });
  expect(denied.status).toBe(403);
  const err = denied.body.error as { code: string; details: Json };
  expect(err.code).toBe("consent_required");
  expect(String(err.details.connection_hub_url)).toMatch(new RegExp(`^${process.env.E2E_BASE_URL}/consent/ccr_`));

  // alice approves exactly this; the agent's retry succeeds and the export downloads through its signed URL.
  const requestId = err.details.consent_request_id as string;
  const approve = await request.post(`/api/v1/consent-requests/${requestId}`, {
    headers: { authorization: `Bearer ${users.alice!.api_key}` },
    data: { decision: "approve", expires: "1h" },
  });
  expect(approve.status()).toBe(200);
  const exported = await tool(request, agent.token, "object_action", { ref: docRef, action: "export", payload: { format: "markdown" } });
  expect(exported.status, JSON.stringify(exported.body)).toBe(200);
  const url = JSON.stringify(exported.body).match(/"url":"([^"]+)"/)![1]!;
  const file = await request.get(url);
  expect(file.status()).toBe(200);
  expect(await file.text()).toContain("Q3 planning");
  const altered = await request.get(url.replace(/sig=[^&]+/, "sig=AAAA"));
  expect(altered.status()).toBe(403);
  expect((await altered.json()).error.code).toBe("bad_signature");
});

test("bad input over REST: each with the error shape and the right code", async ({ request }) => {
  const { agent } = demo();
  const auth = { authorization: `Bearer ${agent.token}` };
  const cases: [Promise<{ status: () => number; json: () => Promise<Json> }>, number, string][] = [
    [request.post("/api/v1/tools/no_such_tool", { headers: auth, data: {} }), 404, "not_found"],
    [request.post("/api/v1/tools/get_object", { headers: auth, data: { ref: "docs:document:doc_x", extra: true } }), 400, "invalid_input"],
    [request.post("/api/v1/tools/get_object", { headers: auth, data: { ref: "not a ref" } }), 400, "invalid_ref"],
    [request.post("/api/v1/tools/list_objects", { headers: auth, data: { namespace: "board", kind: "board.card", cursor: "abc.def" } }), 400, "invalid_cursor"],
    [request.post("/api/v1/tools/get_object", { headers: { ...auth, "content-type": "application/json" }, data: "[".repeat(5000) }), 400, "invalid_input"],
    [request.post("/api/v1/tools/get_object", { headers: { ...auth, "content-type": "application/json" }, data: `{"ref":"${"x".repeat(1_200_000)}"}` }), 413, "payload_too_large"],
    [request.post("/api/v1/tools/get_object", { headers: { authorization: "Bearer rga_forged" }, data: {} }), 401, "unauthenticated"],
    [request.post("/api/v1/tools/search_objects", { data: { namespace: "docs", query: "Q3" } }), 401, "unauthenticated"],
  ];
  for (const [p, status, code] of cases) {
    const res = await p;
    expect(res.status(), code).toBe(status);
    expect(((await res.json()).error as Json).code).toBe(code);
  }
});
